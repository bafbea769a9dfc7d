/* libFuzzer target for .cab inputs (built by `make fuzz`, never by `make check`): the input is written as a
 * file and opened with etl_open, which lists its .etl members with libmspack, extracts each into a temporary
 * file within the bounds of reader/input_cab.h and reads the traces; every record is decoded. Seeds:
 * tests/fuzz/seeds.sh cab (cabinets built with gcab around corpus traces, stored and MSZIP). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

static int on_event(const etl_event_record *record, void *ctx)
{
    const etl_decoded_event *ev;
    return etl_decode_event(ctx, record, &ev) != ETL_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_cab-%ld.cab", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) abort();
    fclose(f);
    const char *paths[1] = {path};
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) return 0;
    etl_schema_registry *registry = etl_schema_registry_new();
    etl_decoder *decoder = registry ? etl_decoder_new(registry, trace) : NULL;
    if (!decoder) abort();
    etl_process(trace, on_event, decoder);
    etl_decoder_free(decoder);
    etl_schema_registry_free(registry);
    etl_close(trace);
    return 0;
}
