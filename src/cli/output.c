/* Atomic, optionally gzip- or zstd-compressed output files (see output.h). A file is written unnamed (O_TMPFILE: even
 * SIGKILL leaves nothing behind) or, where the filesystem cannot, under a hidden temporary name; it gets its
 * name only when every output of the run is complete (output_publish.c). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_TMPFILE */
#endif
#include "output.h"
#include "output_internal.h"
#include "suffix.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pipeline/compress.h"

#define MAX_OPEN_OUTPUTS 8

/* Temporary names to remove if a signal ends the run; fixed array so the handler needs no locking. */
static char *volatile open_temps[MAX_OPEN_OUTPUTS];

void etlconv_output_track(const char *temp, int add)
{
    for (int i = 0; i < MAX_OPEN_OUTPUTS; i++) {
        if (add && !open_temps[i]) {
            open_temps[i] = (char *)temp;
            return;
        }
        if (!add && open_temps[i] == temp) {
            open_temps[i] = NULL;
            return;
        }
    }
}

void etlconv_output_cleanup_on_signal(void)
{
    for (int i = 0; i < MAX_OPEN_OUTPUTS; i++)
        if (open_temps[i]) unlink(open_temps[i]);
}

/* Reports the first write failure at once (the run stops there) and remembers it. */
static int write_failed(etlconv_output *o, int err)
{
    if (!o->write_failed)
        fprintf(stderr, "etlconv: %s: write failed: %s\n", o->path ? o->path : "stdout",
                err ? strerror(err) : "I/O error");
    o->write_failed = 1;
    return -1;
}

static int file_write(void *ctx, const void *data, size_t length)
{
    etlconv_output *o = ctx;
    if (fwrite(data, 1, length, o->file) != length) return write_failed(o, errno);
    return 0;
}

static int z_write(void *ctx, const void *data, size_t length)
{
    etlconv_output *o = ctx;
    if (etl_compressor_write(o->z, data, length) != 0) return write_failed(o, errno);
    return 0;
}

static int compress_level, compress_threads;

void etlconv_output_set_compression(int level, int threads)
{
    compress_level = level;
    compress_threads = threads;
}

/* The stream over `fd`: gzip when the name ends in ".gz", zstd for ".zst". */
static int attach_stream(etlconv_output *o, int fd, const char *path)
{
    int gz = etlconv_has_suffix(path, ".gz"), zst = etlconv_has_suffix(path, ".zst");
    if (gz || zst) {
        o->z = etl_compressor_new(zst ? ETL_COMPRESS_ZSTD : ETL_COMPRESS_GZIP, compress_level, compress_threads, fd);
        o->zfd = fd;
        o->sink.write = z_write;
    } else {
        o->file = fdopen(fd, "wb");
        o->sink.write = file_write;
    }
    o->sink.ctx = o;
    return o->z || o->file ? 0 : -1;
}

/* An unnamed file in the folder of `path` (O_TMPFILE), or -1 where the kernel or filesystem has none; named
 * later through /proc/self/fd, so /proc must be there. */
static int open_unnamed(const char *path)
{
#ifdef O_TMPFILE
    if (access("/proc/self/fd", X_OK) != 0) return -1;
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir) return -1;
    int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
    free(dir);
    return fd;
#else
    (void)path;
    return -1;
#endif
}

/* "DIR/.NAME.XXXXXX" beside the target so the final rename is atomic. */
static int open_named_temp(etlconv_output *o, const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    o->temp_path = malloc(strlen(path) + 16);
    if (!o->temp_path) return -1;
    sprintf(o->temp_path, "%.*s.%s.XXXXXX", (int)dir_len, path, path + dir_len);
    int fd = mkstemp(o->temp_path);
    if (fd < 0) return -1;
    etlconv_output_track(o->temp_path, 1);
    mode_t mask = umask(0);  /* mkstemp creates 0600; give the result the usual umask-based mode */
    umask(mask);
    int chmod_rc = fchmod(fd, 0666 & ~mask);
    (void)chmod_rc;  /* not fatal: the file merely stays private */
    return fd;
}

etlconv_output *etlconv_output_open(const char *path, int overwrite)
{
    etlconv_output *o = calloc(1, sizeof *o);
    if (!o) {
        fprintf(stderr, "etlconv: out of memory\n");
        return NULL;
    }
    o->unnamed_fd = -1;
    if (!path || strcmp(path, "-") == 0) {
        o->file = stdout;
        o->sink.write = file_write;
        o->sink.ctx = o;
        return o;
    }
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        /* a device or FIFO (/dev/null, /dev/stdout, a named pipe): written directly, nothing to replace */
        int fd = open(path, O_WRONLY);
        if (fd < 0) {
            fprintf(stderr, "etlconv: %s: %s\n", path, strerror(errno));
            free(o);
            return NULL;
        }
        o->path = strdup(path);
        if (attach_stream(o, fd, path) != 0 || !o->path) {
            fprintf(stderr, "etlconv: %s: %s\n", path, strerror(errno ? errno : ENOMEM));
            close(fd);
            free(o->path);
            free(o);
            return NULL;
        }
        return o;
    }
    if (!overwrite && lstat(path, &st) == 0) {
        fprintf(stderr, "etlconv: %s: already exists (use -y to overwrite)\n", path);
        free(o);
        return NULL;
    }
    o->path = strdup(path);
    if (!o->path) {
        fprintf(stderr, "etlconv: out of memory\n");
        free(o);
        return NULL;
    }
    int fd = open_unnamed(path);
    if (fd >= 0 && (o->unnamed_fd = dup(fd)) < 0) {
        close(fd);
        fd = -1;
    }
    if (fd < 0) fd = open_named_temp(o, path);
    if (fd < 0) {
        fprintf(stderr, "etlconv: %s: cannot create a file in that directory: %s\n", path, strerror(errno));
        etlconv_output_abort(o);
        return NULL;
    }
    o->overwrite = overwrite;
    if (attach_stream(o, fd, path) != 0) {
        fprintf(stderr, "etlconv: %s: %s\n", path, strerror(errno));
        close(fd);
        etlconv_output_abort(o);
        return NULL;
    }
    return o;
}

static int file_write_at(void *ctx, uint64_t offset, const void *data, size_t length)
{
    etlconv_output *o = ctx;
    if (fflush(o->file) != 0) return write_failed(o, errno);
    const char *p = data;
    off_t at = o->base + (off_t)offset;
    while (length > 0) {
        ssize_t n = pwrite(fileno(o->file), p, length, at);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return write_failed(o, n < 0 ? errno : EIO);
        p += n;
        at += n;
        length -= (size_t)n;
    }
    return 0;
}

etlconv_write_at_fn etlconv_output_write_at(etlconv_output *o)
{
    if (o->z || !o->file) return NULL;
    int fd = fileno(o->file);
    struct stat st;
    int flags = fcntl(fd, F_GETFL);
    /* a pipe, terminal or device cannot seek; with O_APPEND (">>") pwrite would append */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || flags < 0 || (flags & O_APPEND)) return NULL;
    if (fflush(o->file) != 0) return NULL;
    o->base = lseek(fd, 0, SEEK_CUR);
    return o->base < 0 ? NULL : file_write_at;
}

const etl_sink *etlconv_output_sink(etlconv_output *o)
{
    return &o->sink;
}

FILE *etlconv_output_stream(etlconv_output *o)
{
    return o->z ? NULL : o->file;
}

void etlconv_output_release(etlconv_output *o)
{
    if (o->temp_path) {
        etlconv_output_track(o->temp_path, 0);
        free(o->temp_path);
    }
    if (o->unnamed_fd >= 0) close(o->unnamed_fd);
    free(o->path);
    free(o);
}

void etlconv_output_abort(etlconv_output *o)
{
    if (!o) return;
    if (o->z) {
        etl_compressor_free(o->z);
        close(o->zfd);
    }
    if (o->file && o->file != stdout) fclose(o->file);
    if (o->temp_path) unlink(o->temp_path);
    etlconv_output_release(o);
}

int etlconv_output_commit(etlconv_output *o)
{
    const char *name = o->path ? o->path : "stdout";
    int rc = o->write_failed ? -2 : 0;  /* -2: already reported */
    int err = 0;
    int to_file = o->temp_path || o->unnamed_fd >= 0;
    if (o->z) {
        if (etl_compressor_finish(o->z) != 0 && rc == 0) rc = -1, err = errno;
        etl_compressor_free(o->z);
        o->z = NULL;
        if (rc == 0 && to_file && fsync(o->zfd) != 0) rc = -1, err = errno;
        if (close(o->zfd) != 0 && rc == 0) rc = -1, err = errno;
    } else if (o->file == stdout) {
        if (fflush(stdout) != 0 || ferror(stdout)) rc = -1, err = errno;
        o->file = NULL;
    } else if (o->file) {
        /* ferror: a write the stream reported to no one (a library writing to the FILE *, e.g. -export) */
        if (fflush(o->file) != 0 || ferror(o->file) || (to_file && fsync(fileno(o->file)) != 0))
            rc = -1, err = errno ? errno : EIO;
        if (fclose(o->file) != 0 && rc == 0) rc = -1, err = errno;
        o->file = NULL;
    }
    if (rc == -1) fprintf(stderr, "etlconv: %s: write failed: %s\n", name, err ? strerror(err) : "I/O error");
    if (rc == 0 && to_file) return etlconv_output_pending(o);  /* named when the whole run is complete */
    if (o->temp_path) unlink(o->temp_path);
    etlconv_output_release(o);
    return rc == 0 ? 0 : -1;
}
