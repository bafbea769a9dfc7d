/* Compiled manifests in binaries: a PE's WEVT_TEMPLATE resource (or that of its SystemResources\NAME.mun),
 * with display strings from the `.mui` next to it or in a language folder (`en-US/foo.dll.mui` preferred;
 * names matched ignoring case as on Windows) and from the PE's own RT_MESSAGETABLE. */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/manifest_model.h"
#include "schema/pe_resources.h"

#define PE_MAX_BYTES ((size_t)1 << 30)

/* Binaries are mapped, not read: a folder walk touches only the headers and resource tree of each file. */
typedef struct mapped_file { const uint8_t *data; size_t size; } mapped_file;

static int map_file(const char *path, mapped_file *m, etl_error *err)
{
    m->data = NULL;
    m->size = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "not a regular file");
    }
    if ((uint64_t)st.st_size > PE_MAX_BYTES) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_SCHEMA, path, UINT64_MAX, "file larger than %zu MiB refused",
                               PE_MAX_BYTES >> 20);
    }
    if (st.st_size == 0) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_FORMAT, path, 0, "empty file");
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot map");
    m->data = p;
    m->size = (size_t)st.st_size;
    return ETL_OK;
}

static void unmap_file(mapped_file *m)
{
    if (m->data) munmap((void *)m->data, m->size);
    m->data = NULL;
}

/* Message table of a .mui file, if one exists; *buf maps the file. */
static int open_mui(const char *mui_path, mapped_file *buf, etl_pe_image *pe, etl_message_table *table)
{
    struct stat st;
    if (stat(mui_path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    if (map_file(mui_path, buf, NULL) != ETL_OK) return -1;
    const uint8_t *data;
    size_t len;
    if (etl_pe_open(pe, buf->data, buf->size, mui_path, NULL) != ETL_OK ||
        etl_pe_find_resource(pe, NULL, ETL_RT_MESSAGETABLE, &data, &len, NULL) != ETL_OK ||
        etl_message_table_open(table, data, len) != ETL_OK) {
        unmap_file(buf);
        return -1;
    }
    return 0;
}

/* Language folders look like "en-US", "de-DE", "zh-Hans-CN": letters, digits and dashes, with a dash. */
static int is_language_folder(const char *d)
{
    size_t n = strlen(d);
    if (n < 4 || n > 16 || !strchr(d, '-') || d[0] == '-') return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)d[i]) && d[i] != '-') return 0;
    return 1;
}

/* en-US first (any case), then the others alphabetically, so the choice does not depend on readdir order. */
static int language_order(const void *pa, const void *pb)
{
    const char *a = *(const char *const *)pa, *b = *(const char *const *)pb;
    int ea = strcasecmp(a, "en-US") == 0, eb = strcasecmp(b, "en-US") == 0;
    if (ea != eb) return eb - ea;
    return strcmp(a, b);
}

static int ignoring_case(const void *a, const void *b)
{
    return strcasecmp(*(const char *const *)a, *(const char *const *)b);
}

/* One folder's entry names sorted ignoring case: a copy of System32 has ~5000 entries and ~1500 binaries
 * with manifests, so each folder is read once per walk instead of once per binary. */
typedef struct folder_names {
    char **names;
    size_t count;
    int listed;
} folder_names;

static void folder_names_free(folder_names *f)
{
    for (size_t i = 0; i < f->count; i++) free(f->names[i]);
    free(f->names);
    memset(f, 0, sizeof(*f));
}

static void folder_list(folder_names *f, const char *dir)
{
    f->listed = 1;
    DIR *d = opendir(dir);
    if (!d) return;
    size_t cap = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (e->d_name[0] == '.') continue;
        if (f->count == cap) {
            size_t ncap = cap ? 2 * cap : 256;
            char **grown = realloc(f->names, ncap * sizeof(*grown));
            if (!grown) break;
            f->names = grown;
            cap = ncap;
        }
        if (!(f->names[f->count] = strdup(e->d_name))) break;
        f->count++;
    }
    closedir(d);
    if (f->count) qsort(f->names, f->count, sizeof(*f->names), ignoring_case);
}

/* The entry named `file` ignoring case — copies of Windows folders keep Windows' inconsistent case
 * ("ADVAPI32.dll" beside "en-US/advapi32.dll.mui") — with an exact match preferred; NULL when absent. */
static const char *folder_find(const folder_names *f, const char *file)
{
    if (!f->count) return NULL;
    char **hit = bsearch(&file, f->names, f->count, sizeof(*f->names), ignoring_case);
    if (!hit) return NULL;
    char **first = hit, **last = hit;
    while (first > f->names && strcasecmp(first[-1], file) == 0) first--;
    while (last + 1 < f->names + f->count && strcasecmp(last[1], file) == 0) last++;
    for (char **p = first; p <= last; p++)
        if (strcmp(*p, file) == 0) return *p;
    return *first;
}

/* One folder's listing and the listings of its language folders. */
typedef struct folder_cache {
    char dir[4096];
    int valid;
    folder_names here;
    const char **languages;      /* entries of `here` that look like language folders, en-US first */
    size_t language_count;
    folder_names *in_language;   /* listed when first needed */
} folder_cache;

/* A binary's folder, its parent, SystemResources and System32 (for .mun files) are in use at once. */
#define CACHED_FOLDERS 4

struct etl_mui_cache {
    folder_cache folders[CACHED_FOLDERS];
    unsigned next;               /* the slot replaced next */
};

etl_mui_cache *etl_mui_cache_new(void)
{
    return calloc(1, sizeof(etl_mui_cache));
}

static void folder_cache_reset(folder_cache *c)
{
    for (size_t i = 0; i < c->language_count; i++) folder_names_free(&c->in_language[i]);
    free(c->in_language);
    free(c->languages);
    folder_names_free(&c->here);
    c->in_language = NULL;
    c->languages = NULL;
    c->language_count = 0;
    c->valid = 0;
}

void etl_mui_cache_free(etl_mui_cache *c)
{
    if (!c) return;
    for (size_t i = 0; i < CACHED_FOLDERS; i++) folder_cache_reset(&c->folders[i]);
    free(c);
}

static folder_cache *folder_get(etl_mui_cache *cache, const char *dir)
{
    for (size_t i = 0; i < CACHED_FOLDERS; i++)
        if (cache->folders[i].valid && strcmp(cache->folders[i].dir, dir) == 0) return &cache->folders[i];
    folder_cache *c = &cache->folders[cache->next++ % CACHED_FOLDERS];
    folder_cache_reset(c);
    snprintf(c->dir, sizeof(c->dir), "%s", dir);
    c->valid = 1;
    folder_list(&c->here, dir);
    c->languages = malloc((c->here.count ? c->here.count : 1) * sizeof(*c->languages));
    if (!c->languages) return c;
    for (size_t i = 0; i < c->here.count; i++)
        if (is_language_folder(c->here.names[i])) c->languages[c->language_count++] = c->here.names[i];
    qsort(c->languages, c->language_count, sizeof(*c->languages), language_order);
    c->in_language = calloc(c->language_count ? c->language_count : 1, sizeof(*c->in_language));
    if (!c->in_language) c->language_count = 0;
    return c;
}

/* `dir/name` when `name` (ignoring case) is in the listing and holds a message table. */
static int open_listed_mui(const char *dir, const folder_names *f, const char *name, mapped_file *buf,
                           etl_pe_image *pe, etl_message_table *table)
{
    const char *hit = folder_find(f, name);
    char candidate[4096];
    return hit && (size_t)snprintf(candidate, sizeof(candidate), "%s/%s", dir, hit) < sizeof(candidate)
               ? open_mui(candidate, buf, pe, table)
               : -1;
}

/* The .mui of binary `name` in folder `dir`: next to it, else in a language folder (en-US first). Returns -1
 * when there is none, MUI_ENGLISH when it is next to the binary or in en-US, MUI_OTHER_LANGUAGE otherwise. */
enum { MUI_ENGLISH = 0, MUI_OTHER_LANGUAGE = 1 };

static int find_mui(etl_mui_cache *cache, const char *dir, const char *name, mapped_file *buf, etl_pe_image *pe,
                    etl_message_table *table)
{
    char mui_name[1024];
    if ((size_t)snprintf(mui_name, sizeof(mui_name), "%s.mui", name) >= sizeof(mui_name)) return -1;
    folder_cache *c = folder_get(cache, dir);
    if (open_listed_mui(dir, &c->here, mui_name, buf, pe, table) == 0) return MUI_ENGLISH;
    for (size_t i = 0; i < c->language_count; i++) {
        char langdir[4096];
        if ((size_t)snprintf(langdir, sizeof(langdir), "%s/%s", dir, c->languages[i]) >= sizeof(langdir)) continue;
        if (!c->in_language[i].listed) folder_list(&c->in_language[i], langdir);
        if (open_listed_mui(langdir, &c->in_language[i], mui_name, buf, pe, table) == 0)
            return strcasecmp(c->languages[i], "en-US") == 0 ? MUI_ENGLISH : MUI_OTHER_LANGUAGE;
    }
    return -1;
}

/* `dir`'s parent folder into out ("." → ".."). */
static int parent_of(const char *dir, char *out, size_t size)
{
    const char *slash = strrchr(dir, '/');
    int n = !slash ? snprintf(out, size, "%s/..", dir)
          : slash == dir ? snprintf(out, size, "/")
                         : snprintf(out, size, "%.*s", (int)(slash - dir), dir);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

/* `<parent of dir>/<folder>/<file>` with folder and file matched ignoring case, if it exists. */
static int find_beside(etl_mui_cache *cache, const char *dir, const char *folder, const char *file, char *out,
                       size_t size)
{
    char parent[4096], sub[4096];
    if (parent_of(dir, parent, sizeof(parent)) != 0) return -1;
    const char *hit = folder_find(&folder_get(cache, parent)->here, folder);
    if (!hit || (size_t)snprintf(sub, sizeof(sub), "%s/%s", parent, hit) >= sizeof(sub)) return -1;
    if (!file) return (size_t)snprintf(out, size, "%s", sub) < size ? 0 : -1;
    hit = folder_find(&folder_get(cache, sub)->here, file);
    return hit && (size_t)snprintf(out, size, "%s/%s", sub, hit) < size ? 0 : -1;
}

int etl_pe_schema_parse_cached(etl_schema_set *set, const char *path, etl_mui_cache *cache, etl_error *err)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], name[1024], mun_path[4096];
    const char *base = slash ? slash + 1 : path;
    int dir_len = slash ? snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path)
                        : snprintf(dir, sizeof(dir), ".");
    if (dir_len < 0 || (size_t)dir_len >= sizeof(dir) ||
        (size_t)snprintf(name, sizeof(name), "%s", base) >= sizeof(name))
        return etl_schema_fail(err, ETL_ERR_ARG, path, UINT64_MAX, "path too long");
    mapped_file file, mun = {NULL, 0}, mui = {NULL, 0};
    int rc = map_file(path, &file, err);
    if (rc != ETL_OK) return rc;
    etl_pe_image pe, mun_pe, mui_pe;
    const uint8_t *crim, *msgs;
    size_t crim_len, msgs_len;
    rc = etl_pe_open(&pe, file.data, file.size, path, err);
    if (rc == ETL_OK) rc = etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &crim, &crim_len, err);
    /* Windows 10 1903+ moved the language-neutral resources of some binaries, WEVT_TEMPLATE included, into
     * %SystemRoot%\SystemResources\<name>.mun (plaso issue #4259, artemis mui.rs): a binary without one
     * takes it from there when that folder was copied too */
    char mun_name[1100];
    int from_mun = 0;
    if (rc == 1 && (size_t)snprintf(mun_name, sizeof(mun_name), "%s.mun", base) < sizeof(mun_name) &&
        find_beside(cache, dir, "SystemResources", mun_name, mun_path, sizeof(mun_path)) == 0 &&
        map_file(mun_path, &mun, NULL) == ETL_OK &&
        etl_pe_open(&mun_pe, mun.data, mun.size, mun_path, NULL) == ETL_OK) {
        int r = etl_pe_find_resource(&mun_pe, "WEVT_TEMPLATE", 0, &crim, &crim_len, err);
        if (r != 1) rc = r;
        from_mun = r == ETL_OK;
    }
    if (rc == ETL_OK) {
        /* Windows loads localizable resources from the .mui and falls back to the language-neutral binary
         * (MS Learn, "MUI resource management"): an English .mui comes first, the binary's own table fills
         * the ids it lacks; a .mui in another language only stands behind (or in for) the binary's table. */
        etl_message_table own, from_mui;
        const etl_message_table *table = NULL;
        int have_own = (etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &msgs, &msgs_len, NULL) == ETL_OK ||
                        (from_mun && etl_pe_find_resource(&mun_pe, NULL, ETL_RT_MESSAGETABLE, &msgs, &msgs_len,
                                                          NULL) == ETL_OK)) &&
                       etl_message_table_open(&own, msgs, msgs_len) == ETL_OK;
        /* a .mun's strings are those of the binary it stands for: System32\<lang>\<name>.mui */
        size_t n = strlen(name);
        int is_mun = n > 4 && strcasecmp(name + n - 4, ".mun") == 0;
        if (is_mun) name[n - 4] = '\0';
        int mui_kind = find_mui(cache, dir, name, &mui, &mui_pe, &from_mui);
        char system32[4096];
        if (mui_kind < 0 && is_mun && find_beside(cache, dir, "System32", NULL, system32, sizeof(system32)) == 0)
            mui_kind = find_mui(cache, system32, name, &mui, &mui_pe, &from_mui);
        if (mui_kind == MUI_ENGLISH || (mui_kind == MUI_OTHER_LANGUAGE && !have_own)) {
            table = &from_mui;
            if (have_own) from_mui.fallback = &own;
        } else if (have_own) {
            table = &own;
            if (mui_kind == MUI_OTHER_LANGUAGE) own.fallback = &from_mui;
        }
        rc = etl_wevt_parse(set, crim, crim_len, table, from_mun ? mun_path : path, err);
    }
    unmap_file(&mui);
    unmap_file(&mun);
    unmap_file(&file);
    return rc;
}

int etl_pe_schema_parse(etl_schema_set *set, const char *path, etl_error *err)
{
    etl_mui_cache *cache = etl_mui_cache_new();
    if (!cache) return etl_schema_fail(err, ETL_ERR_NOMEM, path, UINT64_MAX, "out of memory");
    int rc = etl_pe_schema_parse_cached(set, path, cache, err);
    etl_mui_cache_free(cache);
    return rc;
}
