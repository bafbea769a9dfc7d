/* Trace file input: plain files are mapped (pread where that fails); gzip files are inflated to a temporary
 * file first, which is mapped the same way. */
#include "reader/input.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "reader/diag.h"
#include "reader/input_cab.h"

static int inflate_to_temp(etl_input *in, const char *path, etl_error *err)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) return etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open: %s", strerror(errno));
    gzbuffer(gz, 1 << 17);
    in->temp = tmpfile();
    if (!in->temp) {
        gzclose(gz);
        return etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "cannot create temporary file: %s",
                             strerror(errno));
    }
    enum { CHUNK = 1 << 16 };
    unsigned char *chunk = malloc(CHUNK);
    if (!chunk) {
        gzclose(gz);
        return etl_error_set(err, ETL_ERR_NOMEM, path, UINT64_MAX, "out of memory");
    }
    uint64_t total = 0;
    for (;;) {
        int n = gzread(gz, chunk, CHUNK);
        if (n < 0) {
            int zerr;
            const char *msg = gzerror(gz, &zerr);
            int rc = etl_error_set(err, ETL_ERR_IO, path, total, "gzip data is corrupt: %s", msg);
            free(chunk);
            gzclose(gz);
            return rc;
        }
        if (n == 0) break;
        if (fwrite(chunk, 1, (size_t)n, in->temp) != (size_t)n) {
            free(chunk);
            gzclose(gz);
            return etl_error_set(err, ETL_ERR_IO, path, total, "cannot write temporary file: %s",
                                 strerror(errno));
        }
        total += (uint64_t)n;
    }
    free(chunk);
    gzclose(gz);
    if (fflush(in->temp) != 0)
        return etl_error_set(err, ETL_ERR_IO, path, total, "cannot write temporary file: %s", strerror(errno));
    in->fd = fileno(in->temp);
    in->size = total;
    in->was_gzip = 1;
    return ETL_OK;
}

/* Maps the whole input when it can; reading falls back to pread otherwise. */
static void map_input(etl_input *in)
{
    in->map = NULL;
    if (in->fd < 0 || in->size == 0 || in->size > SIZE_MAX) return;
    void *m = mmap(NULL, (size_t)in->size, PROT_READ, MAP_PRIVATE, in->fd, 0);
    if (m != MAP_FAILED) in->map = m;
}

static int open_unmapped(etl_input *in, const char *path, etl_error *err);

int etl_input_open(etl_input *in, const char *path, etl_error *err)
{
    int rc = open_unmapped(in, path, err);
    if (rc == ETL_OK) map_input(in);
    return rc;
}

static int open_unmapped(etl_input *in, const char *path, etl_error *err)
{
    if (etl_cab_is_member_path(path)) return etl_cab_input_open(in, path, err);  /* "REPORT.cab::x.etl" */
    memset(in, 0, sizeof *in);
    in->fd = -1;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open: %s", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "not a regular file");
    }
    unsigned char magic[2] = {0, 0};
    ssize_t got = pread(fd, magic, 2, 0);
    if (got == 2 && magic[0] == 0x1f && magic[1] == 0x8b) {
        close(fd);
        int rc = inflate_to_temp(in, path, err);
        if (rc != ETL_OK) etl_input_close(in);
        return rc;
    }
    in->fd = fd;
    in->size = (uint64_t)st.st_size;
    return ETL_OK;
}

int etl_input_read(const etl_input *in, uint64_t offset, void *dst, size_t len)
{
    if (offset > in->size || len > in->size - offset) return ETL_ERR_TRUNCATED;
    unsigned char *p = dst;
    while (len > 0) {
        ssize_t n = pread(in->fd, p, len, (off_t)offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return ETL_ERR_IO;
        }
        if (n == 0) return ETL_ERR_TRUNCATED;
        p += n;
        offset += (uint64_t)n;
        len -= (size_t)n;
    }
    return ETL_OK;
}

const uint8_t *etl_input_view(const etl_input *in, uint64_t offset, size_t len)
{
    if (!in->map || offset > in->size || len > in->size - offset) return NULL;
    struct stat st;  /* a page beyond the end of a file truncated meanwhile would fault: read those instead */
    if (!in->temp && (fstat(in->fd, &st) != 0 || (uint64_t)st.st_size < offset + len)) return NULL;
    return in->map + offset;
}

void etl_input_release(const etl_input *in, uint64_t offset, size_t len)
{
    if (!in->map || offset > in->size || len > in->size - offset) return;
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    /* Whole pages, those shared with a neighbouring buffer included: a dropped page still in use elsewhere is
     * read again from the page cache at its next access (the mapping is private and never written). */
    uint64_t first = offset / page * page, end = (offset + len + page - 1) / page * page;
    if (end > in->size) end = in->size;
    if (first < end) madvise((void *)(in->map + first), (size_t)(end - first), MADV_DONTNEED);
}

void etl_input_close(etl_input *in)
{
    if (in->map) munmap((void *)in->map, (size_t)in->size);
    in->map = NULL;
    if (in->temp) fclose(in->temp);
    else if (in->fd >= 0) close(in->fd);
    in->temp = NULL;
    in->fd = -1;
}
