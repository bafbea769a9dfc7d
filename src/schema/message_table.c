/* RT_MESSAGETABLE resources (schemas.md §2.9): message id → text. Every block and entry is bounds-checked;
 * a bad block makes its ids unresolvable instead of failing the whole table. */
#include <string.h>

#include "schema/manifest_model.h"
#include "util/le.h"
#include "util/utf.h"

enum {
    MT_BLOCK_SIZE = 12,         /* low id, high id, offset of the first entry */
    MT_ENTRY_HEADER = 4,        /* u16 length (incl. header), u16 flags */
    MT_FLAG_UNICODE = 0x1,      /* MESSAGE_RESOURCE_UNICODE: UTF-16LE text */
    MT_FLAG_UTF8 = 0x2,         /* MESSAGE_RESOURCE_UTF8 (winnt.h, mc -cp utf-8): UTF-8 text */
    MT_MAX_WALK = 65536         /* entries walked inside one block (hostile "high" ids) */
};

int etl_message_table_open(etl_message_table *table, const uint8_t *data, size_t size)
{
    memset(table, 0, sizeof(*table));
    if (size < 4) return ETL_ERR_TRUNCATED;
    uint32_t blocks = etl_le32(data);
    if (blocks > (size - 4) / MT_BLOCK_SIZE) return ETL_ERR_FORMAT;
    table->data = data;
    table->size = size;
    table->block_count = blocks;
    return ETL_OK;
}

/* Non-Unicode entries are in the binary's ANSI code page; Windows-1252 is by far the most common one for the
 * message tables etlconv meets. 0x80-0x9F map through its table, the rest is Latin-1. */
static const uint16_t cp1252_high[32] = {
    0x20AC, 0xFFFD, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0xFFFD,
    0x017D, 0xFFFD, 0xFFFD, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A,
    0x0153, 0xFFFD, 0x017E, 0x0178};

static char *ansi_to_utf8(etl_arena *arena, const uint8_t *p, size_t n)
{
    size_t len = 0;
    while (len < n && p[len]) len++;
    char *out = etl_arena_alloc(arena, 3 * len + 1);
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = p[i] >= 0x80 && p[i] < 0xA0 ? cp1252_high[p[i] - 0x80] : p[i];
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | c >> 6);
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else {
            out[o++] = (char)(0xE0 | c >> 12);
            out[o++] = (char)(0x80 | (c >> 6 & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    out[o] = '\0';
    return out;
}

/* UTF-8 entry → UTF-8 up to the first NUL, malformed sequences replaced (the text is untrusted). */
static char *utf8_copy(etl_arena *arena, const uint8_t *p, size_t n)
{
    size_t len = 0;
    while (len < n && p[len]) len++;
    char *out = etl_arena_alloc(arena, 3 * len + 1);   /* one bad byte → U+FFFD (3 bytes) */
    if (!out) return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += etl_utf8_decode(p + i, len - i, &cp);
        char enc[4];
        size_t k = etl_utf8_encode(cp, enc);
        memcpy(out + o, enc, k);
        o += k;
    }
    out[o] = '\0';
    return out;
}

static const char *lookup_one(const etl_message_table *table, uint32_t id, etl_arena *arena)
{
    if (!table || !table->data || id == UINT32_MAX) return NULL;
    for (uint32_t b = 0; b < table->block_count; b++) {
        const uint8_t *blk = table->data + 4 + (size_t)b * MT_BLOCK_SIZE;
        uint32_t low = etl_le32(blk), high = etl_le32(blk + 4), off = etl_le32(blk + 8);
        if (id < low || id > high) continue;
        if (id - low > MT_MAX_WALK) return NULL;
        size_t pos = off;
        for (uint32_t k = low;; k++) {
            if (pos > table->size || table->size - pos < MT_ENTRY_HEADER) return NULL;
            uint16_t len = etl_le16(table->data + pos);
            uint16_t flags = etl_le16(table->data + pos + 2);
            if (len < MT_ENTRY_HEADER || len > table->size - pos) return NULL;
            if (k == id) {
                const uint8_t *text = table->data + pos + MT_ENTRY_HEADER;
                size_t bytes = len - MT_ENTRY_HEADER;
                char *s = (flags & MT_FLAG_UNICODE) ? etl_arena_utf16(arena, text, bytes / 2)
                          : (flags & MT_FLAG_UTF8)  ? utf8_copy(arena, text, bytes)
                                                    : ansi_to_utf8(arena, text, bytes);
                if (!s) return NULL;
                /* mc appends "\r\n" to every message (schemas.md §1.7) */
                size_t l = strlen(s);
                while (l && (s[l - 1] == '\n' || s[l - 1] == '\r')) s[--l] = '\0';
                return s;
            }
            pos += len;
        }
    }
    return NULL;
}

const char *etl_message_table_lookup(const etl_message_table *table, uint32_t id, etl_arena *arena)
{
    const char *s = lookup_one(table, id, arena);
    if (!s && table && table->fallback) s = lookup_one(table->fallback, id, arena);
    return s;
}
