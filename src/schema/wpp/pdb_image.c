/* -i IMAGE: the PDB a driver or binary names in its CodeView debug record (RSDS: GUID, age, PDB path), looked
 * for beside the image and in the given folders, then read for its TMF annotations (pdb.c). PE layout: the
 * DOS header's e_lfanew → "PE\0\0" → COFF header → optional header (PE32/PE32+) data directory 6 (debug) →
 * IMAGE_DEBUG_DIRECTORY entries of type 2 (CodeView). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "schema/manifest_model.h"
#include "schema/wpp/pdb.h"
#include "util/le.h"

#define MAX_IMAGE_BYTES (512u << 20)

/* File offset of an RVA through the section table; 0 when no section holds it. */
static size_t rva_to_offset(const uint8_t *d, size_t size, size_t sections, unsigned count, uint32_t rva, uint32_t n)
{
    for (unsigned i = 0; i < count; i++) {
        size_t s = sections + 40 * (size_t)i;
        if (s + 40 > size) return 0;
        uint32_t va = etl_le32(d + s + 12), vsize = etl_le32(d + s + 8), raw = etl_le32(d + s + 20),
                 raw_size = etl_le32(d + s + 16);
        uint32_t span = vsize > raw_size ? vsize : raw_size;
        if (rva >= va && (uint64_t)rva + n <= (uint64_t)va + span) {
            uint64_t off = (uint64_t)raw + (rva - va);
            return off + n <= size ? (size_t)off : 0;
        }
    }
    return 0;
}

/* The file name (without folders) of the PDB the image's CodeView record names. */
static int image_pdb_name(const uint8_t *d, size_t size, const char *origin, char *name, size_t cap, etl_error *err)
{
    if (size < 0x40 || d[0] != 'M' || d[1] != 'Z') return etl_schema_fail(err, ETL_ERR_FORMAT, origin, 0, "not a PE image");
    size_t pe = etl_le32(d + 0x3C);
    if (pe > size || size - pe < 24 + 2 || memcmp(d + pe, "PE\0\0", 4) != 0)
        return etl_schema_fail(err, ETL_ERR_FORMAT, origin, 0x3C, "not a PE image (no PE signature)");
    unsigned sections = etl_le16(d + pe + 6);
    size_t opt = pe + 24, opt_size = etl_le16(d + pe + 20);
    uint16_t magic = etl_le16(d + opt);
    size_t dirs = magic == 0x20B ? 112 : magic == 0x10B ? 96 : 0;
    if (!dirs || opt + opt_size > size || dirs + 8 * 7 > opt_size)
        return etl_schema_fail(err, ETL_ERR_FORMAT, origin, opt, "PE optional header without a debug directory");
    uint32_t rva = etl_le32(d + opt + dirs + 8 * 6), dsize = etl_le32(d + opt + dirs + 8 * 6 + 4);
    size_t table = opt + opt_size;
    size_t at = dsize ? rva_to_offset(d, size, table, sections, rva, dsize) : 0;
    for (size_t e = 0; at && e + 28 <= dsize; e += 28) {
        if (etl_le32(d + at + e + 12) != 2) continue;  /* IMAGE_DEBUG_TYPE_CODEVIEW */
        uint32_t n = etl_le32(d + at + e + 16), raw = etl_le32(d + at + e + 24);
        if (n < 25 || raw > size || n > size - raw || memcmp(d + raw, "RSDS", 4) != 0) continue;
        const char *path = (const char *)d + raw + 24;
        size_t len = strnlen(path, n - 24);
        const char *base = path + len;
        while (base > path && base[-1] != '\\' && base[-1] != '/') base--;
        size_t blen = (size_t)(path + len - base);
        if (!blen || blen >= cap) break;
        memcpy(name, base, blen);
        name[blen] = '\0';
        return ETL_OK;
    }
    return etl_schema_fail(err, ETL_ERR_SCHEMA, origin, UINT64_MAX, "no CodeView (RSDS) debug record naming a PDB");
}

int etl_schema_load_image_pdb(etl_schema_registry *registry, const char *image, const char *const *folders,
                              size_t folder_count, etl_error *err, etl_tmf_load_stats *stats)
{
    unsigned char *data;
    size_t size;
    int rc = etl_schema_read_file(image, MAX_IMAGE_BYTES, &data, &size, err);
    if (rc != ETL_OK) return rc;
    char name[256];
    rc = image_pdb_name(data, size, image, name, sizeof name, err);
    free(data);
    if (rc != ETL_OK) return rc;
    char dir[PATH_MAX];
    const char *slash = strrchr(image, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - image) : 1, slash ? image : ".");
    for (size_t i = 0; i <= folder_count; i++) {
        const char *folder = i == 0 ? dir : folders[i - 1];
        char path[PATH_MAX];
        struct stat st;
        if ((size_t)snprintf(path, sizeof path, "%s/%s", folder, name) < sizeof path && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode))
            return etl_schema_load_pdb_path(registry, path, err, stats);
    }
    return etl_schema_fail(err, ETL_ERR_IO, image, UINT64_MAX, "its PDB %s is neither beside it nor in a -pdb folder",
                           name);
}
