/* Deferred schema files (see deferred_files.h): the list the registry consults, and the scan that finds which
 * GUIDs a manifest names. A handful of files and a few dozen GUIDs, so plain arrays; the per-lookup cost when
 * nothing matches is one byte test, or one GUID compare for the last GUID missed. */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "schema/deferred_files.h"

typedef struct deferred_file {
    char *path;
    etl_deferred_loader loader;
    int done;
} deferred_file;

typedef struct deferred_guid {
    etl_guid guid;
    size_t file;
} deferred_guid;

struct etl_deferred_files {
    deferred_file *files;
    size_t file_count;
    deferred_guid *guids;
    size_t guid_count;
    size_t pending;             /* files not loaded yet */
    unsigned char named[256];   /* low byte of data1 of some pending file's GUID */
    etl_guid last_miss;         /* lookups come in runs of one provider */
    int have_last_miss;
};

int etl_deferred_add(etl_deferred_files **set, const char *path, const etl_guid *guids, size_t guid_count,
                     etl_deferred_loader loader)
{
    if (!set || !path || !loader || (guid_count && !guids)) return ETL_ERR_ARG;
    etl_deferred_files *d = *set;
    if (!d && !(d = *set = calloc(1, sizeof *d))) return ETL_ERR_NOMEM;
    deferred_file *files = realloc(d->files, (d->file_count + 1) * sizeof *files);
    if (!files) return ETL_ERR_NOMEM;
    d->files = files;
    deferred_guid *g = realloc(d->guids, (d->guid_count + guid_count + 1) * sizeof *g);
    if (!g) return ETL_ERR_NOMEM;
    d->guids = g;
    char *copy = strdup(path);
    if (!copy) return ETL_ERR_NOMEM;
    d->files[d->file_count] = (deferred_file){copy, loader, 0};
    for (size_t i = 0; i < guid_count; i++) {
        d->guids[d->guid_count++] = (deferred_guid){guids[i], d->file_count};
        d->named[guids[i].data1 & 0xFF] = 1;
    }
    d->file_count++;
    d->pending++;
    d->have_last_miss = 0;
    return ETL_OK;
}

static void load_file(etl_deferred_files *d, etl_schema_registry *registry, size_t file)
{
    deferred_file *f = &d->files[file];
    if (f->done) return;
    f->done = 1;            /* before loading: the loader's own lookups must not come back here */
    d->pending--;
    f->loader(registry, f->path);
}

void etl_deferred_load(etl_deferred_files *d, etl_schema_registry *registry, const etl_guid *guid)
{
    if (!d || !d->pending) return;
    if (!guid) {
        for (size_t i = 0; i < d->file_count; i++) load_file(d, registry, i);
        return;
    }
    if (!d->named[guid->data1 & 0xFF]) return;
    if (d->have_last_miss && etl_guid_equal(&d->last_miss, guid)) return;
    int found = 0;
    for (size_t i = 0; i < d->guid_count; i++)
        if (!d->files[d->guids[i].file].done && etl_guid_equal(&d->guids[i].guid, guid)) {
            found = 1;
            load_file(d, registry, d->guids[i].file);
        }
    if (!found) {
        d->last_miss = *guid;
        d->have_last_miss = 1;
    }
}

void etl_deferred_free(etl_deferred_files *d)
{
    if (!d) return;
    for (size_t i = 0; i < d->file_count; i++) free(d->files[i].path);
    free(d->files);
    free(d->guids);
    free(d);
}

/* ---- which GUIDs a manifest names ------------------------------------------------------------------------ */

/* A UTF-16 document (with or without byte order mark) narrowed to one byte per code unit, non-ASCII units
 * as 0x7F, so that scan_ascii reads it too; NULL when the text is not UTF-16 (or out of memory). */
static unsigned char *narrow_utf16(const unsigned char *data, size_t size, size_t *narrowed)
{
    int le = size >= 2 && ((data[0] == 0xFF && data[1] == 0xFE) || (data[0] == '<' && data[1] == 0));
    int be = size >= 2 && ((data[0] == 0xFE && data[1] == 0xFF) || (data[0] == 0 && data[1] == '<'));
    if (!le && !be) return NULL;
    unsigned char *out = malloc(size / 2 + 1);
    if (!out) return NULL;
    for (size_t i = 0; i + 1 < size; i += 2) {
        unsigned lo = data[i + (be ? 1 : 0)], hi = data[i + (be ? 0 : 1)];
        out[i / 2] = hi == 0 && lo < 0x80 ? (unsigned char)lo : 0x7F;
    }
    *narrowed = size / 2;
    return out;
}

static size_t scan_ascii(const unsigned char *data, size_t size, etl_guid *out, size_t max)
{
    size_t n = 0;
    for (const unsigned char *eq = data; (eq = memchr(eq, '=', (size_t)(data + size - eq))) != NULL; eq++) {
        size_t at = (size_t)(eq - data), name_end = at;
        while (name_end && (data[name_end - 1] == ' ' || data[name_end - 1] == '\t' || data[name_end - 1] == '\r' ||
                            data[name_end - 1] == '\n'))
            name_end--;
        if (name_end < 4 || strncasecmp((const char *)data + name_end - 4, "guid", 4) != 0) continue;
        size_t j = at + 1;
        while (j < size && (data[j] == ' ' || data[j] == '\t' || data[j] == '\r' || data[j] == '\n')) j++;
        if (j >= size || (data[j] != '"' && data[j] != '\'')) continue;
        unsigned char quote = data[j++];
        char text[40];
        size_t k = 0;
        while (j + k < size && data[j + k] != quote && k < sizeof(text) - 1) text[k] = (char)data[j + k], k++;
        text[k] = '\0';
        etl_guid g;
        if (etl_guid_parse(text, &g) != 0) continue;
        size_t seen = 0;
        while (seen < n && !etl_guid_equal(&out[seen], &g)) seen++;
        if (seen == n) {
            if (n == max) return 0;   /* more than we keep: the caller loads the file now instead */
            out[n++] = g;
        }
    }
    return n;
}

size_t etl_deferred_scan_guids(const unsigned char *data, size_t size, etl_guid *out, size_t max)
{
    size_t narrowed_size = 0;
    unsigned char *narrowed = narrow_utf16(data, size, &narrowed_size);
    size_t n = narrowed ? scan_ascii(narrowed, narrowed_size, out, max) : scan_ascii(data, size, out, max);
    free(narrowed);
    return n;
}
