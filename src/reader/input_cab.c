/* .cab inputs through libmspack (see input_cab.h). No decompression is done here: libmspack's cab
 * decompressor lists the members and extracts one into a temporary file, which is unlinked at once. */
#include "reader/input_cab.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <mspack.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "reader/diag.h"

/* libmspack's I/O through stdio, as its default does, but without its warnings on stderr (a damaged cabinet
 * is reported once, as one line, by the caller). */
static struct mspack_file *sys_open(struct mspack_system *self, const char *name, int mode)
{
    (void)self;
    static const char *const modes[] = {"rb", "wb", "r+b", "ab"};
    return mode >= 0 && mode <= 3 ? (struct mspack_file *)fopen(name, modes[mode]) : NULL;
}
static void sys_close(struct mspack_file *f) { fclose((FILE *)f); }
static int sys_read(struct mspack_file *f, void *buf, int bytes)
{
    size_t n = bytes > 0 ? fread(buf, 1, (size_t)bytes, (FILE *)f) : 0;
    return ferror((FILE *)f) ? -1 : (int)n;
}
static int sys_write(struct mspack_file *f, void *buf, int bytes)
{
    size_t n = bytes > 0 ? fwrite(buf, 1, (size_t)bytes, (FILE *)f) : 0;
    return n == (size_t)(bytes > 0 ? bytes : 0) ? (int)n : -1;
}
static int sys_seek(struct mspack_file *f, off_t offset, int mode)
{
    int whence = mode == MSPACK_SYS_SEEK_START ? SEEK_SET : mode == MSPACK_SYS_SEEK_CUR ? SEEK_CUR : SEEK_END;
    return fseeko((FILE *)f, offset, whence);
}
static off_t sys_tell(struct mspack_file *f) { return ftello((FILE *)f); }
static void sys_message(struct mspack_file *f, const char *format, ...) { (void)f; (void)format; }
static void *sys_alloc(struct mspack_system *self, size_t bytes) { (void)self; return malloc(bytes); }
static void sys_free(void *p) { free(p); }
static void sys_copy(void *src, void *dst, size_t bytes) { memmove(dst, src, bytes); }
static struct mspack_system quiet_system = {sys_open, sys_close, sys_read, sys_write, sys_seek, sys_tell,
                                            sys_message, sys_alloc, sys_free, sys_copy, NULL};

static int is_cabinet(const char *path)
{
    unsigned char magic[4] = {0};
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return 0;  /* never open a FIFO twice */
    int fd = open(path, O_RDONLY);
    if (fd < 0) return 0;
    ssize_t got = pread(fd, magic, 4, 0);
    close(fd);
    return got == 4 && memcmp(magic, "MSCF", 4) == 0;
}

static int is_etl_name(const char *name)
{
    size_t n = strlen(name);
    return n >= 4 && strcasecmp(name + n - 4, ".etl") == 0;
}

static int push(etl_cab_paths *p, char *path)
{
    if (!path) return -1;
    char **grown = realloc(p->paths, (p->count + 1) * sizeof *grown);
    if (!grown) {
        free(path);
        return -1;
    }
    p->paths = grown;
    p->paths[p->count++] = path;
    return 0;
}

static const char *mspack_error(struct mscab_decompressor *cabd)
{
    switch (cabd->last_error(cabd)) {
    case MSPACK_ERR_OPEN: return "cannot open";
    case MSPACK_ERR_READ: return "read error";
    case MSPACK_ERR_WRITE: return "cannot write the temporary file";
    case MSPACK_ERR_SEEK: return "seek error";
    case MSPACK_ERR_NOMEMORY: return "out of memory";
    case MSPACK_ERR_SIGNATURE: return "not a cabinet (bad signature)";
    case MSPACK_ERR_DATAFORMAT: return "damaged cabinet (bad data format)";
    case MSPACK_ERR_CHECKSUM: return "damaged cabinet (checksum mismatch)";
    case MSPACK_ERR_CRUNCH: return "compression error";
    case MSPACK_ERR_DECRUNCH: return "damaged cabinet (decompression failed)";
    default: return "cannot read the cabinet";
    }
}

/* Appends "CAB::MEMBER" for every .etl member of one cabinet. */
static int expand_one(const char *cab_path, etl_cab_paths *out, etl_error *err)
{
    struct mscab_decompressor *cabd = mspack_create_cab_decompressor(&quiet_system);
    if (!cabd) return etl_error_set(err, ETL_ERR_NOMEM, cab_path, UINT64_MAX, "out of memory");
    struct mscabd_cabinet *cab = cabd->open(cabd, (char *)cab_path);
    if (!cab) {
        int rc = etl_error_set(err, ETL_ERR_FORMAT, cab_path, UINT64_MAX, "%s", mspack_error(cabd));
        mspack_destroy_cab_decompressor(cabd);
        return rc;
    }
    size_t members = 0;
    unsigned long long total = 0;
    int rc = ETL_OK;
    for (struct mscabd_file *f = cab->files; f && rc == ETL_OK; f = f->next) {
        if (!f->filename || !is_etl_name(f->filename)) continue;
        total += f->length;
        if (++members > ETL_CAB_MAX_MEMBERS || total > ETL_CAB_MAX_TOTAL_BYTES) {
            rc = etl_error_set(err, ETL_ERR_FORMAT, cab_path, UINT64_MAX,
                               "cabinet holds more than %u .etl members or more than %llu GiB of them: refused",
                               ETL_CAB_MAX_MEMBERS, ETL_CAB_MAX_TOTAL_BYTES >> 30);
            break;
        }
        size_t len = strlen(cab_path) + strlen(ETL_CAB_SEPARATOR) + strlen(f->filename) + 1;
        char *name = malloc(len);
        if (name) snprintf(name, len, "%s%s%s", cab_path, ETL_CAB_SEPARATOR, f->filename);
        if (push(out, name) != 0) rc = etl_error_set(err, ETL_ERR_NOMEM, cab_path, UINT64_MAX, "out of memory");
    }
    if (rc == ETL_OK && members == 0)
        rc = etl_error_set(err, ETL_ERR_EMPTY, cab_path, UINT64_MAX, "cabinet holds no .etl file");
    cabd->close(cabd, cab);
    mspack_destroy_cab_decompressor(cabd);
    return rc;
}

int etl_cab_expand(const char *const *paths, size_t count, etl_cab_paths *out, etl_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < count; i++) {
        int rc = ETL_OK;
        if (is_cabinet(paths[i])) rc = expand_one(paths[i], out, err);
        else if (push(out, strdup(paths[i])) != 0)
            rc = etl_error_set(err, ETL_ERR_NOMEM, paths[i], UINT64_MAX, "out of memory");
        if (rc != ETL_OK) {
            etl_cab_paths_free(out);
            return rc;
        }
    }
    return ETL_OK;
}

void etl_cab_paths_free(etl_cab_paths *p)
{
    for (size_t i = 0; i < p->count; i++) free(p->paths[i]);
    free(p->paths);
    memset(p, 0, sizeof *p);
}

/* Splits "CAB::MEMBER" at the last separator (member names cannot hold ':'); the cabinet part must be one. */
static char *cabinet_part(const char *path, const char **member)
{
    const char *sep = NULL;
    for (const char *s = strstr(path, ETL_CAB_SEPARATOR); s; s = strstr(s + 1, ETL_CAB_SEPARATOR)) sep = s;
    if (!sep || sep == path || sep[2] == '\0' || strchr(sep + 2, ':')) return NULL;
    char *cab = strndup(path, (size_t)(sep - path));
    if (cab && !is_cabinet(cab)) {
        free(cab);
        return NULL;
    }
    *member = sep + 2;
    return cab;
}

int etl_cab_is_member_path(const char *path)
{
    if (!strstr(path, ETL_CAB_SEPARATOR)) return 0;
    const char *member;
    char *cab = cabinet_part(path, &member);
    free(cab);
    return cab != NULL;
}

int etl_cab_input_open(etl_input *in, const char *path, etl_error *err)
{
    memset(in, 0, sizeof *in);
    in->fd = -1;
    const char *member;
    char *cab_path = cabinet_part(path, &member);
    if (!cab_path) return etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "not a cabinet member");
    struct mscab_decompressor *cabd = mspack_create_cab_decompressor(&quiet_system);
    struct mscabd_cabinet *cab = cabd ? cabd->open(cabd, cab_path) : NULL;
    struct mscabd_file *file = NULL;
    for (struct mscabd_file *f = cab ? cab->files : NULL; f && !file; f = f->next)
        if (f->filename && strcmp(f->filename, member) == 0) file = f;
    int rc = ETL_OK;
    if (!cabd) rc = etl_error_set(err, ETL_ERR_NOMEM, path, UINT64_MAX, "out of memory");
    else if (!cab) rc = etl_error_set(err, ETL_ERR_FORMAT, path, UINT64_MAX, "%s", mspack_error(cabd));
    else if (!file) rc = etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "no such member in the cabinet");
    if (rc == ETL_OK) {
        /* libmspack writes to a path: a private temporary file, unlinked as soon as it is written */
        const char *dir = getenv("TMPDIR");
        char tmpl[4096];
        snprintf(tmpl, sizeof tmpl, "%s/etlconv-cab-XXXXXX", dir && dir[0] ? dir : "/tmp");
        int fd = mkstemp(tmpl);
        if (fd < 0) {
            rc = etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "cannot create temporary file: %s", strerror(errno));
        } else {
            int x = cabd->extract(cabd, file, tmpl);
            unlink(tmpl);
            struct stat st;
            memset(&st, 0, sizeof st);
            if (x != MSPACK_ERR_OK) {
                rc = etl_error_set(err, ETL_ERR_DECOMPRESS, path, UINT64_MAX, "cannot extract: %s", mspack_error(cabd));
                close(fd);
            } else if (fstat(fd, &st) != 0 || (uint64_t)st.st_size != file->length) {
                rc = etl_error_set(err, ETL_ERR_IO, path, UINT64_MAX, "extracted %lld bytes, the cabinet says %u",
                                   (long long)st.st_size, file->length);
                close(fd);
            } else {
                in->fd = fd;
                in->size = (uint64_t)st.st_size;
            }
        }
    }
    if (cab) cabd->close(cabd, cab);
    if (cabd) mspack_destroy_cab_decompressor(cabd);
    free(cab_path);
    return rc;
}
