#include <errno.h>
/* --info: every log-file header field of the first file, then counts over the whole merged trace. */
#include "cli/info.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl.h"

typedef struct info_state {
    etl_guid *providers;
    size_t provider_count, provider_cap;
} info_state;

/* Distinct provider GUIDs of EVENT_HEADER records and class GUIDs of classic FULL/INSTANCE records — the
 * definition of "providers(by GUID)" in corpus/MANIFEST.tsv (kernel group classes and WPP message GUIDs are
 * not counted). Traces carry few distinct GUIDs, so a linear set is enough here. */
static int count_provider(const etl_event_record *rec, void *ctx)
{
    info_state *st = ctx;
    switch (rec->kind) {
    case ETL_KIND_EVENT32: case ETL_KIND_EVENT64: case ETL_KIND_FULL32: case ETL_KIND_FULL64:
    case ETL_KIND_INSTANCE32: case ETL_KIND_INSTANCE64: break;
    default: return 0;
    }
    for (size_t i = st->provider_count; i-- > 0;)
        if (etl_guid_equal(&st->providers[i], &rec->header.provider_id)) return 0;
    if (st->provider_count == st->provider_cap) {
        size_t ncap = st->provider_cap ? st->provider_cap * 2 : 32;
        etl_guid *n = realloc(st->providers, ncap * sizeof *n);
        if (!n) return 1;
        st->providers = n;
        st->provider_cap = ncap;
    }
    st->providers[st->provider_count++] = rec->header.provider_id;
    return 0;
}

static void print_diag(const etl_diagnostic *d, void *ctx)
{
    (void)ctx;
    fprintf(stderr, "etlconv: %s: %s\n", d->severity == ETL_ERROR ? "error" : "warning", d->message);
}

static void print_time(FILE *out, const char *key, int64_t ft)
{
    char buf[64];
    fprintf(out, "%s\t%s\n", key, etl_filetime_format(ft, 7, buf, sizeof buf));
}

static void print_header(FILE *out, const etl_logfile_header *h)
{
    fprintf(out, "BufferSize\t%" PRIu32 "\n", h->buffer_size);
    fprintf(out, "Version\t%" PRIu32 "\n", h->version);
    fprintf(out, "ProviderVersion\t%" PRIu32 "\n", h->provider_version);
    fprintf(out, "NumberOfProcessors\t%" PRIu32 "\n", h->number_of_processors);
    print_time(out, "EndTime", h->end_time);
    fprintf(out, "TimerResolution\t%" PRIu32 "\n", h->timer_resolution);
    fprintf(out, "MaxFileSize\t%" PRIu32 "\n", h->maximum_file_size);
    fprintf(out, "LogFileMode\t0x%" PRIX32 "\n", h->log_file_mode);
    fprintf(out, "BuffersWritten\t%" PRIu32 "\n", h->buffers_written);
    fprintf(out, "StartBuffers\t%" PRIu32 "\n", h->start_buffers);
    fprintf(out, "PointerSize\t%" PRIu32 "\n", h->pointer_size);
    fprintf(out, "EventsLost\t%" PRIu32 "\n", h->events_lost);
    fprintf(out, "CPUSpeed\t%" PRIu32 "\n", h->cpu_speed_mhz);
    print_time(out, "BootTime", h->boot_time);
    fprintf(out, "PerfFreq\t%" PRId64 "\n", h->perf_freq);
    print_time(out, "StartTime", h->start_time);
    fprintf(out, "ReservedFlags\t%" PRIu32 "\n", h->reserved_flags);
    fprintf(out, "BuffersLost\t%" PRIu32 "\n", h->buffers_lost);
    fprintf(out, "SessionName\t%s\n", h->session_name);
    fprintf(out, "LogFileName\t%s\n", h->log_file_name);
    fprintf(out, "UtcOffsetMinutes\t%" PRId32 "\n", etl_logfile_utc_offset_minutes(h));
}

int etlconv_info(int file_count, char **files, FILE *out)
{
    etl_open_options opt = {0, print_diag, NULL};
    etl_trace *t;
    etl_error err;
    if (etl_open(&t, (const char *const *)files, (size_t)file_count, &opt, &err) != ETL_OK) {
        fprintf(stderr, "etlconv: %s\n", err.message);
        return 2;
    }
    info_state st = {0};
    int rc = etl_process(t, count_provider, &st);
    for (size_t i = 0; i < etl_trace_file_count(t); i++) {
        const etl_logfile_header *h = etl_trace_logfile_header(t, i);
        /* a .cab input shows its .etl members as REPORT.cab::NAME.etl */
        if (etl_trace_file_count(t) > 1 || strcmp(etl_trace_file_path(t, i), files[0]) != 0)
            fprintf(out, "file\t%s\n", etl_trace_file_path(t, i));
        if (h) print_header(out, h);
    }
    const etl_trace_stats *s = etl_trace_get_stats(t);
    fprintf(out, "buffers\t%" PRIu64 "\n", s->buffers);
    fprintf(out, "buffers.compressed\t%" PRIu64 "\n", s->buffers_compressed);
    fprintf(out, "events\t%" PRIu64 "\n", s->events);
    for (int k = 0; k < ETL_KIND_COUNT; k++)
        if (s->records_by_kind[k])
            fprintf(out, "records.%s\t%" PRIu64 "\n", etl_header_kind_name((etl_header_kind)k), s->records_by_kind[k]);
    fprintf(out, "providers\t%zu\n", st.provider_count);
    fprintf(out, "events.lost\t%" PRIu64 "\n", s->events_lost);
    fprintf(out, "buffers.lost\t%" PRIu64 "\n", s->buffers_lost);
    fprintf(out, "buffers.flagged_events_lost\t%" PRIu64 "\n", s->buffers_flag_events_lost);
    fprintf(out, "buffers.flagged_buffer_lost\t%" PRIu64 "\n", s->buffers_flag_buffer_lost);
    fprintf(out, "warnings\t%" PRIu64 "\n", s->warnings);
    fprintf(out, "errors\t%" PRIu64 "\n", s->errors);
    int status = (rc != ETL_OK || s->errors) ? 1 : 0;
    if (fflush(out) != 0 || ferror(out)) {  /* a full disk, /dev/full: the description was not written */
        fprintf(stderr, "etlconv: --info: write failed: %s\n", strerror(errno ? errno : EIO));
        status = 2;
    }
    free(st.providers);
    etl_close(t);
    return status;
}
