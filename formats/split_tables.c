/* Table registry and bounded file handles of --split (split_tables.h). */
#include "split_tables.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define NAME_MAX_BYTES 150  /* file stems stay well below NAME_MAX (255) with a suffix and extension */

static uint64_t hash_text(const char *s)
{
    uint64_t h = 1469598103934665603ULL;  /* FNV-1a */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static char *copy_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, s, n);
    return c;
}

/* mkdir -p: the folders of a partitioned layout (split/HOST/DAY) need not exist yet. */
static int make_dirs(char *path)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        int rc = mkdir(path, 0777);
        *p = '/';
        if (rc != 0 && errno != EEXIST) return -1;
    }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

int split_tables_init(split_tables *t, const char *dir, const char *extension, unsigned max_open)
{
    memset(t, 0, sizeof *t);
    t->extension = extension;
    t->max_open = max_open ? max_open : SPLIT_DEFAULT_MAX_OPEN;
    t->dir = copy_text(dir);
    t->open = calloc(t->max_open, sizeof *t->open);
    if (!t->dir || !t->open) {
        fprintf(stderr, "etlconv: out of memory\n");
        return -1;
    }
    if (make_dirs(t->dir) != 0) {
        fprintf(stderr, "etlconv: %s: cannot create directory: %s\n", dir, strerror(errno));
        return -1;
    }
    struct stat st;
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "etlconv: %s: not a directory\n", dir);
        return -1;
    }
    return 0;
}

char *split_tables_path(const split_tables *t, const char *name, const char *extension)
{
    size_t n = strlen(t->dir) + 1 + strlen(name) + strlen(extension) + 1;
    char *p = malloc(n);
    if (p) snprintf(p, n, "%s/%s%s", t->dir, name, extension);
    return p;
}

split_table *split_tables_find(split_tables *t, const char *key)
{
    if (!t->slot_count) return NULL;
    for (size_t i = hash_text(key) & (t->slot_count - 1);; i = (i + 1) & (t->slot_count - 1)) {
        size_t k = t->slots[i];
        if (k == SIZE_MAX) return NULL;
        if (strcmp(t->tables[k].key, key) == 0) return &t->tables[k];
    }
}

static int rehash(split_tables *t)
{
    size_t n = t->slot_count ? t->slot_count * 2 : 64;
    size_t *slots = malloc(n * sizeof *slots);
    if (!slots) return -1;
    for (size_t i = 0; i < n; i++) slots[i] = SIZE_MAX;
    for (size_t k = 0; k < t->count; k++) {
        size_t i = hash_text(t->tables[k].key) & (n - 1);
        while (slots[i] != SIZE_MAX) i = (i + 1) & (n - 1);
        slots[i] = k;
    }
    free(t->slots);
    t->slots = slots;
    t->slot_count = n;
    return 0;
}

static int name_taken(const split_tables *t, const char *name)
{
    for (size_t k = 0; k < t->count; k++)
        if (strcasecmp(t->tables[k].name, name) == 0) return 1;  /* case-insensitive file systems */
    return 0;
}

/* [A-Za-z0-9._-] only (everything else '_'), no leading dot, unique. */
static char *table_name(const split_tables *t, const char *base)
{
    char name[NAME_MAX_BYTES + 16];
    size_t n = 0;
    for (const char *s = base; *s && n < NAME_MAX_BYTES; s++) {
        char c = *s;
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
                 c == '-' || c == '_';
        name[n] = ok && !(n == 0 && c == '.') ? c : '_';
        n++;
    }
    name[n] = '\0';
    if (n == 0) memcpy(name, "_", 2);
    char unique[sizeof name + 24];
    snprintf(unique, sizeof unique, "%s", name);
    for (unsigned i = 2; name_taken(t, unique); i++) snprintf(unique, sizeof unique, "%s_%u", name, i);
    return copy_text(unique);
}

split_table *split_tables_add(split_tables *t, const char *key, const char *base, const char *const *columns,
                              const uint8_t *types, size_t column_count)
{
    if (t->count >= SPLIT_MAX_TABLES) return NULL;
    if ((t->count + 1) * 2 > t->slot_count && rehash(t) != 0) return NULL;
    if (t->count == t->capacity) {
        size_t cap = t->capacity ? t->capacity * 2 : 32;
        split_table *n = realloc(t->tables, cap * sizeof *n);
        if (!n) return NULL;
        t->tables = n;
        t->capacity = cap;
    }
    split_table *tab = &t->tables[t->count];
    memset(tab, 0, sizeof *tab);
    tab->key = copy_text(key);
    tab->name = table_name(t, base);
    tab->columns = calloc(column_count ? column_count : 1, sizeof *tab->columns);
    tab->types = malloc(column_count ? column_count : 1);
    int failed = !tab->key || !tab->name || !tab->columns || !tab->types;
    for (size_t i = 0; i < column_count && !failed; i++) {
        tab->columns[i] = copy_text(columns[i]);
        failed = !tab->columns[i];
        tab->column_count = i + 1;
    }
    if (failed) {
        for (size_t i = 0; i < tab->column_count; i++) free(tab->columns[i]);
        free(tab->key);
        free(tab->name);
        free(tab->columns);
        free(tab->types);
        return NULL;
    }
    memcpy(tab->types, types, column_count);
    size_t i = hash_text(key) & (t->slot_count - 1);
    while (t->slots[i] != SIZE_MAX) i = (i + 1) & (t->slot_count - 1);
    t->slots[i] = t->count;
    t->count++;
    return tab;
}

static int close_table(split_table *tab, const split_tables *t)
{
    int rc = 0;
    if (tab->fp && (ferror(tab->fp) | fclose(tab->fp))) {
        char *path = split_tables_path(t, tab->name, t->extension);
        fprintf(stderr, "etlconv: %s: write failed: %s\n", path ? path : tab->name, strerror(errno));
        free(path);
        rc = -1;
    }
    tab->fp = NULL;
    return rc;
}

FILE *split_tables_stream(split_tables *t, split_table *tab, const char *header, size_t header_length)
{
    tab->last_use = ++t->clock;
    if (tab->fp) return tab->fp;
    if (t->open_count == t->max_open) {  /* close the least recently used file */
        size_t oldest = 0;
        for (size_t i = 1; i < t->open_count; i++)
            if (t->tables[t->open[i]].last_use < t->tables[t->open[oldest]].last_use) oldest = i;
        if (close_table(&t->tables[t->open[oldest]], t) != 0) return NULL;
        t->open[oldest] = t->open[--t->open_count];
    }
    char *path = split_tables_path(t, tab->name, t->extension);
    if (!path) {
        fprintf(stderr, "etlconv: out of memory\n");
        return NULL;
    }
    tab->fp = fopen(path, tab->created ? "ab" : "wb");
    if (!tab->fp) {
        fprintf(stderr, "etlconv: %s: cannot open: %s\n", path, strerror(errno));
        free(path);
        return NULL;
    }
    free(path);
    if (tab->created) {
        t->reopens++;
    } else {
        tab->created = 1;
        if (header && fwrite(header, 1, header_length, tab->fp) != header_length) return NULL;
    }
    t->open[t->open_count++] = (size_t)(tab - t->tables);
    return tab->fp;
}

int split_tables_close_all(split_tables *t)
{
    int rc = 0;
    for (size_t i = 0; i < t->open_count; i++)
        if (close_table(&t->tables[t->open[i]], t) != 0) rc = -1;
    t->open_count = 0;
    return rc;
}

void split_tables_remove_files(split_tables *t)
{
    split_tables_close_all(t);
    for (size_t k = 0; k < t->count; k++) {
        if (!t->tables[k].created) continue;
        char *path = split_tables_path(t, t->tables[k].name, t->extension);
        if (path) unlink(path);
        free(path);
        t->tables[k].created = 0;
    }
}

void split_tables_free(split_tables *t)
{
    for (size_t k = 0; k < t->count; k++) {
        split_table *tab = &t->tables[k];
        if (tab->fp) fclose(tab->fp);
        for (size_t i = 0; i < tab->column_count; i++) free(tab->columns[i]);
        free(tab->columns);
        free(tab->types);
        free(tab->key);
        free(tab->name);
    }
    free(t->tables);
    free(t->slots);
    free(t->open);
    free(t->dir);
    memset(t, 0, sizeof *t);
}
