/* libFuzzer target for the whole-file reader (built by `make fuzz`, never by `make check`).
 *
 * The input is the content of an .etl file. It is written to a temporary file (the reader takes paths), opened,
 * and processed with a callback that reads every byte the record points at, so ASan sees any pointer outside
 * the reader's buffers. If the input's last byte is odd, the file is opened twice as a two-file trace to
 * exercise the merge; if bit 1 of that byte is set, timestamps stay raw; bit 2: a helper thread decompresses
 * ahead (etl_trace_set_prefetch), or with bit 4 and not bit 3 the reading thread itself, at records that
 * find the running checksum odd (etl_trace_prefetch_help, as a waiting -j worker does); bit 3: the streams are read unmerged (etl_process_stream, stopping and
 * resuming every few records, as the first pass's rounds do); bit 4 with it: shared out with a second handle
 * (etl_trace_stream_reader, etl_trace_stream_share) in runs of 1-8 buffers (bits 5-7).
 * Seeds: tests/fuzz/seeds.sh. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];
static volatile uint32_t sink;

static void touch(const uint8_t *p, size_t n)
{
    uint32_t sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += p[i];
    sink += sum;
}

static int on_event(const etl_event_record *r, void *ctx)
{
    etl_trace *helped = ctx;  /* decompress-ahead by the reading thread */
    if (helped && (sink & 1))
        sink += (uint32_t)etl_trace_prefetch_help(helped);
    if (r->user_data_length && !r->user_data)
        abort();
    touch(r->user_data, r->user_data_length);
    touch(r->raw, r->raw_size);
    if (r->extended_data_count > ETL_MAX_EXTENDED_ITEMS)
        abort();
    for (uint16_t i = 0; i < r->extended_data_count; i++)
        touch(r->extended_data[i].data, r->extended_data[i].data_size);
    sink += (uint32_t)r->header.timestamp + r->header.size;
    return 0;
}

static int on_stream_event(const etl_event_record *r, uint64_t position, int header_first, void *ctx)
{
    unsigned *calls = ctx;
    if (++*calls % 7 == 0) return 1;  /* stop: the next etl_process_stream call resumes with this record */
    sink += (uint32_t)position + (uint32_t)header_first;
    return on_event(r, NULL);
}

static void on_diagnostic(const etl_diagnostic *d, void *ctx)
{
    (void)ctx;
    if (!d->message)
        abort();
    sink += (uint32_t)strlen(d->message);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/fuzz_reader-%ld.etl", (long)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size))
        abort();
    fclose(f);
    unsigned mode = size ? data[size - 1] : 0;
    const char *paths[2] = {path, path};
    etl_open_options options = {.flags = (mode & 2) ? ETL_OPEN_RAW_TIMESTAMP : 0, .on_diagnostic = on_diagnostic};
    etl_trace *trace = NULL;
    etl_error err;
    if (etl_open(&trace, paths, (mode & 1) ? 2 : 1, &options, &err) == ETL_OK) {
        int lend = (mode & 4) && (mode & 16) && !(mode & 8);
        if (mode & 4)
            etl_trace_set_prefetch(trace, lend ? 0 : 1);
        if (mode & 8) {
            /* bit 4: the streams shared out between this handle and a stream reader on its files, in runs of
             * (bits 5-7) + 1 buffers, as the first pass on two threads reads them */
            etl_trace *other = (mode & 16) ? etl_trace_stream_reader(trace) : NULL;
            size_t run = ((mode >> 5) & 7) + 1;
            for (size_t i = 0; i < etl_trace_stream_count(trace); i++) {
                if (other && (etl_trace_stream_share(trace, i, run, 0, 2) != ETL_OK ||
                              etl_trace_stream_share(other, i, run, 1, 2) != ETL_OK))
                    abort();
                for (etl_trace *t = trace; t; t = t == trace ? other : NULL) {
                    unsigned calls = 0;
                    while (etl_process_stream(t, i, on_stream_event, &calls) == ETL_STOPPED)
                        calls = 1;
                }
            }
            etl_close(other);
        } else {
            etl_process(trace, on_event, lend ? trace : NULL);
        }
        const etl_trace_stats *stats = etl_trace_get_stats(trace);
        if (stats)
            sink += (uint32_t)stats->events;
        for (size_t i = 0; i < etl_trace_file_count(trace); i++) {
            const etl_logfile_header *h = etl_trace_logfile_header(trace, i);
            if (h)
                sink += (uint32_t)strlen(h->session_name) + (uint32_t)strlen(h->log_file_name);
        }
        etl_close(trace);
    }
    return 0;
}
