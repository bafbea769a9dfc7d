/* libFuzzer target for the whole conversion pipeline (built by `make fuzz`, never by `make check`): the input
 * is an .etl file; every record is decoded (with the schemas the trace itself carries: TraceLogging metadata,
 * EventSource manifests, kernel MOF tables) and written by every output format into a sink that discards the
 * bytes (pcapng included: its packet extraction and journal blocks; EVTX through both of its file paths). The last input byte picks writer options. Seeds: tests/fuzz/seeds.sh reader. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "etl/etl_writer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_WRITERS 16

static char path[64];
static volatile size_t sink_bytes;

static int discard(void *ctx, const void *bytes, size_t length)
{
    (void)ctx;
    if (length && !bytes)
        abort();
    sink_bytes += length;
    return 0;
}

/* EVTX rewrites its file header in place at the end when the sink can take positional writes; without,
 * it spools to a temporary file: the input's last byte picks which path runs. */
static int discard_at(void *ctx, uint64_t offset, const void *bytes, size_t length)
{
    (void)ctx;
    if ((length && !bytes) || offset + length > sink_bytes)
        abort();  /* a positional write must land on bytes already written */
    return 0;
}

typedef struct run {
    etl_decoder *decoder;
    etl_writer *writers[MAX_WRITERS];
    size_t writer_count;
} run;

static int on_event(const etl_event_record *record, void *ctx)
{
    run *r = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(r->decoder, record, &ev) != ETL_OK)
        return 1;
    for (size_t i = 0; i < r->writer_count; i++)
        etl_writer_event(r->writers[i], ev);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_convert-%ld.etl", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    unsigned mode = size ? data[size - 1] : 0;
    const char *paths[1] = {path};
    etl_open_options open_options = {.flags = (mode & 1) ? ETL_OPEN_RAW_TIMESTAMP : 0};
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, paths, 1, &open_options, &err) != ETL_OK)
        return 0;
    etl_schema_registry *registry = etl_schema_registry_new();
    run r = {.decoder = registry ? etl_decoder_new(registry, trace) : NULL};
    if (!r.decoder)
        abort();
    etl_writer_options options = {.raw_timestamps = (mode & 2) != 0, .best_effort = (mode & 4) != 0,
                                  .csv_compat = (mode & 8) != 0, .table_columns = (mode >> 4) & 0x1F,
                                  .pcapng_events = (mode & 0x40) != 0,
                                  .sink_write_at = (mode & 0x80) ? discard_at : NULL};
    etl_sink sink = {discard, NULL};
    for (size_t i = 0; i < etl_writer_format_count() && r.writer_count < MAX_WRITERS; i++) {
        etl_writer *w = etl_writer_new(etl_writer_format_at(i), &sink, &options);
        if (w && etl_writer_begin(w) == 0)
            r.writers[r.writer_count++] = w;
        else
            etl_writer_free(w);
    }
    etl_process(trace, on_event, &r);
    for (size_t i = 0; i < r.writer_count; i++) {
        etl_writer_end(r.writers[i], NULL);
        etl_writer_free(r.writers[i]);
    }
    etl_decoder_free(r.decoder);
    etl_schema_registry_free(registry);
    etl_close(trace);
    return 0;
}
