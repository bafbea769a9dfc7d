/* Test helpers over the corpus copied into testdata/: the census in corpus-MANIFEST.tsv, the header-facts
 * table of corpus-EXPECTED.md §9, gzip loading, and a collecting event callback. */
#ifndef ETL_TESTS_CORPUS_H
#define ETL_TESTS_CORPUS_H

#include <stddef.h>
#include <stdint.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"

typedef struct corpus_trace {
    char file[256];         /* path relative to testdata/, e.g. "perfview/net.4.5.2.x86.etl.gz" */
    char census[512];       /* record_census column, e.g. "EVENT64:19,SYSTEM64:2; providers(by GUID)=1" */
} corpus_trace;

/* Every .etl row of testdata/corpus-MANIFEST.tsv; returns the count (≤ max). */
size_t corpus_traces(corpus_trace *out, size_t max);

/* Count for `kind_name` in a census string, 0 when absent; providers(by GUID) via key "providers". */
uint64_t corpus_census_count(const char *census, const char *kind_name);

/* Reads a whole (possibly gzip-compressed) test file into memory; caller frees. NULL on failure. */
uint8_t *corpus_load(const char *path, size_t *size);

/* Writes bytes to a new temporary file and returns its path in `path` (≥ 64 bytes). 0 on success. */
int corpus_write_temp(const uint8_t *data, size_t size, char *path);

/* Decodes every corpus trace that opens (bundled manifests loaded) and calls on_event for each decoded
 * event; returns the number of traces opened. */
typedef void (*corpus_event_fn)(const etl_decoded_event *event, void *ctx);
size_t corpus_decode_all(corpus_event_fn on_event, void *ctx);

/* Calls on_string with every 1- and 2-byte NUL-terminated string (bytes 1..255): the crafted inputs the
 * escaper and CSV-cell equivalence tests run against their library oracles. */
typedef void (*corpus_string_fn)(const char *text, void *ctx);
void corpus_short_strings(corpus_string_fn on_string, void *ctx);

/* Calls on_string with texts that end at the end of a page followed by an inaccessible one (their NUL is the
 * page's last byte), for the writers' scans that read whole aligned 16-byte blocks: lengths 0..48 (every
 * alignment), plain letters or with one byte that needs work (markup, CSV and table specials, controls,
 * DEL, a UTF-8 lead byte) first, in the middle or last. Returns the number of texts. */
size_t corpus_page_end_strings(corpus_string_fn on_string, void *ctx);

/* Calls on_string with every string of a decoded event a writer can escape (names, display names, message,
 * process name, error, keyword names, the schema's provider and event names, field names and values; NULLs
 * included). */
void corpus_event_strings(const etl_decoded_event *event, corpus_string_fn on_string, void *ctx);

#endif
