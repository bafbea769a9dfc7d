/* PE headers, section table and the three-level resource directory (type → name → language). */
#include <string.h>

#include "schema/manifest_model.h"
#include "schema/pe_resources.h"
#include "util/le.h"

enum {
    DOS_E_LFANEW = 0x3C,
    COFF_SIZE = 20,
    COFF_SECTION_COUNT = 2,
    COFF_OPTIONAL_SIZE = 16,
    OPT_MAGIC_PE32 = 0x10B,
    OPT_MAGIC_PE32PLUS = 0x20B,
    OPT_DATADIR_PE32 = 96,
    OPT_DATADIR_PE32PLUS = 112,
    OPT_NUMBER_OF_RVA_PE32 = 92,
    OPT_NUMBER_OF_RVA_PE32PLUS = 108,
    DATADIR_RESOURCE = 2,
    SECTION_SIZE = 40,
    SEC_VIRTUAL_SIZE = 8,
    SEC_VIRTUAL_ADDRESS = 12,
    SEC_RAW_SIZE = 16,
    SEC_RAW_POINTER = 20,
    RES_DIR_SIZE = 16,
    RES_DIR_NAMED_COUNT = 12,
    RES_DIR_ID_COUNT = 14,
    RES_ENTRY_SIZE = 8,
    RES_DATA_ENTRY_SIZE = 16
};

#define HIGH_BIT 0x80000000u
#define LANG_EN_US 0x409u
#define LANG_ENGLISH 0x09u              /* primary language id: the low 10 bits of a LANGID */
#define PICK_LANGUAGE UINT32_MAX        /* want_id: the preferred language (en-US, neutral, any other) */
#define PICK_FIRST (UINT32_MAX - 1)     /* want_id: the first entry with a numeric id */

/* RVA → file offset; `*avail` = bytes of raw data from there to the end of the section. */
static int rva_to_offset(const etl_pe_image *pe, uint32_t rva, size_t *off, size_t *avail)
{
    for (uint16_t i = 0; i < pe->section_count; i++) {
        const uint8_t *s = pe->data + pe->section_table + (size_t)i * SECTION_SIZE;
        uint32_t va = etl_le32(s + SEC_VIRTUAL_ADDRESS), vsize = etl_le32(s + SEC_VIRTUAL_SIZE);
        uint32_t raw = etl_le32(s + SEC_RAW_POINTER), rawsize = etl_le32(s + SEC_RAW_SIZE);
        uint32_t span = vsize > rawsize ? vsize : rawsize;
        if (rva < va || rva - va >= span) continue;
        uint32_t delta = rva - va;
        if (delta >= rawsize || raw > pe->size) return -1;   /* uninitialised (virtual-only) bytes */
        size_t end = (size_t)raw + rawsize;
        if (end > pe->size) end = pe->size;
        if ((size_t)raw + delta >= end) return -1;
        *off = (size_t)raw + delta;
        *avail = end - *off;
        return 0;
    }
    return -1;
}

int etl_pe_open(etl_pe_image *pe, const uint8_t *data, size_t size, const char *origin, etl_error *err)
{
    memset(pe, 0, sizeof(*pe));
    pe->data = data;
    pe->size = size;
    pe->origin = origin;
    if (size < 0x40 || data[0] != 'M' || data[1] != 'Z')
        return etl_schema_fail(err, ETL_ERR_FORMAT, origin, 0, "not a PE file (no MZ header)");
    uint32_t lfanew = etl_le32(data + DOS_E_LFANEW);
    if (lfanew > size || size - lfanew < 4 + COFF_SIZE || memcmp(data + lfanew, "PE\0\0", 4) != 0)
        return etl_schema_fail(err, ETL_ERR_FORMAT, origin, DOS_E_LFANEW, "no PE signature at e_lfanew 0x%x",
                               lfanew);
    size_t coff = (size_t)lfanew + 4;
    uint16_t nsec = etl_le16(data + coff + COFF_SECTION_COUNT);
    uint16_t optsize = etl_le16(data + coff + COFF_OPTIONAL_SIZE);
    size_t opt = coff + COFF_SIZE;
    if (size - opt < optsize || optsize < 2)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, origin, opt, "optional header truncated");
    uint16_t magic = etl_le16(data + opt);
    size_t dd, nrva_off;
    if (magic == OPT_MAGIC_PE32) { dd = OPT_DATADIR_PE32; nrva_off = OPT_NUMBER_OF_RVA_PE32; }
    else if (magic == OPT_MAGIC_PE32PLUS) { dd = OPT_DATADIR_PE32PLUS; nrva_off = OPT_NUMBER_OF_RVA_PE32PLUS; }
    else return etl_schema_fail(err, ETL_ERR_FORMAT, origin, opt, "unknown optional-header magic 0x%x", magic);
    pe->section_table = opt + optsize;
    if ((size - pe->section_table) / SECTION_SIZE < nsec)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, origin, pe->section_table, "section table truncated");
    pe->section_count = nsec;
    if (optsize < nrva_off + 4) return ETL_OK;
    uint32_t nrva = etl_le32(data + opt + nrva_off);
    size_t entry = dd + (size_t)DATADIR_RESOURCE * 8;
    if (nrva <= DATADIR_RESOURCE || optsize < entry + 8) return ETL_OK;
    uint32_t rva = etl_le32(data + opt + entry), rsize = etl_le32(data + opt + entry + 4);
    if (rva == 0 || rsize == 0) return ETL_OK;
    size_t off, avail;
    if (rva_to_offset(pe, rva, &off, &avail))
        return etl_schema_fail(err, ETL_ERR_FORMAT, origin, opt + entry,
                               "resource directory RVA 0x%x is outside every section", rva);
    pe->rsrc_offset = off;
    pe->rsrc_limit = off + avail;
    return ETL_OK;
}

/* Resource names compare ignoring ASCII case, as FindResource does (rc stores them upper-cased, other
 * resource compilers may not); `want` is upper case. */
static int name_matches(const etl_pe_image *pe, uint32_t name_off, const char *want)
{
    size_t p = pe->rsrc_offset + (name_off & ~HIGH_BIT);
    if (p >= pe->rsrc_limit || pe->rsrc_limit - p < 2) return 0;
    uint16_t n = etl_le16(pe->data + p);
    if (n != strlen(want) || (pe->rsrc_limit - p - 2) / 2 < n) return 0;
    for (uint16_t i = 0; i < n; i++) {
        uint16_t c = etl_le16(pe->data + p + 2 + 2u * i);
        if (c >= 'a' && c <= 'z') c = (uint16_t)(c - 'a' + 'A');
        if (c != (unsigned char)want[i]) return 0;
    }
    return 1;
}

/* One directory level: the target of the entry that matches (want_name, or want_id when want_name is
 * NULL; or PICK_LANGUAGE / PICK_FIRST). Returns 0 found, 1 absent, <0 malformed. */
static int dir_lookup(const etl_pe_image *pe, size_t dir, const char *want_name, uint32_t want_id,
                      uint32_t *target, etl_error *err)
{
    if (dir >= pe->rsrc_limit || pe->rsrc_limit - dir < RES_DIR_SIZE)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, pe->origin, dir, "resource directory out of bounds");
    size_t named = etl_le16(pe->data + dir + RES_DIR_NAMED_COUNT);
    size_t ids = etl_le16(pe->data + dir + RES_DIR_ID_COUNT);
    size_t n = named + ids;
    if ((pe->rsrc_limit - dir - RES_DIR_SIZE) / RES_ENTRY_SIZE < n)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, pe->origin, dir, "resource directory has %zu entries "
                               "but the section ends first", n);
    int best_rank = 0;
    for (size_t i = 0; i < n; i++) {
        const uint8_t *e = pe->data + dir + RES_DIR_SIZE + i * RES_ENTRY_SIZE;
        uint32_t name = etl_le32(e), tgt = etl_le32(e + 4);
        int is_named = (name & HIGH_BIT) != 0;
        if (want_id == PICK_LANGUAGE && !want_name) {
            /* en-US, then another English (0x009 "en" in XP-era binaries, 0x809 …), then neutral, then any */
            int rank = is_named ? 1
                     : name == LANG_EN_US ? 5
                     : (name & 0x3FF) == LANG_ENGLISH ? 4
                     : name == 0 ? 3 : 2;
            if (rank > best_rank) { best_rank = rank; *target = tgt; }
        } else if (want_id == PICK_FIRST && !want_name) {
            if (!is_named) { *target = tgt; return 0; }
        } else if (want_name ? (is_named && name_matches(pe, name, want_name)) : (!is_named && name == want_id)) {
            *target = tgt;
            return 0;
        }
    }
    return best_rank ? 0 : 1;
}

int etl_pe_find_resource(const etl_pe_image *pe, const char *type_name, uint32_t type_id, const uint8_t **data,
                         size_t *size, etl_error *err)
{
    if (!pe->rsrc_offset) return 1;
    uint32_t target = 0;
    size_t dir = pe->rsrc_offset;
    /* exactly three levels: a sub-directory flag where a data entry is due (or the reverse) is an error,
     * and a directory that points back to itself or an ancestor is walked at most three times */
    for (int level = 0; level < 3; level++) {
        int rc = level == 0 ? dir_lookup(pe, dir, type_name, type_name ? 0 : type_id, &target, err)
               : level == 1 ? dir_lookup(pe, dir, NULL, 1, &target, err)
                            : dir_lookup(pe, dir, NULL, PICK_LANGUAGE, &target, err);
        /* mc and rc always name the resource 1 (every WEVT_TEMPLATE reader checked expects it); another id
         * is taken rather than losing the manifest, as omerbenamram/evtx reads every name */
        if (level == 1 && rc == 1) rc = dir_lookup(pe, dir, NULL, PICK_FIRST, &target, err);
        if (rc) return rc;
        int is_dir = (target & HIGH_BIT) != 0;
        if (level < 2 && !is_dir)
            return etl_schema_fail(err, ETL_ERR_FORMAT, pe->origin, dir, "resource tree level %d: data entry "
                                   "where a directory is expected", level + 1);
        if (level == 2 && is_dir)
            return etl_schema_fail(err, ETL_ERR_FORMAT, pe->origin, dir, "resource tree deeper than 3 levels");
        dir = pe->rsrc_offset + (target & ~HIGH_BIT);
    }
    if (dir >= pe->rsrc_limit || pe->rsrc_limit - dir < RES_DATA_ENTRY_SIZE)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, pe->origin, dir, "resource data entry out of bounds");
    uint32_t rva = etl_le32(pe->data + dir), len = etl_le32(pe->data + dir + 4);
    size_t off, avail;
    if (rva_to_offset(pe, rva, &off, &avail) || len > avail)
        return etl_schema_fail(err, ETL_ERR_TRUNCATED, pe->origin, dir, "resource data (RVA 0x%x, %u bytes) "
                               "is outside the file", rva, len);
    *data = pe->data + off;
    *size = len;
    return ETL_OK;
}
