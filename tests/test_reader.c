/* Reader tests over the real corpus: record census, header fields against independent oracles (PerfView
 * baselines, corpus-EXPECTED.md), time order, multi-file merge, raw timestamps, empty/garbage/damaged input. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl.h"
#include "support/corpus.h"

typedef struct collected {
    uint64_t events;
    uint64_t out_of_order;
    uint64_t raw_out_of_order;
    int64_t last_time;
    int64_t last_raw;
    int64_t first_raw_match;   /* FILETIME of the record with raw timestamp `want_raw` */
    int64_t want_raw;
    uint64_t header_records;
    uint64_t count_offset;     /* count the records of the buffer at this file offset (0: none) */
    uint64_t at_offset;
    int first_is_header;
    etl_guid providers[64];
    size_t provider_count;
} collected;

static int is_header_record(const etl_event_record *r)
{
    return (r->kind == ETL_KIND_SYSTEM32 || r->kind == ETL_KIND_SYSTEM64) && r->kernel_group == 0 &&
           r->header.descriptor.opcode == 0;
}

static int collect(const etl_event_record *r, void *ctx)
{
    collected *c = ctx;
    if (c->events == 0) c->first_is_header = is_header_record(r);
    if (is_header_record(r)) c->header_records++;
    if (c->count_offset && r->file_offset == c->count_offset) c->at_offset++;
    if (c->events && r->header.timestamp < c->last_time) c->out_of_order++;
    c->last_time = r->header.timestamp;
    if (c->events && r->raw_timestamp < c->last_raw) c->raw_out_of_order++;
    c->last_raw = r->raw_timestamp;
    if (c->want_raw && r->raw_timestamp == c->want_raw) c->first_raw_match = r->header.timestamp;
    if (r->kind == ETL_KIND_EVENT32 || r->kind == ETL_KIND_EVENT64 || r->kind == ETL_KIND_FULL32 ||
        r->kind == ETL_KIND_FULL64 || r->kind == ETL_KIND_INSTANCE32 || r->kind == ETL_KIND_INSTANCE64) {
        size_t i;
        for (i = 0; i < c->provider_count; i++)
            if (etl_guid_equal(&c->providers[i], &r->header.provider_id)) break;
        if (i == c->provider_count && c->provider_count < 64) c->providers[c->provider_count++] = r->header.provider_id;
    }
    /* Touch every byte the record points at, so ASan sees any pointer outside the buffer. */
    volatile uint8_t sink = 0;
    for (uint16_t k = 0; k < r->user_data_length; k++) sink ^= r->user_data[k];
    for (uint16_t k = 0; k < r->extended_data_count; k++)
        for (uint16_t j = 0; j < r->extended_data[k].data_size; j++) sink ^= r->extended_data[k].data[j];
    (void)sink;
    c->events++;
    return 0;
}

static int open_one(const char *rel, etl_trace **t, unsigned flags)
{
    char path[512];
    snprintf(path, sizeof path, "testdata/%s", rel);
    const char *paths[] = {path};
    etl_open_options opt = {flags, NULL, NULL};
    etl_error err;
    int rc = etl_open(t, paths, 1, &opt, &err);
    if (rc != ETL_OK) print_error("%s\n", err.message);
    return rc;
}

/* Every corpus trace reads to the end with zero errors; per-kind counts equal MANIFEST.tsv's census; the
 * stream is in non-decreasing time order and starts with the log-file header event. */
static void test_census_of_every_trace(void **state)
{
    (void)state;
    corpus_trace traces[64];
    size_t n = corpus_traces(traces, 64);
    assert_true(n >= 30);
    size_t checked = 0;
    for (size_t i = 0; i < n; i++) {
        if (strstr(traces[i].census, "0 bytes")) continue; /* empty.etl: its own test */
        etl_trace *t;
        assert_int_equal(open_one(traces[i].file, &t, 0), ETL_OK);
        collected c = {0};
        assert_int_equal(etl_process(t, collect, &c), ETL_OK);
        const etl_trace_stats *s = etl_trace_get_stats(t);
        uint64_t total = 0;
        for (int k = 0; k < ETL_KIND_COUNT; k++) {
            uint64_t want = corpus_census_count(traces[i].census, etl_header_kind_name((etl_header_kind)k));
            if (s->records_by_kind[k] != want)
                fail_msg("%s: %s: %llu records, census says %llu", traces[i].file,
                         etl_header_kind_name((etl_header_kind)k), (unsigned long long)s->records_by_kind[k],
                         (unsigned long long)want);
            total += want;
        }
        assert_int_equal(s->events, total);
        assert_int_equal(c.events, total);
        assert_int_equal(c.provider_count, corpus_census_count(traces[i].census, "providers"));
        if (s->errors) fail_msg("%s: %llu read errors", traces[i].file, (unsigned long long)s->errors);
        if (c.out_of_order) fail_msg("%s: %llu events out of time order", traces[i].file, (unsigned long long)c.out_of_order);
        assert_true(c.first_is_header);
        etl_close(t);
        checked++;
    }
    print_message("census checked on %zu traces\n", checked);
}

/* Header facts of every trace (corpus-EXPECTED.md §9, measured independently from the files). */
static void test_header_facts_table(void **state)
{
    (void)state;
    FILE *f = fopen("testdata/corpus-EXPECTED.md", "r");
    assert_non_null(f);
    char line[1024];
    int in_table = 0, rows = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "## 9.", 5) == 0) in_table = 1;
        if (!in_table || line[0] != '|' || strstr(line, "| file |") || strstr(line, "|---")) continue;
        char *cols[12] = {0};
        size_t c = 0;
        for (char *p = line + 1, *tok; c < 12 && (tok = strsep(&p, "|")) != NULL;) {
            while (*tok == ' ') tok++;
            size_t l = strlen(tok);
            while (l && (tok[l - 1] == ' ' || tok[l - 1] == '\n')) tok[--l] = '\0';
            cols[c++] = tok;
        }
        if (c < 9 || strcmp(cols[0], "etwanalyzer/empty") == 0) continue;
        char rel[300];
        snprintf(rel, sizeof rel, "%s.etl.gz", cols[0]);
        etl_trace *t;
        assert_int_equal(open_one(rel, &t, 0), ETL_OK);
        collected cc = {0};
        assert_int_equal(etl_process(t, collect, &cc), ETL_OK);
        const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
        assert_non_null(h);
        const char *logger = strcmp(cols[1], "(empty)") == 0 ? "" : cols[1];
        if (strcmp(h->session_name, logger) != 0) fail_msg("%s: logger %s, want %s", rel, h->session_name, logger);
        char start[40], end[40], want_start[40];
        etl_filetime_format(h->start_time, 0, start, sizeof start);
        etl_filetime_format(h->end_time, 0, end, sizeof end);
        /* "2020-02-17 12:48:30 .. 12:50:00" */
        snprintf(want_start, sizeof want_start, "%.10sT%.8sZ", cols[2], cols[2] + 11);
        if (strcmp(start, want_start) != 0) fail_msg("%s: start %s, want %s", rel, start, want_start);
        const char *dots = strstr(cols[2], ".. ");
        assert_non_null(dots);
        if (strncmp(dots + 3, "**none**", 8) == 0) assert_int_equal(h->end_time, 0);
        else if (strncmp(end + 11, dots + 3, 8) != 0) fail_msg("%s: end %s, want %.8s", rel, end, dots + 3);
        assert_int_equal(h->provider_version, strtoul(cols[3], NULL, 10));
        assert_int_equal(h->number_of_processors, strtoul(cols[4], NULL, 10));
        const char *ptr = cols[5][0] == '*' ? cols[5] + 2 : cols[5];
        assert_int_equal(h->pointer_size, strtoul(ptr, NULL, 10));
        const etl_trace_stats *s = etl_trace_get_stats(t);
        assert_int_equal(s->buffers, strtoul(cols[6], NULL, 10));
        assert_int_equal(s->buffers_compressed, strtoul(cols[7], NULL, 10));
        assert_int_equal(h->events_lost, strtoul(cols[8], NULL, 10));
        assert_int_equal(s->events_lost, strtoul(cols[8], NULL, 10));
        etl_close(t);
        rows++;
    }
    fclose(f);
    assert_int_equal(rows, 30);
}

/* Parses "Name=1,234" out of the EventTrace line of a PerfView baseline (digits only, separators dropped). */
static int baseline_field(const char *line, const char *name, char *out, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "; %s=", name);
    const char *p = strstr(line, key);
    if (!p) return -1;
    p += strlen(key);
    size_t n = 0;
    while (*p && *p != ';' && n + 1 < cap) {
        if (*p != ',') out[n++] = *p;
        p++;
    }
    out[n] = '\0';
    return 0;
}

/* PerfView prints DateTime as UTC "yy/MM/dd HH:mm:ss.ffffff", cut to 20 characters + "...". */
static void perfview_time(int64_t ft, char *out, size_t cap)
{
    char iso[48];
    etl_filetime_format(ft, 7, iso, sizeof iso);
    char full[40];
    snprintf(full, sizeof full, "%.2s/%.2s/%.2s %.8s.%.6s", iso + 2, iso + 5, iso + 8, iso + 11, iso + 20);
    snprintf(out, cap, "%.20s...", full);
}

/* Every log-file header field equals the EventTrace line of each PerfView baseline (the header event
 * PerfView decoded with its own parser). net.4.5.x86's baseline belongs to another recording (EXPECTED §2.5). */
static void test_header_matches_perfview_baselines(void **state)
{
    (void)state;
    static const char *const pairs[][2] = {
        {"perfview/primitive-types.etl.gz", "testdata/perfview/primitive-types.baseline.txt"},
        {"perfview/gcevents.PerfViewData.etl.gz", "testdata/perfview/gcevents.baseline.txt"},
        {"perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz", "testdata/perfview/gcrundownevents.baseline.txt"},
        {"perfview/net.4.5.2.x86.etl.gz", "testdata/perfview/net.4.5.2.x86.baseline.txt"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        FILE *f = fopen(pairs[i][1], "r");
        assert_non_null(f);
        char line[4096] = "";
        while (fgets(line, sizeof line, f) && !strstr(line, "Windows Kernel/EventTrace ")) {}
        fclose(f);
        assert_non_null(strstr(line, "Windows Kernel/EventTrace "));
        etl_trace *t;
        assert_int_equal(open_one(pairs[i][0], &t, 0), ETL_OK);
        const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
        assert_non_null(h);
        struct { const char *name; long long value; } nums[] = {
            {"BufferSize", h->buffer_size}, {"Version", h->version}, {"ProviderVersion", h->provider_version},
            {"NumberOfProcessors", h->number_of_processors}, {"TimerResolution", h->timer_resolution},
            {"MaxFileSize", h->maximum_file_size}, {"LogFileMode", h->log_file_mode},
            {"BuffersWritten", h->buffers_written}, {"StartBuffers", h->start_buffers},
            {"PointerSize", h->pointer_size}, {"EventsLost", h->events_lost}, {"CPUSpeed", h->cpu_speed_mhz},
            {"PerfFreq", h->perf_freq}, {"ReservedFlags", h->reserved_flags}, {"BuffersLost", h->buffers_lost},
            {"UtcOffsetMinutes", etl_logfile_utc_offset_minutes(h)}, {"PID", h->process_id}, {"TID", h->thread_id},
        };
        char v[256];
        for (size_t k = 0; k < sizeof nums / sizeof nums[0]; k++) {
            if (strcmp(nums[k].name, "PID") == 0 || strcmp(nums[k].name, "TID") == 0) {
                char key[16];
                snprintf(key, sizeof key, " %s=", nums[k].name);
                const char *p = strstr(line, key);
                assert_non_null(p);
                assert_int_equal(strtoll(p + strlen(key), NULL, 10), nums[k].value);
                continue;
            }
            assert_int_equal(baseline_field(line, nums[k].name, v, sizeof v), 0);
            if (strtoll(v, NULL, 10) != nums[k].value)
                fail_msg("%s: %s=%lld, PerfView says %s", pairs[i][0], nums[k].name, nums[k].value, v);
        }
        struct { const char *name; int64_t ft; } times[] = {
            {"EndTime", h->end_time}, {"BootTime", h->boot_time}, {"StartTime", h->start_time}};
        for (size_t k = 0; k < 3; k++) {
            char mine[48];
            perfview_time(times[k].ft, mine, sizeof mine);
            assert_int_equal(baseline_field(line, times[k].name, v, sizeof v), 0);
            assert_string_equal(mine, v);
        }
        /* Strings: PerfView cuts values longer than 20 characters. */
        struct { const char *name; const char *value; } strs[] = {
            {"SessionName", h->session_name}, {"LogFileName", h->log_file_name}};
        for (size_t k = 0; k < 2; k++) {
            char mine[300];
            if (strlen(strs[k].value) > 20) snprintf(mine, sizeof mine, "%.20s...", strs[k].value);
            else snprintf(mine, sizeof mine, "%s", strs[k].value);
            char key[64];
            snprintf(key, sizeof key, "; %s=", strs[k].name);
            const char *p = strstr(line, key);
            assert_non_null(p);
            p += strlen(key);
            assert_int_equal(strncmp(p, mine, strlen(mine)), 0);
            assert_int_equal(p[strlen(mine)], ';');
        }
        etl_close(t);
    }
}

/* EXPECTED.md §8: AMSITrace's event with raw timestamp 2745536567203 is at 2020-02-17T12:48:57.7518824Z;
 * in raw-timestamp mode the same record keeps its raw value. */
static void test_timestamp_conversion_and_raw_mode(void **state)
{
    (void)state;
    etl_trace *t;
    assert_int_equal(open_one("airbus-cert/AMSITrace.etl.gz", &t, 0), ETL_OK);
    collected c = {0};
    c.want_raw = 2745536567203LL;
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    char buf[48];
    assert_string_equal(etl_filetime_format(c.first_raw_match, 7, buf, sizeof buf), "2020-02-17T12:48:57.7518824Z");
    etl_close(t);

    assert_int_equal(open_one("airbus-cert/AMSITrace.etl.gz", &t, ETL_OPEN_RAW_TIMESTAMP), ETL_OK);
    collected r = {0};
    r.want_raw = 2745536567203LL;
    assert_int_equal(etl_process(t, collect, &r), ETL_OK);
    assert_int_equal(r.first_raw_match, 2745536567203LL);
    assert_int_equal(etl_trace_raw_to_filetime(t, 0, 2745536567203LL), c.first_raw_match);
    etl_close(t);

    /* System-time clock (ReservedFlags 2): CldFlt0 timestamps are FILETIMEs already. */
    assert_int_equal(open_one("s4/CldFlt0-2025-12-21-121418.etl.gz", &t, 0), ETL_OK);
    const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
    assert_int_equal(h->reserved_flags, 2);
    assert_int_equal(etl_trace_raw_to_filetime(t, 0, 133000000000000000LL), 133000000000000000LL);
    etl_close(t);
}

/* EXPECTED.md §6.2: SIH header record PID 6412 / TID 3240, start 10:47:24.3632943Z; last event 10:47:45.7255624Z. */
static void test_sih_times(void **state)
{
    (void)state;
    etl_trace *t;
    assert_int_equal(open_one("s4/SIH.20230422.034724.362.1.etl.gz", &t, 0), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    const etl_logfile_header *h = etl_trace_logfile_header(t, 0);
    assert_int_equal(h->process_id, 6412);
    assert_int_equal(h->thread_id, 3240);
    char buf[48];
    assert_string_equal(etl_filetime_format(h->start_time, 7, buf, sizeof buf), "2023-04-22T10:47:24.3632943Z");
    assert_string_equal(etl_filetime_format(c.last_time, 7, buf, sizeof buf), "2023-04-22T10:47:45.7255624Z");
    etl_close(t);
}

/* The four diaghub files opened as one trace: every record of each file, in one time-ordered stream. */
static void test_diaghub_merge(void **state)
{
    (void)state;
    const char *paths[] = {"testdata/perfview/diaghub.etl.gz", "testdata/perfview/diaghub.kernel.1.etl.gz",
                           "testdata/perfview/diaghub.user_injected.1.etl.gz",
                           "testdata/perfview/diaghub.user_paged.1.etl.gz"};
    uint64_t sum = 0;
    for (size_t i = 0; i < 4; i++) {
        etl_trace *one;
        assert_int_equal(etl_open(&one, &paths[i], 1, NULL, NULL), ETL_OK);
        collected c = {0};
        assert_int_equal(etl_process(one, collect, &c), ETL_OK);
        sum += c.events;
        etl_close(one);
    }
    /* corpus-EXPECTED.md §3: the raw census of the four files adds up to 100,753 records. */
    assert_int_equal(sum, 100753);
    etl_trace *t;
    assert_int_equal(etl_open(&t, paths, 4, NULL, NULL), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    assert_int_equal(c.events, sum);
    assert_int_equal(c.out_of_order, 0);
    /* One recording, one QPC clock (same boot time and frequency in all four headers): the merged stream is
     * in raw order too, although each header anchors the clock a few microseconds differently. */
    assert_int_equal(c.raw_out_of_order, 0);
    assert_true(c.first_is_header);
    assert_int_equal(c.header_records, 4);
    assert_int_equal(etl_trace_file_count(t), 4);
    etl_close(t);
}

static int stop_after_three(const etl_event_record *r, void *ctx)
{
    (void)r;
    return ++*(int *)ctx == 3;
}

static void test_callback_stop_and_single_process(void **state)
{
    (void)state;
    etl_trace *t;
    assert_int_equal(open_one("airbus-cert/AMSITrace.etl.gz", &t, 0), ETL_OK);
    int n = 0;
    assert_int_equal(etl_process(t, stop_after_three, &n), ETL_STOPPED);
    assert_int_equal(n, 3);
    assert_int_equal(etl_process(t, stop_after_three, &n), ETL_ERR_ARG);
    etl_close(t);
}

static void test_no_header_event_option(void **state)
{
    (void)state;
    etl_trace *t;
    assert_int_equal(open_one("airbus-cert/AMSITrace.etl.gz", &t, ETL_OPEN_NO_HEADER_EVENT), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    assert_int_equal(c.header_records, 0);
    assert_int_equal(c.events, 20); /* 21 records minus the header */
    etl_close(t);
}

static void test_empty_missing_and_garbage_files(void **state)
{
    (void)state;
    etl_trace *t = NULL;
    etl_error err;
    const char *empty[] = {"testdata/etwanalyzer/empty.etl"};
    assert_int_equal(etl_open(&t, empty, 1, NULL, &err), ETL_ERR_EMPTY);
    assert_null(t);
    assert_non_null(strstr(err.message, "testdata/etwanalyzer/empty.etl"));
    assert_non_null(strstr(err.message, "empty"));

    const char *missing[] = {"testdata/does-not-exist.etl"};
    assert_int_equal(etl_open(&t, missing, 1, NULL, &err), ETL_ERR_IO);
    assert_non_null(strstr(err.message, "does-not-exist.etl"));

    const char *text[] = {"testdata/s4/waasmedic.20251005_113019_195.etl.stdout"};
    assert_int_equal(etl_open(&t, text, 1, NULL, &err), ETL_ERR_FORMAT);
    assert_non_null(strstr(err.message, "offset 0x0"));
    assert_non_null(strstr(err.message, "not an ETL file"));
}

static int diag_count;
static void count_diag(const etl_diagnostic *d, void *ctx)
{
    (void)ctx;
    assert_non_null(strstr(d->message, "offset 0x"));
    diag_count++;
}

/* Damaged copies of real traces: truncated at many lengths and with flipped bits. The reader must
 * terminate without a crash (this test is what `make sanitize` runs under ASan+UBSan), and what it reads
 * from a truncated file is a prefix-consistent subset. */
static void damage_one(const char *rel, unsigned flips)
{
    char src[512];
    snprintf(src, sizeof src, "testdata/%s", rel);
    size_t size = 0;
    uint8_t *orig = corpus_load(src, &size);
    assert_non_null(orig);
    uint8_t *copy = malloc(size);
    assert_non_null(copy);
    char path[64];
    etl_open_options opt = {0, count_diag, NULL};
    /* Truncations: every 8 KiB boundary ± a few bytes, plus odd lengths near the start. */
    for (size_t cut = 1; cut < size; cut = cut < 600 ? cut * 2 + 7 : cut + 4093) {
        assert_int_equal(corpus_write_temp(orig, cut, path), 0);
        etl_trace *t;
        const char *paths[] = {path};
        if (etl_open(&t, paths, 1, &opt, NULL) == ETL_OK) {
            collected c = {0};
            etl_process(t, collect, &c);
            etl_close(t);
        }
        unlink(path);
    }
    /* Bit flips and random bytes at pseudo-random places (fixed seed: reproducible). */
    uint32_t seed = 12345;
    for (unsigned i = 0; i < flips; i++) {
        memcpy(copy, orig, size);
        for (int k = 0; k < 4; k++) {
            seed = seed * 1103515245u + 12345u;
            size_t at = (seed >> 3) % size;
            seed = seed * 1103515245u + 12345u;
            if (k & 1) copy[at] ^= (uint8_t)(1u << (seed % 8));
            else copy[at] = (uint8_t)(seed >> 16);
        }
        assert_int_equal(corpus_write_temp(copy, size, path), 0);
        etl_trace *t;
        const char *paths[] = {path};
        if (etl_open(&t, paths, 1, &opt, NULL) == ETL_OK) {
            collected c = {0};
            etl_process(t, collect, &c);
            etl_close(t);
        }
        unlink(path);
    }
    free(copy);
    free(orig);
}

static void test_damaged_copies_never_crash(void **state)
{
    (void)state;
    damage_one("airbus-cert/lxcore_kernel.etl.gz", 300);
    damage_one("perfview/smallEtlFile.etl.gz", 300);
    damage_one("perfview/SelfDescribingSingleEvent.etl.gz", 300);
    damage_one("s4/CldFlt0-2025-12-21-121418.etl.gz", 300);
    damage_one("perfview/primitive-types.etl.gz", 300);
    damage_one("demikernel/PktMon.etl.gz", 100);
    print_message("diagnostics reported on damaged input: %d\n", diag_count);
    assert_true(diag_count > 0);
}

/* A truncated copy still delivers the records of the complete buffers before the cut, and names the file
 * and offset of the damage. */
static void test_truncated_file_keeps_complete_buffers(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *orig = corpus_load("testdata/airbus-cert/ShutdownPerfDiagLogger.etl.gz", &size);
    assert_non_null(orig);
    char path[64];
    size_t cut = 10 * 65536 + 1000; /* inside the 11th of 49 buffers */
    assert_int_equal(corpus_write_temp(orig, cut, path), 0);
    free(orig);
    etl_trace *t;
    const char *paths[] = {path};
    diag_count = 0;
    etl_open_options opt = {0, count_diag, NULL};
    assert_int_equal(etl_open(&t, paths, 1, &opt, NULL), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    const etl_trace_stats *s = etl_trace_get_stats(t);
    assert_int_equal(s->buffers, 11);
    assert_true(c.events > 1000);
    assert_true(s->warnings + s->errors >= 1);
    assert_int_equal(c.out_of_order, 0);
    etl_close(t);
    unlink(path);
}

/* Zeros where a buffer should start: a hole inside the file is skipped with an error naming its offset and
 * the buffers after it are still read; a zero-filled tail (preallocated file) gives a warning. */
static void test_zero_filled_hole_and_tail(void **state)
{
    (void)state;
    size_t size = 0;
    uint8_t *orig = corpus_load("testdata/perfview/primitive-types.etl.gz", &size);
    assert_non_null(orig);
    assert_int_equal(size, 2 * 8192); /* two 8 KiB buffers (corpus-EXPECTED.md §9) */
    uint8_t *hole = calloc(1, size + 8192 + 20000);
    assert_non_null(hole);
    memcpy(hole, orig, 8192);
    memcpy(hole + 16384, orig + 8192, 8192);  /* buffer 0, 8 KiB of zeros, buffer 1 */
    char path[64];
    assert_int_equal(corpus_write_temp(hole, size + 8192, path), 0);
    etl_trace *t;
    const char *paths[] = {path};
    diag_count = 0;
    etl_open_options opt = {0, count_diag, NULL};
    assert_int_equal(etl_open(&t, paths, 1, &opt, NULL), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    assert_int_equal(c.events, 7); /* all records of the census (EVENT64:5, SYSTEM64:2) */
    assert_int_equal(etl_trace_get_stats(t)->errors, 1);
    etl_close(t);
    unlink(path);

    /* A zeroed sector over a buffer header (found by fuzzing: the walk must still advance): lxcore_kernel has
     * three 8 KiB buffers; with the second one's first 512 bytes zeroed, that buffer is skipped with one error and
     * the third is still read. */
    {
        size_t lx_size = 0;
        uint8_t *lx = corpus_load("testdata/airbus-cert/lxcore_kernel.etl.gz", &lx_size);
        assert_non_null(lx);
        assert_int_equal(lx_size, 3 * 8192);
        char lpath[64];
        const char *lpaths[] = {lpath};
        uint64_t in_second = 0, total = 0;
        assert_int_equal(corpus_write_temp(lx, lx_size, lpath), 0);
        assert_int_equal(etl_open(&t, lpaths, 1, NULL, NULL), ETL_OK);
        collected all = {0};
        all.count_offset = 8192;
        assert_int_equal(etl_process(t, collect, &all), ETL_OK);
        total = all.events;
        in_second = all.at_offset;
        etl_close(t);
        unlink(lpath);
        memset(lx + 8192, 0, 512);
        assert_int_equal(corpus_write_temp(lx, lx_size, lpath), 0);
        assert_int_equal(etl_open(&t, lpaths, 1, &opt, NULL), ETL_OK);
        collected e = {0};
        assert_int_equal(etl_process(t, collect, &e), ETL_OK);
        assert_int_equal(total, 4); /* census: EVENT64:2, SYSTEM64:2 */
        assert_true(in_second > 0 && in_second < total);
        assert_int_equal(e.events, total - in_second);
        assert_int_equal(etl_trace_get_stats(t)->errors, 1);
        etl_close(t);
        unlink(lpath);
        free(lx);
    }

    memcpy(hole + 8192, orig + 8192, 8192);    /* both buffers, then a 20,000-byte zero tail */
    memset(hole + 16384, 0, 8192 + 20000);
    assert_int_equal(corpus_write_temp(hole, size + 20000, path), 0);
    assert_int_equal(etl_open(&t, paths, 1, &opt, NULL), ETL_OK);
    collected d = {0};
    assert_int_equal(etl_process(t, collect, &d), ETL_OK);
    assert_int_equal(d.events, 7);
    assert_int_equal(etl_trace_get_stats(t)->errors, 0);
    assert_int_equal(etl_trace_get_stats(t)->warnings, 1);
    etl_close(t);
    unlink(path);
    free(hole);
    free(orig);
}

/* CldFlt2 was copied while its session was running (EndTime 0, BuffersWritten 0): read, with a warning. */
static void test_live_file_warning(void **state)
{
    (void)state;
    etl_trace *t;
    diag_count = 0;
    const char *paths[] = {"testdata/s4/CldFlt2-2025-12-21-121418.etl.gz"};
    etl_open_options opt = {0, count_diag, NULL};
    assert_int_equal(etl_open(&t, paths, 1, &opt, NULL), ETL_OK);
    collected c = {0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    assert_int_equal(c.events, 2);
    assert_int_equal(etl_trace_get_stats(t)->warnings, 1);
    assert_int_equal(etl_trace_get_stats(t)->errors, 0);
    assert_int_equal(diag_count, 1);
    etl_close(t);
}

int main(void)
{
    alarm(300); /* a reader that stops advancing must fail the test run, not hang it */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_census_of_every_trace),
        cmocka_unit_test(test_header_facts_table),
        cmocka_unit_test(test_header_matches_perfview_baselines),
        cmocka_unit_test(test_timestamp_conversion_and_raw_mode),
        cmocka_unit_test(test_sih_times),
        cmocka_unit_test(test_diaghub_merge),
        cmocka_unit_test(test_callback_stop_and_single_process),
        cmocka_unit_test(test_no_header_event_option),
        cmocka_unit_test(test_empty_missing_and_garbage_files),
        cmocka_unit_test(test_damaged_copies_never_crash),
        cmocka_unit_test(test_truncated_file_keeps_complete_buffers),
        cmocka_unit_test(test_zero_filled_hole_and_tail),
        cmocka_unit_test(test_live_file_warning),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
