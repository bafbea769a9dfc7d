/* PDB reader for WPP: MSF 7.00 container → stream directory → DBI stream (3) module list → module symbol
 * streams → S_ANNOTATION records whose first string is "TMF:". Layouts as LLVM's PDB documentation
 * describes them (MSF superblock, DBI header and ModInfo, CodeView symbol records). Only what the
 * annotations need is read; every size, count and block number is checked against the file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/manifest_model.h"
#include "schema/wpp/pdb.h"
#include "util/le.h"
#include "util/textbuf.h"

static const char msf_magic[32] = "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0";

enum {
    SUPERBLOCK_SIZE = 56,
    DBI_HEADER_SIZE = 64,
    TPI_STREAM = 2,
    DBI_STREAM = 3,
    MODINFO_FIXED = 64,            /* ModInfo up to ModuleName */
    MODINFO_SYM_STREAM = 34,       /* u16 ModuleSymStream */
    MODINFO_SYM_BYTES = 36,        /* u32 SymByteSize */
    S_END = 0x0006,
    S_LPROC32 = 0x110F, S_GPROC32 = 0x1110, S_LPROC32_ID = 0x1146, S_GPROC32_ID = 0x1147,
    S_LPROC32_DPC = 0x1155, S_LPROC32_DPC_ID = 0x1156,
    S_ANNOTATION = 0x1019,
    PROC_NAME_OFFSET = 35          /* record data: Parent End Next CodeSize DbgStart DbgEnd Type Offset Seg Flags Name */
};

#define MAX_STREAMS 1000000u
#define MAX_DIRECTORY_BYTES (64u << 20)
#define MAX_STREAM_BYTES (512u << 20)
#define MAX_FILE_BYTES ((uint64_t)4 << 30)

typedef struct pdb_file {
    const uint8_t *mem;     /* the whole file in memory, or NULL: read with pread from fd */
    int fd;
    uint64_t size;
    uint32_t block_size, block_count;
    uint32_t stream_count;
    const uint8_t *directory;   /* sizes, then block lists */
    uint8_t *directory_owned;
    size_t directory_size;
    uint32_t *first_block;      /* per stream: index of its first block number in the directory's u32 list */
    const char *origin;
    etl_error *err;
} pdb_file;

static int fail(pdb_file *f, uint64_t offset, const char *why)
{
    return etl_schema_fail(f->err, ETL_ERR_FORMAT, f->origin, offset, "%s", why);
}

static int read_at(pdb_file *f, uint64_t offset, void *buf, size_t n)
{
    if (offset > f->size || n > f->size - offset) return -1;
    if (f->mem) {
        memcpy(buf, f->mem + offset, n);
        return 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(f->fd, (char *)buf + done, n - done, (off_t)(offset + done));
        if (r <= 0) return -1;
        done += (size_t)r;
    }
    return 0;
}

static uint32_t stream_size(const pdb_file *f, uint32_t stream)
{
    uint32_t s = etl_le32(f->directory + 4 + 4 * (size_t)stream);
    return s == 0xFFFFFFFFu ? 0 : s;
}

/* Reads a whole stream (up to `limit` bytes of it) into a new buffer. */
static int read_stream(pdb_file *f, uint32_t stream, size_t limit, uint8_t **out, size_t *out_size)
{
    *out = NULL;
    *out_size = 0;
    if (stream >= f->stream_count) return fail(f, 0, "stream number beyond the stream directory");
    size_t size = stream_size(f, stream);
    if (size > limit) size = limit;
    if (size > MAX_STREAM_BYTES) return fail(f, 0, "stream larger than 512 MiB");
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf) return ETL_ERR_NOMEM;
    const uint8_t *blocks = f->directory + 4 * (size_t)f->first_block[stream];
    for (size_t done = 0, i = 0; done < size; i++) {
        uint32_t block = etl_le32(blocks + 4 * i);
        size_t n = size - done < f->block_size ? size - done : f->block_size;
        if (block >= f->block_count || read_at(f, (uint64_t)block * f->block_size, buf + done, n) != 0) {
            free(buf);
            return fail(f, (uint64_t)block * f->block_size, "stream block outside the file");
        }
        done += n;
    }
    *out = buf;
    *out_size = size;
    return ETL_OK;
}

static int open_msf(pdb_file *f)
{
    uint8_t sb[SUPERBLOCK_SIZE];
    if (read_at(f, 0, sb, sizeof sb) != 0 || memcmp(sb, msf_magic, sizeof msf_magic) != 0)
        return fail(f, 0, "not a PDB (no MSF 7.00 superblock)");
    f->block_size = etl_le32(sb + 32);
    f->block_count = etl_le32(sb + 40);
    uint32_t dir_bytes = etl_le32(sb + 44), map_block = etl_le32(sb + 52);
    if (f->block_size != 512 && f->block_size != 1024 && f->block_size != 2048 && f->block_size != 4096 &&
        f->block_size != 8192 && f->block_size != 16384 && f->block_size != 32768)
        return fail(f, 32, "MSF block size is not a power of two from 512 to 32768");
    if ((uint64_t)f->block_count * f->block_size > f->size)
        f->block_count = (uint32_t)(f->size / f->block_size); /* a truncated file: blocks past its end are errors */
    if (dir_bytes < 4 || dir_bytes > MAX_DIRECTORY_BYTES) return fail(f, 44, "stream directory size out of bounds");
    if (map_block >= f->block_count) return fail(f, 52, "block map address outside the file");
    size_t dir_blocks = (dir_bytes + f->block_size - 1) / f->block_size;
    if (dir_blocks * 4 > f->block_size) return fail(f, 44, "stream directory needs more than one block map block");
    uint8_t *map = malloc(dir_blocks * 4);
    f->directory_owned = malloc(dir_bytes);
    if (!map || !f->directory_owned) {
        free(map);
        return ETL_ERR_NOMEM;
    }
    int rc = ETL_OK;
    if (read_at(f, (uint64_t)map_block * f->block_size, map, dir_blocks * 4) != 0)
        rc = fail(f, (uint64_t)map_block * f->block_size, "block map outside the file");
    for (size_t i = 0, done = 0; rc == ETL_OK && i < dir_blocks; i++) {
        uint32_t block = etl_le32(map + 4 * i);
        size_t n = dir_bytes - done < f->block_size ? dir_bytes - done : f->block_size;
        if (block >= f->block_count || read_at(f, (uint64_t)block * f->block_size, f->directory_owned + done, n) != 0)
            rc = fail(f, (uint64_t)map_block * f->block_size + 4 * i, "stream directory block outside the file");
        done += n;
    }
    free(map);
    if (rc != ETL_OK) return rc;
    f->directory = f->directory_owned;
    f->directory_size = dir_bytes;
    f->stream_count = etl_le32(f->directory);
    if (f->stream_count > MAX_STREAMS || 4 + 4 * (size_t)f->stream_count > dir_bytes)
        return fail(f, 0, "stream count does not fit the stream directory");
    f->first_block = malloc((f->stream_count ? f->stream_count : 1) * sizeof *f->first_block);
    if (!f->first_block) return ETL_ERR_NOMEM;
    size_t next = 1 + f->stream_count;   /* u32 index of the first block list */
    for (uint32_t s = 0; s < f->stream_count; s++) {
        size_t blocks = (stream_size(f, s) + (size_t)f->block_size - 1) / f->block_size;
        if (blocks > (dir_bytes / 4) - next) return fail(f, 0, "stream block lists run past the stream directory");
        f->first_block[s] = (uint32_t)next;
        next += blocks;
    }
    return ETL_OK;
}

static int has_func(const char *s, size_t n)
{
    for (size_t i = 0; i + 5 <= n; i++)
        if (memcmp(s + i, "FUNC=", 5) == 0) return 1;
    return 0;
}

/* "TMC:" annotation (WPP_DEFINE_CONTROL_GUID): control GUID, control name, then one string per
 * WPP_DEFINE_BIT flag name. */
static int take_control(wpp_store *store, const uint8_t *p, size_t n, size_t pos, unsigned count, const char *origin,
                        etl_tmf_load_stats *stats, etl_error *first_err, int *failed)
{
    const char *strings[2 + WPP_MAX_CONTROL_FLAGS];
    unsigned k = 0;
    for (unsigned i = 1; i < count && pos < n && k < 2 + WPP_MAX_CONTROL_FLAGS; i++) {
        const uint8_t *nul = memchr(p + pos, 0, n - pos);
        if (!nul) break;
        strings[k++] = (const char *)p + pos;
        pos = (size_t)(nul - p) + 1;
    }
    etl_guid guid;
    if (k < 2 || etl_guid_parse(strings[0], &guid) != 0) {
        stats->refused++;
        if (!*failed) {
            snprintf(first_err->message, sizeof first_err->message, "%.400s: \"TMC:\" annotation without a control GUID and name",
                     origin);
            *failed = 1;
        }
        return ETL_OK;
    }
    int rc = wpp_store_add_control(store, &guid, strings[1], strings + 2, k - 2);
    if (rc == ETL_ERR_NOMEM) return rc;
    if (rc == ETL_OK) stats->controls++;
    return ETL_OK;
}

/* One "TMF:" annotation → TMF text → the store; "TMC:" → a control GUID. */
static int take_annotation(wpp_store *store, const uint8_t *p, size_t n, const char *function, const char *origin,
                           etl_textbuf *text, etl_tmf_load_stats *stats, etl_error *first_err, int *failed)
{
    if (n < 8) return ETL_OK;
    unsigned count = etl_le16(p + 6);
    size_t pos = 8;
    etl_textbuf_reset(text);
    for (unsigned i = 0; i < count && pos < n; i++) {
        const uint8_t *nul = memchr(p + pos, 0, n - pos);
        size_t len = nul ? (size_t)(nul - (p + pos)) : n - pos;
        const char *s = (const char *)p + pos;
        pos += len + 1;
        if (i == 0) {
            if (len == 4 && memcmp(s, "TMC:", 4) == 0)
                return take_control(store, p, n, pos, count, origin, stats, first_err, failed);
            if (len != 4 || memcmp(s, "TMF:", 4) != 0) return ETL_OK;
            continue;
        }
        etl_textbuf_append(text, s, len);
        /* tracepdb adds the enclosing function to the statement's trailer */
        if (len >= 6 && memcmp(s, "#typev", 6) == 0 && *function && !has_func(s, len)) {
            etl_textbuf_puts(text, " FUNC=");
            etl_textbuf_puts(text, function);
        }
        etl_textbuf_putc(text, '\n');
    }
    if (text->failed) return ETL_ERR_NOMEM;
    etl_error e;
    memset(&e, 0, sizeof e);
    int rc = wpp_store_parse(store, text->data ? text->data : "", text->length, origin, stats, &e);
    if (rc == ETL_ERR_NOMEM) return rc;
    if (rc != ETL_OK && !*failed) {
        *first_err = e;
        *failed = 1;
    }
    return ETL_OK;
}

static int scan_module(pdb_file *f, wpp_store *store, const uint8_t *sym, size_t size, const char *module,
                       etl_textbuf *text, etl_tmf_load_stats *stats, etl_error *first_err, int *failed, unsigned *found)
{
    char function[512] = "";
    size_t function_end = 0;
    for (size_t off = 4; off + 4 <= size;) {   /* after the CV_SIGNATURE_C13 u32 */
        size_t len = etl_le16(sym + off);
        uint16_t kind = etl_le16(sym + off + 2);
        if (len < 2 || off + 2 + len > size) break; /* a truncated stream: what was read stays */
        const uint8_t *data = sym + off + 4;
        size_t data_len = len - 2;
        if (off >= function_end) function[0] = '\0';
        switch (kind) {
        case S_GPROC32: case S_LPROC32: case S_GPROC32_ID: case S_LPROC32_ID: case S_LPROC32_DPC:
        case S_LPROC32_DPC_ID:
            if (data_len > PROC_NAME_OFFSET) {
                function_end = etl_le32(data + 4);
                size_t n = strnlen((const char *)data + PROC_NAME_OFFSET, data_len - PROC_NAME_OFFSET);
                if (n >= sizeof function) n = sizeof function - 1;
                memcpy(function, data + PROC_NAME_OFFSET, n);
                function[n] = '\0';
                if (function_end <= off) function_end = size; /* no End: until the next procedure */
            }
            break;
        case S_ANNOTATION: {
            char origin[1024];
            snprintf(origin, sizeof origin, "%s: module %s, annotation at 0x%zx", f->origin, module, off);
            unsigned before = stats->statements;
            int rc = take_annotation(store, data, data_len, function, origin, text, stats, first_err, failed);
            if (rc != ETL_OK) return rc;
            if (stats->statements != before) (*found)++;
            break;
        }
        default: break;
        }
        off += 2 + len;
    }
    return ETL_OK;
}

static int load_pdb(pdb_file *f, wpp_store *store, etl_tmf_load_stats *stats)
{
    etl_tmf_load_stats scratch;
    if (!stats) {
        memset(&scratch, 0, sizeof scratch);
        stats = &scratch;
    }
    int rc = open_msf(f);
    if (rc != ETL_OK) return rc;
    wpp_store_begin_origin(store); /* its statements are those its TMC: control GUIDs find */
    uint8_t *dbi;
    size_t dbi_size;
    if (f->stream_count <= DBI_STREAM) return fail(f, 0, "PDB without a DBI stream");
    if ((rc = read_stream(f, DBI_STREAM, MAX_STREAM_BYTES, &dbi, &dbi_size)) != ETL_OK) return rc;
    if (dbi_size < DBI_HEADER_SIZE || etl_le32(dbi) != 0xFFFFFFFFu) {
        free(dbi);
        return fail(f, 0, "DBI stream without its header");
    }
    size_t mod_end = DBI_HEADER_SIZE + (size_t)etl_le32(dbi + 24);
    if (mod_end > dbi_size || mod_end < DBI_HEADER_SIZE) {
        free(dbi);
        return fail(f, 0, "DBI module list larger than its stream");
    }
    etl_textbuf text = {0};
    etl_error first_err;
    int failed = 0;
    unsigned found = 0;
    size_t first_statement = wpp_store_statement_count(store);
    for (size_t off = DBI_HEADER_SIZE; rc == ETL_OK && off + MODINFO_FIXED < mod_end;) {
        const uint8_t *m = dbi + off;
        uint16_t stream = etl_le16(m + MODINFO_SYM_STREAM);
        uint32_t sym_bytes = etl_le32(m + MODINFO_SYM_BYTES);
        const char *name = (const char *)m + MODINFO_FIXED;
        size_t name_len = strnlen(name, mod_end - off - MODINFO_FIXED);
        size_t obj_at = off + MODINFO_FIXED + name_len + 1;
        size_t obj_len = obj_at < mod_end ? strnlen((const char *)dbi + obj_at, mod_end - obj_at) : 0;
        size_t next = (obj_at + obj_len + 1 + 3) & ~(size_t)3;
        char module[256];
        snprintf(module, sizeof module, "%.*s", (int)(name_len < 255 ? name_len : 255), name);
        if (stream != 0xFFFF && sym_bytes >= 4) {
            uint8_t *sym;
            size_t sym_size;
            rc = read_stream(f, stream, sym_bytes, &sym, &sym_size);
            if (rc == ETL_OK) {
                rc = scan_module(f, store, sym, sym_size, module, &text, stats, &first_err, &failed, &found);
                free(sym);
            }
        }
        off = next;
    }
    etl_textbuf_free(&text);
    free(dbi);
    if (rc == ETL_OK && found && wpp_pdb_enums_missing(store, first_statement) && f->stream_count > TPI_STREAM) {
        uint8_t *tpi;
        size_t tpi_size;
        if ((rc = read_stream(f, TPI_STREAM, MAX_STREAM_BYTES, &tpi, &tpi_size)) == ETL_OK) {
            rc = wpp_pdb_take_enums(store, first_statement, tpi, tpi_size, stats);
            free(tpi);
        }
    }
    if (rc != ETL_OK) return rc;
    if (found) stats->files++;
    if (failed) {
        if (f->err) *f->err = first_err;
        return ETL_ERR_FORMAT;
    }
    if (!found) return etl_schema_fail(f->err, ETL_ERR_SCHEMA, f->origin, UINT64_MAX, "no WPP \"TMF:\" annotation in this PDB");
    return ETL_OK;
}

static void close_pdb(pdb_file *f)
{
    free(f->directory_owned);
    free(f->first_block);
}

int wpp_pdb_load_memory(wpp_store *store, const uint8_t *data, size_t size, const char *origin, etl_error *err,
                        etl_tmf_load_stats *stats)
{
    pdb_file f;
    memset(&f, 0, sizeof f);
    f.mem = data;
    f.fd = -1;
    f.size = size;
    f.origin = origin;
    f.err = err;
    int rc = load_pdb(&f, store, stats);
    close_pdb(&f);
    return rc;
}

int wpp_pdb_load_file(wpp_store *store, const char *path, etl_error *err, etl_tmf_load_stats *stats)
{
    pdb_file f;
    memset(&f, 0, sizeof f);
    f.origin = path;
    f.err = err;
    f.fd = open(path, O_RDONLY);
    if (f.fd < 0) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open");
    struct stat st;
    if (fstat(f.fd, &st) != 0 || (uint64_t)st.st_size > MAX_FILE_BYTES) {
        close(f.fd);
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot read (or larger than 4 GiB)");
    }
    f.size = (uint64_t)st.st_size;
    int rc = load_pdb(&f, store, stats);
    close_pdb(&f);
    close(f.fd);
    return rc;
}
