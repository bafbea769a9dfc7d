/* The compiled form of a parsed schema set (docs/schemas.md, "Compiled bundled manifests"): what
 * etl_manifest_parse made of a manifest, written once at build time (src/tools/schema_compile.c) and read back
 * by relocating offsets, so that loading a bundled manifest costs a copy instead of an XML parse.
 *
 * A blob is keyed on the exact bytes of the manifest it came from (size + 64-bit hash) and on the format
 * version: it never stands in for an edited manifest. Every count and offset in it is checked against the
 * blob's size before use, and the body carries its own hash; a blob that fails a check is refused with a
 * one-line reason and the caller parses the XML instead. Layout (all little-endian), see compiled_set.c. */
#ifndef ETL_SCHEMA_COMPILED_SET_H
#define ETL_SCHEMA_COMPILED_SET_H

#include <stddef.h>
#include <stdint.h>

#include "schema/manifest_model.h"

/* Bump when the layout, or what the parser puts into a set, changes in a way old blobs do not carry. */
#define ETL_COMPILED_SET_VERSION 1u
/* Largest blob read (the bundled ClrEtwAll.man compiles to about 0.3 MiB). */
#define ETL_COMPILED_SET_MAX_BYTES ((size_t)64 << 20)
/* File name suffix of a compiled manifest: <manifest file name> + this. */
#define ETL_COMPILED_SET_SUFFIX ".etlc"

/* 64-bit hash of a source file's bytes: with its size and the format version, a blob's key. */
uint64_t etl_compiled_source_hash(const unsigned char *data, size_t size);

/* Serialises `set`, parsed from a source of `source_size` bytes hashing to `source_hash`, with the GUIDs the
 * deferred load is keyed on (etl_deferred_scan_guids of the source), into a new malloc'd blob. ETL_OK or
 * ETL_ERR_NOMEM. */
int etl_compiled_set_write(const etl_schema_set *set, const etl_guid *guids, size_t guid_count, size_t source_size,
                           uint64_t source_hash, unsigned char **blob, size_t *blob_size);

/* Fills the empty `set` from `blob` when it is the compiled form of a source of `source_size` bytes hashing to
 * `source_hash`, in this format version. Returns ETL_OK; 1 when the blob is for other bytes or another
 * version (stale: not an error); ETL_ERR_FORMAT (err: "origin: offset 0x..: why") when it is damaged;
 * ETL_ERR_NOMEM. On anything but ETL_OK the set is left empty. */
int etl_compiled_set_read(etl_schema_set *set, const unsigned char *blob, size_t blob_size, size_t source_size,
                          uint64_t source_hash, const char *origin, etl_error *err);

/* The blob's deferral GUIDs (as etl_deferred_scan_guids would find them in the source), on the same terms;
 * 1 also when there are more than `max`. */
int etl_compiled_set_guids(const unsigned char *blob, size_t blob_size, size_t source_size, uint64_t source_hash,
                           etl_guid *out, size_t max, size_t *count, const char *origin, etl_error *err);


/* ---- where compiled bundled manifests live (compiled_bundled.c) ------------------------------------- */

/* The first of `rel` (paths relative to the running program's folder) that is a folder, else `fallback`
 * when that is one (may be NULL). 0 and the path in out, -1 when none is. */
int etl_schema_dir_near_exe(const char *const *rel, size_t n, const char *fallback, char *out, size_t size);

/* A bundled manifest at `path` whose bytes are `data`: fills `set` from its compiled form when one exists
 * for exactly these bytes. ETL_OK when it did; otherwise the set is empty and the caller parses the XML
 * (a damaged compiled file is reported on stderr as a warning). */
int etl_compiled_bundled_load(etl_schema_set *set, const char *path, const unsigned char *data, size_t size);
/* The same for the GUIDs a deferred load of that manifest waits for: ETL_OK with *count set (possibly 0), else
 * the caller scans the manifest. */
int etl_compiled_bundled_guids(const char *path, const unsigned char *data, size_t size, etl_guid *out, size_t max,
                               size_t *count);

#endif
