/* libFuzzer target for compiled schema sets (src/schema/compiled_set.c; built by `make fuzz`, never by
 * `make check`). The input is not a blob but a list of edits to real ones, so the fuzzer starts deep in the
 * format without seeds: the compiled forms of two bundled manifests are made once (the library's own parser
 * and writer), then each input picks one and applies its edits:
 *   byte 0: bit 0 picks the blob, bit 1 reseals it (rewrites the body hash, so the edits reach the structural
 *           checks), bit 2 truncates it to the length in bytes 1-2 (mod its size);
 *   then 4 bytes per edit: u24 offset (mod the blob's size; below 4,096 half the time, where the counts and the
 *           first records are), the byte to XOR there.
 * Whatever reads is registered and every event looked up, as a deferred load does. No seeds needed. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/compiled_set.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned char *blobs[2];
static size_t blob_sizes[2], source_sizes[2];
static uint64_t source_hashes[2];

static void make_blob(int i, const char *path)
{
    unsigned char *xml;
    size_t n;
    etl_error err;
    etl_schema_set set;
    etl_schema_set_init(&set);
    if (etl_schema_read_file(path, ETL_MANIFEST_MAX_BYTES, &xml, &n, &err) != ETL_OK ||
        etl_manifest_parse(&set, (const char *)xml, n, path, &err) != ETL_OK) {
        fprintf(stderr, "fuzz_compiled_set: %s (run from the source tree)\n", err.message);
        abort();
    }
    etl_guid guid = set.providers[0].guid;
    source_sizes[i] = n;
    source_hashes[i] = etl_compiled_source_hash(xml, n);
    if (etl_compiled_set_write(&set, &guid, 1, n, source_hashes[i], &blobs[i], &blob_sizes[i]) != ETL_OK) abort();
    free(xml);
    etl_schema_set_free(&set);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!blobs[0]) {
        make_blob(0, "src/schema/bundled/CSV.man");
        make_blob(1, "src/schema/bundled/ClrEtwRuntimeAdditions.man");
    }
    if (size < 3) return 0;
    const int which = data[0] & 1;
    size_t n = blob_sizes[which];
    if (data[0] & 4) n = ((size_t)data[1] | (size_t)data[2] << 8) % (n + 1);
    unsigned char *blob = malloc(n ? n : 1);   /* exact size: ASan sees any read past it */
    if (!blob) return 0;
    memcpy(blob, blobs[which], n);
    for (size_t i = 3; n && i + 4 <= size; i += 4) {
        size_t at = (size_t)data[i] | (size_t)data[i + 1] << 8 | (size_t)data[i + 2] << 16;
        at %= (data[i + 2] & 0x80) && n > 4096 ? 4096 : n;
        blob[at] ^= data[i + 3];
    }
    if ((data[0] & 2) && n >= 80) {
        uint64_t h = etl_compiled_source_hash(blob + 80, n - 80);
        for (int i = 0; i < 8; i++) blob[32 + i] = (unsigned char)(h >> (8 * i));
    }
    etl_schema_set set;
    etl_schema_set_init(&set);
    etl_error err;
    etl_guid guids[8];
    size_t count;
    etl_compiled_set_guids(blob, n, source_sizes[which], source_hashes[which], guids, 8, &count, "fuzz", &err);
    if (etl_compiled_set_read(&set, blob, n, source_sizes[which], source_hashes[which], "fuzz", &err) == ETL_OK) {
        etl_schema_registry *reg = etl_schema_registry_new();
        if (reg && etl_schema_set_register(&set, reg, ETL_SOURCE_BUNDLED, &err) == ETL_OK)
            for (size_t i = 0; i < set.event_count; i++)
                etl_schema_registry_find(reg, ETL_KEY_MANIFEST, &set.events[i].provider_guid,
                                         set.events[i].descriptor.id, set.events[i].descriptor.version);
        etl_schema_registry_free(reg);
    }
    etl_schema_set_free(&set);
    free(blob);
    return 0;
}
