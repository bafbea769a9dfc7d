/* The schema set shared by the manifest sources: arena, event/provider arrays, registration. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/manifest_model.h"

struct etl_arena_block {
    etl_arena_block *next;
    size_t used, size;
    _Alignas(8) unsigned char data[];
};

#define ARENA_BLOCK_SIZE ((size_t)64 << 10)

void etl_arena_init(etl_arena *arena, size_t limit)
{
    arena->head = NULL;
    arena->total = 0;
    arena->limit = limit;
}

void etl_arena_free(etl_arena *arena)
{
    etl_arena_block *b = arena->head;
    while (b) {
        etl_arena_block *next = b->next;
        free(b);
        b = next;
    }
    arena->head = NULL;
    arena->total = 0;
}

void *etl_arena_alloc(etl_arena *arena, size_t size)
{
    size = (size + 7) & ~(size_t)7;
    if (size == 0) size = 8;
    etl_arena_block *b = arena->head;
    if (!b || b->size - b->used < size) {
        size_t want = size > ARENA_BLOCK_SIZE / 4 ? size : ARENA_BLOCK_SIZE;
        if (want > arena->limit || arena->total > arena->limit - want) return NULL;
        b = malloc(sizeof(*b) + want);
        if (!b) return NULL;
        b->used = 0;
        b->size = want;
        arena->total += want;
        if (want == size && arena->head) {
            /* oversized block: keep the current block in front for further small allocations */
            b->next = arena->head->next;
            arena->head->next = b;
        } else {
            b->next = arena->head;
            arena->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *etl_arena_strndup(etl_arena *arena, const char *text, size_t length)
{
    if (!text) return NULL;
    char *s = etl_arena_alloc(arena, length + 1);
    if (!s) return NULL;
    memcpy(s, text, length);
    s[length] = '\0';
    return s;
}

char *etl_arena_strdup(etl_arena *arena, const char *text)
{
    return text ? etl_arena_strndup(arena, text, strlen(text)) : NULL;
}

char *etl_arena_utf16(etl_arena *arena, const uint8_t *p, size_t units)
{
    size_t n = 0;
    while (n < units && (p[2 * n] | p[2 * n + 1])) n++;
    char *out = etl_arena_alloc(arena, 3 * n + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t c = (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
        if (c >= 0xD800 && c < 0xDC00 && i + 1 < n) {
            uint32_t lo = (uint32_t)p[2 * i + 2] | (uint32_t)p[2 * i + 3] << 8;
            if (lo >= 0xDC00 && lo < 0xE000) {
                c = 0x10000 + ((c - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                c = 0xFFFD;
            }
        } else if (c >= 0xD800 && c < 0xE000) {
            c = 0xFFFD;
        }
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6);
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | c >> 12);
            out[o++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[o++] = (char)(0xF0 | c >> 18);
            out[o++] = (char)(0x80 | (c >> 12 & 0x3F));
            out[o++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[o] = '\0';
    return out;
}

int etl_schema_fail(etl_error *err, int code, const char *origin, uint64_t offset, const char *fmt, ...)
{
    if (!err) return code;
    char what[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    err->code = code;
    err->offset = offset;
    if (offset == UINT64_MAX)
        snprintf(err->message, sizeof(err->message), "%s: %s", origin ? origin : "(schema)", what);
    else
        snprintf(err->message, sizeof(err->message), "%s: offset 0x%llx: %s", origin ? origin : "(schema)",
                 (unsigned long long)offset, what);
    return code;
}

void etl_schema_set_init(etl_schema_set *set)
{
    memset(set, 0, sizeof(*set));
    etl_arena_init(&set->arena, ETL_SCHEMA_SET_ARENA_LIMIT);
}

void etl_schema_set_free(etl_schema_set *set)
{
    etl_arena_free(&set->arena);
    free(set->events);
    free(set->providers);
    memset(set, 0, sizeof(*set));
}

static int grow(void **array, size_t *cap, size_t count, size_t elem)
{
    if (count < *cap) return 0;
    size_t ncap = *cap ? *cap * 2 : 16;
    void *p = realloc(*array, ncap * elem);
    if (!p) return -1;
    *array = p;
    *cap = ncap;
    return 0;
}

etl_event_info *etl_schema_set_add_event(etl_schema_set *set)
{
    if (grow((void **)&set->events, &set->event_cap, set->event_count, sizeof(*set->events))) return NULL;
    etl_event_info *e = &set->events[set->event_count++];
    memset(e, 0, sizeof(*e));
    return e;
}

etl_set_provider *etl_schema_set_add_provider(etl_schema_set *set)
{
    if (grow((void **)&set->providers, &set->provider_cap, set->provider_count, sizeof(*set->providers)))
        return NULL;
    etl_set_provider *p = &set->providers[set->provider_count++];
    memset(p, 0, sizeof(*p));
    return p;
}

static int guid_cmp(const etl_guid *a, const etl_guid *b)
{
    if (a->data1 != b->data1) return a->data1 < b->data1 ? -1 : 1;
    if (a->data2 != b->data2) return a->data2 < b->data2 ? -1 : 1;
    if (a->data3 != b->data3) return a->data3 < b->data3 ? -1 : 1;
    return memcmp(a->data4, b->data4, 8);
}

static int event_cmp(const void *pa, const void *pb)
{
    const etl_event_info *a = pa, *b = pb;
    int c = guid_cmp(&a->provider_guid, &b->provider_guid);
    if (c) return c;
    if (a->descriptor.id != b->descriptor.id) return a->descriptor.id < b->descriptor.id ? -1 : 1;
    if (a->descriptor.version != b->descriptor.version) return a->descriptor.version < b->descriptor.version ? -1 : 1;
    return 0;
}

void etl_schema_set_sort(etl_schema_set *set)
{
    if (set->event_count > 1) qsort(set->events, set->event_count, sizeof(*set->events), event_cmp);
}

static int keyword_def_cmp(const void *pa, const void *pb)
{
    const etl_keyword_def *a = pa, *b = pb;
    return a->mask < b->mask ? -1 : a->mask > b->mask;
}

int etl_schema_keyword_names(etl_arena *arena, const etl_keyword_def *defs, size_t def_count, uint64_t mask,
                             etl_event_info *event)
{
    size_t n = 0;
    for (size_t i = 0; i < def_count; i++)
        if (defs[i].mask && (defs[i].mask & mask) == defs[i].mask) n++;
    event->keyword_names = NULL;
    event->keyword_name_count = 0;
    if (n == 0) return 0;
    etl_keyword_def *sorted = etl_arena_alloc(arena, n * sizeof(*sorted));
    const char **names = etl_arena_alloc(arena, n * sizeof(*names));
    if (!sorted || !names) return -1;
    n = 0;
    for (size_t i = 0; i < def_count; i++)
        if (defs[i].mask && (defs[i].mask & mask) == defs[i].mask) sorted[n++] = defs[i];
    qsort(sorted, n, sizeof(*sorted), keyword_def_cmp);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && sorted[i].mask == sorted[i - 1].mask) continue;  /* one name per mask */
        names[out++] = sorted[i].display;
    }
    event->keyword_names = names;
    event->keyword_name_count = (uint32_t)out;
    return 0;
}

int etl_schema_read_file(const char *path, size_t limit, unsigned char **data, size_t *size, etl_error *err)
{
    *data = NULL;
    *size = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open: %s", strerror(errno));
    int rc = ETL_OK;
    if (fseek(f, 0, SEEK_END) != 0) rc = ETL_ERR_IO;
    long n = rc == ETL_OK ? ftell(f) : -1;
    if (n < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot read: %s", strerror(errno));
    }
    if ((unsigned long)n > limit) {
        fclose(f);
        return etl_schema_fail(err, ETL_ERR_SCHEMA, path, UINT64_MAX, "file larger than %zu MiB refused",
                               limit >> 20);
    }
    unsigned char *buf = malloc((size_t)n + 1);
    if (!buf) {
        fclose(f);
        return etl_schema_fail(err, ETL_ERR_NOMEM, path, UINT64_MAX, "out of memory");
    }
    if (n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "short read");
    }
    fclose(f);
    buf[n] = '\0';
    *data = buf;
    *size = (size_t)n;
    return ETL_OK;
}
