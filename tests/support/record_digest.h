/* A digest of what a reader delivered: every record (header fields, payload, extended items, file and buffer
 * offsets) and every diagnostic, in order. Two reads of a trace that differ only in how buffers reach the
 * reader (decompress-ahead, a first pass's hand-over, a memory budget) must give equal digests. */
#ifndef ETL_TESTS_RECORD_DIGEST_H
#define ETL_TESTS_RECORD_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"

typedef struct record_digest {
    uint64_t records, hash, diagnostics;
} record_digest;

void record_digest_init(record_digest *d);
void record_digest_mix(record_digest *d, const void *data, size_t n);
/* etl_event_fn: mixes the record in; ctx is the record_digest. Returns 0. */
int record_digest_record(const etl_event_record *r, void *ctx);
/* etl_diagnostic_fn: mixes the message in. */
void record_digest_diagnostic(const etl_diagnostic *diag, void *ctx);
/* Fails the running cmocka test, naming `file` and `what`, when the digests differ. */
void record_digest_assert_same(const record_digest *a, const record_digest *b, const char *what, const char *file);

#endif
