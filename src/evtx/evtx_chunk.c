/* EVTX chunk builder (see evtx_chunk.h). Layout facts: libevtx's "Windows XML Event Log (EVTX) format"
 * document (file header, chunk header, event record, name) and MS-EVEN6. */
#include "evtx_chunk.h"

#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "util/le.h"

#define STRING_TABLE 128     /* 64 x u32: common string offsets, bucket = name hash % 64 */
#define TEMPLATE_TABLE 384   /* 32 x u32: template definition offsets */
#define STRING_BUCKETS 64
#define TEMPLATE_BUCKETS 32
#define MAX_NAMES 1024       /* distinct element/attribute names (the writer's own, and UserData layouts') */
#define TEMPLATE_SLOTS 4096  /* > the definitions a 64 KiB chunk can hold (each is > 40 bytes) */

typedef struct name_entry {
    uint32_t offset;  /* of the name structure in the chunk */
    uint16_t hash;
    uint16_t length;  /* characters */
} name_entry;

typedef struct template_entry {
    uint64_t hash;
    size_t key_offset, key_length;  /* in `keys` */
    uint32_t offset;                /* of the definition in the chunk */
    uint32_t slot;
} template_entry;

typedef struct checkpoint {
    uint32_t length;
    uint32_t names;
    uint32_t templates;
    size_t key_bytes;
    uint8_t tables[EVTX_CHUNK_HEADER_SIZE - STRING_TABLE];
} checkpoint;

struct evtx_chunk {
    uint8_t *buf;          /* the chunk from offset 0; may grow past 64 KiB while a record is built */
    size_t capacity;
    uint32_t length;       /* next write position */
    uint32_t free_offset;  /* end of the committed records */
    uint32_t last_record;  /* offset of the last committed record */
    uint32_t record_start; /* record being built */
    uint64_t first_id;
    uint64_t count;
    int failed;
    int names_full;      /* the string table is full: the record does not fit this chunk */
    name_entry names[MAX_NAMES];
    uint32_t name_count;
    template_entry *templates;
    uint32_t template_count;
    int32_t slots[TEMPLATE_SLOTS];  /* index + 1 into templates, 0 = empty (linear probing) */
    uint8_t *keys;
    size_t key_bytes, key_capacity;
    checkpoint saved;
};

void evtx_store_u16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

void evtx_store_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void evtx_store_u64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

evtx_chunk *evtx_chunk_new(void)
{
    evtx_chunk *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->capacity = EVTX_CHUNK_SIZE * 2;
    c->buf = calloc(1, c->capacity);
    c->templates = calloc(TEMPLATE_SLOTS, sizeof *c->templates);
    if (!c->buf || !c->templates) {
        evtx_chunk_free(c);
        return NULL;
    }
    evtx_chunk_reset(c, 1);
    return c;
}

void evtx_chunk_free(evtx_chunk *c)
{
    if (!c) return;
    free(c->buf);
    free(c->templates);
    free(c->keys);
    free(c);
}

void evtx_chunk_reset(evtx_chunk *c, uint64_t first_record_id)
{
    memset(c->buf, 0, EVTX_CHUNK_SIZE);
    c->length = c->free_offset = EVTX_CHUNK_HEADER_SIZE;
    c->last_record = 0;
    c->first_id = first_record_id;
    c->count = 0;
    c->name_count = 0;
    c->template_count = 0;
    memset(c->slots, 0, sizeof c->slots);
    c->key_bytes = 0;
}

uint64_t evtx_chunk_records(const evtx_chunk *c)
{
    return c->count;
}

/* ---- raw output ------------------------------------------------------------------------------------- */

static int reserve(evtx_chunk *c, size_t extra)
{
    if (c->failed) return -1;
    if (c->length + extra <= c->capacity) return 0;
    /* a record bigger than a chunk is built to the end (then refused): growth stays within what one event
     * can produce, which the writer bounds */
    size_t want = c->capacity;
    while (want < c->length + extra) want *= 2;
    if (want > ((size_t)1 << 31)) {
        c->failed = 1;
        return -1;
    }
    uint8_t *p = realloc(c->buf, want);
    if (!p) {
        c->failed = 1;
        return -1;
    }
    memset(p + c->capacity, 0, want - c->capacity);
    c->buf = p;
    c->capacity = want;
    return 0;
}

uint32_t evtx_pos(const evtx_chunk *c)
{
    return c->length;
}

void evtx_put(evtx_chunk *c, const void *data, size_t length)
{
    if (length == 0 || reserve(c, length) != 0) return;
    memcpy(c->buf + c->length, data, length);
    c->length += (uint32_t)length;
}

void evtx_put_u8(evtx_chunk *c, uint8_t v)
{
    evtx_put(c, &v, 1);
}

void evtx_put_u16(evtx_chunk *c, uint16_t v)
{
    uint8_t b[2];
    evtx_store_u16(b, v);
    evtx_put(c, b, 2);
}

void evtx_put_u32(evtx_chunk *c, uint32_t v)
{
    uint8_t b[4];
    evtx_store_u32(b, v);
    evtx_put(c, b, 4);
}

void evtx_patch_u16(evtx_chunk *c, uint32_t offset, uint16_t v)
{
    if (!c->failed && offset + 2 <= c->length) evtx_store_u16(c->buf + offset, v);
}

void evtx_patch_u32(evtx_chunk *c, uint32_t offset, uint32_t v)
{
    if (!c->failed && offset + 4 <= c->length) evtx_store_u32(c->buf + offset, v);
}

/* ---- names ------------------------------------------------------------------------------------------ */

/* The name hash Windows stores (hash * 65599 + character over the UTF-16 units, low 16 bits). */
static uint16_t name_hash(const char *name)
{
    uint32_t h = 0;
    for (const unsigned char *s = (const unsigned char *)name; *s; s++) h = h * 65599u + *s;
    return (uint16_t)h;
}

static int name_matches(const evtx_chunk *c, const name_entry *e, const char *name, size_t n)
{
    const uint8_t *chars = c->buf + e->offset + 8;
    for (size_t i = 0; i < n; i++)
        if (chars[2 * i] != (uint8_t)name[i] || chars[2 * i + 1] != 0) return 0;
    return 1;
}

void evtx_put_name(evtx_chunk *c, const char *name)
{
    size_t n = strlen(name);
    uint16_t hash = name_hash(name);
    for (uint32_t i = 0; i < c->name_count; i++) {
        const name_entry *e = &c->names[i];
        if (e->hash == hash && e->length == n && name_matches(c, e, name, n)) {
            evtx_put_u32(c, e->offset);
            return;
        }
    }
    uint32_t offset = c->length + 4;
    evtx_put_u32(c, offset);
    if (c->name_count == MAX_NAMES || n > 0xFFFF) {  /* the record goes to a new chunk */
        c->names_full = 1;
        c->failed = 1;
        return;
    }
    uint32_t bucket = STRING_TABLE + 4 * (hash % STRING_BUCKETS);
    evtx_put_u32(c, etl_le32(c->buf + bucket));  /* next name in the bucket's chain */
    evtx_put_u16(c, hash);
    evtx_put_u16(c, (uint16_t)n);
    for (size_t i = 0; i < n; i++) evtx_put_u16(c, (uint8_t)name[i]);
    evtx_put_u16(c, 0);
    if (c->failed) return;
    evtx_store_u32(c->buf + bucket, offset);
    c->names[c->name_count++] = (name_entry){offset, hash, (uint16_t)n};
}

/* ---- templates -------------------------------------------------------------------------------------- */

uint32_t evtx_template_find(const evtx_chunk *c, const void *key, size_t key_length, uint64_t key_hash)
{
    for (uint32_t s = (uint32_t)(key_hash % TEMPLATE_SLOTS);; s = (s + 1) % TEMPLATE_SLOTS) {
        int32_t i = c->slots[s];
        if (i == 0) return 0;
        const template_entry *e = &c->templates[i - 1];
        if (e->hash == key_hash && e->key_length == key_length &&
            memcmp(c->keys + e->key_offset, key, key_length) == 0)
            return e->offset;
    }
}

uint32_t evtx_template_bucket_head(const evtx_chunk *c, uint32_t template_id)
{
    return etl_le32(c->buf + TEMPLATE_TABLE + 4 * (template_id % TEMPLATE_BUCKETS));
}

int evtx_template_add(evtx_chunk *c, const void *key, size_t key_length, uint64_t key_hash, uint32_t template_id,
                      uint32_t offset)
{
    if (c->template_count >= TEMPLATE_SLOTS / 2) return -1;  /* not reachable in 64 KiB; keeps probing short */
    if (c->key_bytes + key_length > c->key_capacity) {
        size_t want = c->key_capacity ? c->key_capacity : 65536;
        while (want < c->key_bytes + key_length) want *= 2;
        uint8_t *p = realloc(c->keys, want);
        if (!p) return -1;
        c->keys = p;
        c->key_capacity = want;
    }
    memcpy(c->keys + c->key_bytes, key, key_length);
    uint32_t s = (uint32_t)(key_hash % TEMPLATE_SLOTS);
    while (c->slots[s]) s = (s + 1) % TEMPLATE_SLOTS;
    c->templates[c->template_count] = (template_entry){key_hash, c->key_bytes, key_length, offset, s};
    c->slots[s] = (int32_t)++c->template_count;
    c->key_bytes += key_length;
    evtx_store_u32(c->buf + TEMPLATE_TABLE + 4 * (template_id % TEMPLATE_BUCKETS), offset);
    return 0;
}

/* ---- records ---------------------------------------------------------------------------------------- */

void evtx_record_begin(evtx_chunk *c, int64_t filetime)
{
    c->saved.length = c->length;
    c->saved.names = c->name_count;
    c->saved.templates = c->template_count;
    c->saved.key_bytes = c->key_bytes;
    memcpy(c->saved.tables, c->buf + STRING_TABLE, sizeof c->saved.tables);
    c->record_start = c->length;
    static const uint8_t magic[4] = {0x2a, 0x2a, 0, 0};
    evtx_put(c, magic, 4);
    evtx_put_u32(c, 0);  /* size, patched at the end */
    uint8_t b[8];
    evtx_store_u64(b, c->first_id + c->count);
    evtx_put(c, b, 8);
    evtx_store_u64(b, (uint64_t)filetime);
    evtx_put(c, b, 8);
}

static void rollback(evtx_chunk *c)
{
    /* templates come off in reverse order of insertion, which keeps linear probing chains intact */
    while (c->template_count > c->saved.templates) c->slots[c->templates[--c->template_count].slot] = 0;
    c->name_count = c->saved.names;
    c->key_bytes = c->saved.key_bytes;
    memcpy(c->buf + STRING_TABLE, c->saved.tables, sizeof c->saved.tables);
    memset(c->buf + c->saved.length, 0, c->length - c->saved.length);
    c->length = c->saved.length;
}

void evtx_record_abort(evtx_chunk *c)
{
    c->failed = c->names_full = 0;
    rollback(c);
}

int evtx_record_end(evtx_chunk *c)
{
    uint32_t size = c->length - c->record_start + 4;
    evtx_put_u32(c, size);
    if (c->failed) {
        int full = c->names_full;
        c->failed = c->names_full = 0;
        rollback(c);
        return full ? 1 : -1;
    }
    /* libevtx 20181227 does not see a last record that ends less than 4 bytes before the chunk end: keep 8 */
    if (c->length > EVTX_CHUNK_SIZE - 8) {
        rollback(c);
        return 1;
    }
    evtx_patch_u32(c, c->record_start + 4, size);
    c->last_record = c->record_start;
    c->free_offset = c->length;
    c->count++;
    return 0;
}

/* ---- output ----------------------------------------------------------------------------------------- */

const uint8_t *evtx_chunk_finish(evtx_chunk *c)
{
    uint8_t *h = c->buf;
    static const uint8_t magic[8] = {'E', 'l', 'f', 'C', 'h', 'n', 'k', 0};
    memcpy(h, magic, 8);
    uint64_t last = c->count ? c->first_id + c->count - 1 : c->first_id;
    evtx_store_u64(h + 8, c->first_id);   /* first/last event record number */
    evtx_store_u64(h + 16, last);
    evtx_store_u64(h + 24, c->first_id);  /* first/last event record identifier */
    evtx_store_u64(h + 32, last);
    evtx_store_u32(h + 40, 128);          /* header size */
    evtx_store_u32(h + 44, c->last_record);
    evtx_store_u32(h + 48, c->free_offset);
    memset(c->buf + c->free_offset, 0, EVTX_CHUNK_SIZE - c->free_offset);
    uLong records_crc = crc32(0L, c->buf + EVTX_CHUNK_HEADER_SIZE, c->free_offset - EVTX_CHUNK_HEADER_SIZE);
    evtx_store_u32(h + 52, (uint32_t)records_crc);
    memset(h + 56, 0, 68);                /* unknown, flags */
    uLong crc = crc32(0L, h, 120);
    crc = crc32(crc, h + 128, EVTX_CHUNK_HEADER_SIZE - 128);
    evtx_store_u32(h + 124, (uint32_t)crc);
    return c->buf;
}

void evtx_file_header(uint8_t block[EVTX_FILE_HEADER_BLOCK], uint64_t chunk_count, uint64_t next_record_id,
                      int dirty)
{
    memset(block, 0, EVTX_FILE_HEADER_BLOCK);
    static const uint8_t magic[8] = {'E', 'l', 'f', 'F', 'i', 'l', 'e', 0};
    memcpy(block, magic, 8);
    evtx_store_u64(block + 8, 0);                                  /* first chunk number */
    evtx_store_u64(block + 16, chunk_count ? chunk_count - 1 : 0);  /* last chunk number */
    evtx_store_u64(block + 24, next_record_id);
    evtx_store_u32(block + 32, 128);                               /* header size */
    evtx_store_u16(block + 36, 1);                                 /* minor version */
    evtx_store_u16(block + 38, 3);                                 /* major version */
    evtx_store_u16(block + 40, EVTX_FILE_HEADER_BLOCK);            /* header block size */
    /* the count field is 16 bits: a file of more than 65535 chunks (4 GiB) says 65535 (readers that walk
     * the file find the rest; the last chunk number is exact) */
    evtx_store_u16(block + 42, (uint16_t)(chunk_count > 0xFFFF ? 0xFFFF : chunk_count));
    evtx_store_u32(block + 120, dirty ? 1u : 0u);                  /* flags: 0x1 dirty, 0x2 full */
    evtx_store_u32(block + 124, (uint32_t)crc32(0L, block, 120));
}
