/* One EVTX chunk being filled (libevtx documentation "Chunk"; MS-EVEN6): 64 KiB, a 512-byte header with
 * the common string table (64 buckets of element/attribute names) and the template pointer table (32
 * buckets), then event records. Records are built in place after the last one and either committed or
 * rolled back (with the names and templates they introduced) when they do not fit, so the caller can close
 * the chunk and build the record again in a fresh one. Memory: one chunk plus the record being built. */
#ifndef ETL_EVTX_CHUNK_H
#define ETL_EVTX_CHUNK_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"

#define EVTX_FILE_HEADER_BLOCK 4096
#define EVTX_CHUNK_SIZE 65536
#define EVTX_CHUNK_HEADER_SIZE 512
#define EVTX_RECORD_HEADER_SIZE 24

typedef struct evtx_chunk evtx_chunk;

evtx_chunk *evtx_chunk_new(void);
void evtx_chunk_free(evtx_chunk *chunk);

/* Empties the chunk; its first record gets `first_record_id`. */
void evtx_chunk_reset(evtx_chunk *chunk, uint64_t first_record_id);
/* Records committed so far. */
uint64_t evtx_chunk_records(const evtx_chunk *chunk);

/* ---- building one record ---------------------------------------------------------------------------- */

/* Starts a record (id = next in this chunk) written at `filetime`; writes its 24-byte header. */
void evtx_record_begin(evtx_chunk *chunk, int64_t filetime);
/* Finishes it: 0 committed; 1 it does not fit (rolled back: the chunk is as before begin); -1 memory. */
int evtx_record_end(evtx_chunk *chunk);

/* Drops the record being built (the chunk is as before begin). */
void evtx_record_abort(evtx_chunk *chunk);

/* Chunk-relative offset of the next byte written. */
uint32_t evtx_pos(const evtx_chunk *chunk);
void evtx_put(evtx_chunk *chunk, const void *data, size_t length);
void evtx_put_u8(evtx_chunk *chunk, uint8_t v);
void evtx_put_u16(evtx_chunk *chunk, uint16_t v);
void evtx_put_u32(evtx_chunk *chunk, uint32_t v);
void evtx_patch_u16(evtx_chunk *chunk, uint32_t offset, uint16_t v);
void evtx_patch_u32(evtx_chunk *chunk, uint32_t offset, uint32_t v);

/* An element/attribute name reference: its chunk offset, followed by the name itself the first time the
 * chunk uses it (then entered in the common string table). `name` is ASCII. */
void evtx_put_name(evtx_chunk *chunk, const char *name);

/* Templates: a definition is keyed by its layout (any bytes). Returns the offset of the definition, or 0
 * when the chunk has none for that key yet. */
uint32_t evtx_template_find(const evtx_chunk *chunk, const void *key, size_t key_length, uint64_t key_hash);
/* Records a definition written at `offset` (its "next definition" field = the value returned, which the
 * caller writes first: the table bucket's previous head). */
uint32_t evtx_template_bucket_head(const evtx_chunk *chunk, uint32_t template_id);
int evtx_template_add(evtx_chunk *chunk, const void *key, size_t key_length, uint64_t key_hash,
                      uint32_t template_id, uint32_t offset);

/* ---- output ----------------------------------------------------------------------------------------- */

/* Fills the chunk header (record numbers, offsets, both CRC32s) and returns the 64 KiB chunk. The chunk
 * number `number` makes record numbers file-wide. */
const uint8_t *evtx_chunk_finish(evtx_chunk *chunk);

/* The 4096-byte file header block. `dirty`: flag 0x1 (a file still being written). */
void evtx_file_header(uint8_t block[EVTX_FILE_HEADER_BLOCK], uint64_t chunk_count, uint64_t next_record_id,
                      int dirty);

/* Little-endian readers/writers for fixed buffers. */
void evtx_store_u16(uint8_t *p, uint16_t v);
void evtx_store_u32(uint8_t *p, uint32_t v);
void evtx_store_u64(uint8_t *p, uint64_t v);

#endif
