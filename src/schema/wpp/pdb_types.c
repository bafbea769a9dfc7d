/* #enumv tables from a PDB's types: WPP's ItemEnum(_NAME) and ItemFlagsEnum(_NAME) arguments name a C enum,
 * and tracepdb writes its enumerators into the TMF ("#enumv _MYSTATE { StateIdle,0x0 ... }"). Here they come
 * from the TPI stream: the LF_ENUM record of that name (not a forward reference) and its LF_FIELDLIST of
 * LF_ENUMERATE records (continued by LF_INDEX). Layouts: LLVM's PDB documentation (TPI stream header) and
 * microsoft-pdb's cvinfo.h (leaf records, numeric leaves, LF_PADn bytes). Only the enums a statement of this
 * PDB asks for and the store lacks are read; every offset and count is checked against the stream. */
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/pdb.h"
#include "util/le.h"

enum {
    TPI_HEADER_SIZE = 56,
    LF_FIELDLIST = 0x1203, LF_INDEX = 0x1404, LF_ENUMERATE = 0x1502, LF_ENUM = 0x1507,
    LF_NUMERIC = 0x8000, LF_CHAR = 0x8000, LF_SHORT = 0x8001, LF_USHORT = 0x8002, LF_LONG = 0x8003,
    LF_ULONG = 0x8004, LF_QUADWORD = 0x8009, LF_UQUADWORD = 0x800a,
    CV_PROP_FWDREF = 0x0080,
    MAX_FIELDLIST_HOPS = 64
};

/* The names of ItemEnum/ItemFlagsEnum arguments of statements [first, end) the store has no table for. */
static int wanted(const wpp_store *store, size_t first, const char *name, size_t n)
{
    for (size_t i = first; i < wpp_store_statement_count(store); i++) {
        const wpp_statement *st = wpp_store_statement_at(store, i);
        for (uint16_t a = 0; a < st->arg_count; a++) {
            const wpp_arg *arg = &st->args[a];
            if ((arg->item == WPP_ITEM_ENUM || arg->item == WPP_ITEM_FLAGSENUM) && arg->list_count &&
                strlen(arg->list[0]) == n && memcmp(arg->list[0], name, n) == 0)
                return 1;
        }
    }
    return 0;
}

int wpp_pdb_enums_missing(const wpp_store *store, size_t first)
{
    for (size_t i = first; i < wpp_store_statement_count(store); i++) {
        const wpp_statement *st = wpp_store_statement_at(store, i);
        for (uint16_t a = 0; a < st->arg_count; a++) {
            const wpp_arg *arg = &st->args[a];
            if ((arg->item == WPP_ITEM_ENUM || arg->item == WPP_ITEM_FLAGSENUM) && arg->list_count &&
                !wpp_store_enum(store, arg->list[0]))
                return 1;
        }
    }
    return 0;
}

/* A numeric leaf at p (cvinfo.h): below LF_NUMERIC the u16 is the value, else a typed value follows. Returns
 * its size, 0 when it is of another kind or runs past `end`. Values are kept as the 32 bits a WPP enum
 * argument holds. */
static size_t numeric(const uint8_t *p, const uint8_t *end, uint64_t *value)
{
    if (end - p < 2) return 0;
    uint16_t leaf = etl_le16(p);
    size_t need;
    switch (leaf) {
    case LF_CHAR: need = 1; break;
    case LF_SHORT: case LF_USHORT: need = 2; break;
    case LF_LONG: case LF_ULONG: need = 4; break;
    case LF_QUADWORD: case LF_UQUADWORD: need = 8; break;
    default:
        if (leaf >= LF_NUMERIC) return 0;
        *value = leaf;
        return 2;
    }
    if ((size_t)(end - p) < 2 + need) return 0;
    const uint8_t *v = p + 2;
    switch (leaf) {
    case LF_CHAR: *value = (uint32_t)(int32_t)(int8_t)v[0]; break;
    case LF_SHORT: *value = (uint32_t)(int32_t)(int16_t)etl_le16(v); break;
    case LF_USHORT: *value = etl_le16(v); break;
    default: *value = etl_le32(v); break; /* LONG, ULONG, and the low half of the quadwords */
    }
    return 2 + need;
}

typedef struct tpi {
    const uint8_t *data;
    size_t size;
    uint32_t begin, count;
    uint32_t *offsets;     /* record offset of each type index from `begin` */
} tpi;

/* The record of a type index: its data (after the u16 length) and its end. */
static int record(const tpi *t, uint32_t type, const uint8_t **rec, const uint8_t **end)
{
    if (type < t->begin || type - t->begin >= t->count) return 0;
    size_t off = t->offsets[type - t->begin];
    size_t len = etl_le16(t->data + off);
    *rec = t->data + off + 2;
    *end = *rec + len;
    return len >= 2;
}

/* The LF_ENUMERATE entries of a field list (and its LF_INDEX continuations) into entries[0..*count). */
static int enumerators(const tpi *t, uint32_t type, wpp_enum_entry *entries, uint32_t *count, char **names)
{
    for (int hop = 0; hop < MAX_FIELDLIST_HOPS; hop++) {
        const uint8_t *p, *end;
        if (!record(t, type, &p, &end) || etl_le16(p) != LF_FIELDLIST) return ETL_OK;
        p += 2;
        type = 0;
        while (end - p >= 2) {
            while (p < end && *p >= 0xF0) p++; /* LF_PADn */
            if (end - p < 2) break;
            uint16_t leaf = etl_le16(p);
            if (leaf == LF_INDEX) {
                if (end - p >= 8) type = etl_le32(p + 4);
                break;
            }
            if (leaf != LF_ENUMERATE || end - p < 4) return ETL_OK;
            uint64_t value;
            size_t n = numeric(p + 4, end, &value);
            if (!n) return ETL_OK;
            const uint8_t *name = p + 4 + n;
            const uint8_t *nul = memchr(name, 0, (size_t)(end - name));
            if (!nul) return ETL_OK;
            if (*count >= WPP_MAX_ENUM_ENTRIES) return ETL_OK;
            if (!(names[*count] = strndup((const char *)name, (size_t)(nul - name)))) return ETL_ERR_NOMEM;
            entries[*count] = (wpp_enum_entry){value, names[*count]};
            (*count)++;
            p = nul + 1;
        }
        if (!type) return ETL_OK;
    }
    return ETL_OK;
}

int wpp_pdb_take_enums(wpp_store *store, size_t first_statement, const uint8_t *data, size_t size,
                       etl_tmf_load_stats *stats)
{
    if (size < TPI_HEADER_SIZE) return ETL_OK;
    size_t header = etl_le32(data + 4);
    uint32_t begin = etl_le32(data + 8), end_index = etl_le32(data + 12);
    size_t bytes = etl_le32(data + 16);
    if (header < TPI_HEADER_SIZE || header > size || end_index < begin) return ETL_OK;
    if (bytes > size - header) bytes = size - header;
    tpi t = {data, header + bytes, begin, 0, NULL};
    size_t most = bytes / 4; /* a record takes at least 4 bytes */
    size_t want = end_index - begin < most ? end_index - begin : most;
    t.offsets = malloc((want ? want : 1) * sizeof *t.offsets);
    wpp_enum_entry *entries = malloc(WPP_MAX_ENUM_ENTRIES * sizeof *entries);
    char **names = malloc(WPP_MAX_ENUM_ENTRIES * sizeof *names);
    int rc = t.offsets && entries && names ? ETL_OK : ETL_ERR_NOMEM;
    for (size_t off = header; rc == ETL_OK && t.count < want && t.size - off >= 4;) {
        size_t len = etl_le16(data + off);
        if (len < 2 || len > t.size - off - 2) break;
        t.offsets[t.count++] = (uint32_t)off;
        off += 2 + len;
    }
    for (uint32_t i = 0; rc == ETL_OK && i < t.count; i++) {
        const uint8_t *p, *end;
        if (!record(&t, begin + i, &p, &end) || etl_le16(p) != LF_ENUM || end - p < 15) continue;
        if (etl_le16(p + 4) & CV_PROP_FWDREF) continue;
        const uint8_t *name = p + 14, *nul = memchr(name, 0, (size_t)(end - name));
        if (!nul || !wanted(store, first_statement, (const char *)name, (size_t)(nul - name))) continue;
        if (wpp_store_enum(store, (const char *)name)) continue;
        uint32_t count = 0;
        rc = enumerators(&t, etl_le32(p + 10), entries, &count, names);
        if (rc == ETL_OK) rc = wpp_store_add_enum(store, (const char *)name, entries, count);
        if (rc == ETL_OK && stats) stats->pdb_enums++;
        for (uint32_t k = 0; k < count; k++) free(names[k]);
    }
    free(t.offsets);
    free(entries);
    free(names);
    return rc;
}
