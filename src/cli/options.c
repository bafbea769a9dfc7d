/* Command-line parsing. tracerpt spells its options with one dash (-of, -summary, -rts); GNU long
 * options use two and may carry "=VALUE". Both spellings fill the same etlconv_options. */
#include "options.h"
#include "options_diff.h"
#include "options_tracerpt.h"
#include "options_wpp.h"
#include "options_typed.h"
#include "pipeline/compress.h"
#include "suffix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define FILETIME_TICKS_PER_SECOND 10000000LL

static int fail(const char *fmt, const char *arg)
{
    fprintf(stderr, "etlconv: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (try 'etlconv --help')\n");
    return ETLCONV_EXIT_FAILURE;
}

static int push(char ***list, size_t *count, char *item)
{
    char **p = realloc(*list, (*count + 1) * sizeof **list);
    if (!p) return -1;
    p[(*count)++] = item;
    *list = p;
    return 0;
}

static int push_u32(uint32_t **list, size_t *count, uint32_t v)
{
    uint32_t *p = realloc(*list, (*count + 1) * sizeof **list);
    if (!p) return -1;
    p[(*count)++] = v;
    *list = p;
    return 0;
}

static int parse_u64(const char *text, uint64_t *out)
{
    char *end;
    errno = 0;
    if (!text || !*text || *text == '-') return -1;
    unsigned long long v = strtoull(text, &end, 0);  /* decimal, or 0x... hex */
    if (errno || *end) return -1;
    *out = v;
    return 0;
}

/* "1,2,0x10" → appended to the list. */
static int parse_u32_list(const char *text, uint32_t **list, size_t *count)
{
    char buf[64];
    while (text && *text) {
        const char *comma = strchr(text, ',');
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        uint64_t v;
        if (len == 0 || len >= sizeof buf) return -1;
        memcpy(buf, text, len);
        buf[len] = '\0';
        if (parse_u64(buf, &v) != 0 || v > UINT32_MAX || push_u32(list, count, (uint32_t)v) != 0) return -1;
        text = comma ? comma + 1 : NULL;
    }
    return 0;
}

/* Days from 1601-01-01 to the civil date (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 584694;  /* 584694: 1601-01-01 counted from 0000-03-01 */
}

/* "2023-03-29T12:33:05.6210169Z", "...+02:00", "2023-03-29 12:33:05" (UTC) → FILETIME; or a plain number
 * of seconds → relative. */
static int parse_time(const char *text, int64_t *out, int *relative)
{
    char *end;
    errno = 0;
    double secs = strtod(text, &end);
    if (!errno && *text && !*end && secs >= 0) {
        *relative = 1;
        *out = (int64_t)(secs * FILETIME_TICKS_PER_SECOND + 0.5);
        return 0;
    }
    int y, mo, d, h = 0, mi = 0, s = 0, n = 0;
    if (sscanf(text, "%4d-%2d-%2d%n", &y, &mo, &d, &n) != 3 || mo < 1 || mo > 12 || d < 1 || d > 31) return -1;
    const char *p = text + n;
    if (*p == 'T' || *p == ' ') {
        int k = 0;
        if (sscanf(p + 1, "%2d:%2d:%2d%n", &h, &mi, &s, &k) != 3 || h > 23 || mi > 59 || s > 60) return -1;
        p += 1 + k;
    }
    int64_t frac = 0;
    if (*p == '.') {
        int digits = 0;
        for (p++; *p >= '0' && *p <= '9'; p++, digits++)
            if (digits < 7) frac = frac * 10 + (*p - '0');
        if (digits == 0) return -1;
        for (; digits < 7; digits++) frac *= 10;
    }
    int64_t offset = 0;
    if (*p == 'Z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int oh, om, k = 0;
        if (sscanf(p + 1, "%2d:%2d%n", &oh, &om, &k) != 2 || oh > 14 || om > 59) return -1;
        offset = (p[0] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
        p += 1 + k;
    }
    if (*p) return -1;
    int64_t t = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 + s - offset;
    if (t < 0) return -1;
    *relative = 0;
    *out = t * FILETIME_TICKS_PER_SECOND + frac;
    return 0;
}

static int parse_columns(const char *text, unsigned *out)
{
    static const struct { const char *name; unsigned bit; } names[] = {
        {"time", ETL_TABLE_TIME}, {"pid", ETL_TABLE_PID}, {"tid", ETL_TABLE_TID}, {"cpu", ETL_TABLE_CPU},
        {"provider", ETL_TABLE_PROVIDER}, {"none", 0}, {"default", ETL_TABLE_DEFAULT},
    };
    unsigned bits = 0;
    while (text && *text) {
        const char *comma = strchr(text, ',');
        size_t len = comma ? (size_t)(comma - text) : strlen(text);
        size_t i;
        for (i = 0; i < sizeof names / sizeof names[0]; i++)
            if (strlen(names[i].name) == len && strncasecmp(names[i].name, text, len) == 0) break;
        if (i == sizeof names / sizeof names[0]) return -1;
        bits |= names[i].bit;
        text = comma ? comma + 1 : NULL;
    }
    *out = bits;
    return 0;
}

/* Is `arg` spelled as one of the '|'-separated option names? Returns a pointer to an attached "=VALUE"
 * (or to "" when none), NULL when it does not match. */
static const char *match(const char *arg, const char *names)
{
    while (names && *names) {
        const char *bar = strchr(names, '|');
        size_t len = bar ? (size_t)(bar - names) : strlen(names);
        if (strncmp(arg, names, len) == 0) {
            if (arg[len] == '\0') return arg + len;
            if (arg[len] == '=' && names[0] == '-' && names[1] == '-') return arg + len + 1;
        }
        names = bar ? bar + 1 : NULL;
    }
    return NULL;
}

static int looks_like_trace(const char *arg)
{
    size_t n = strlen(arg);
    return (n >= 4 && strcasecmp(arg + n - 4, ".etl") == 0) || (n >= 7 && strcasecmp(arg + n - 7, ".etl.gz") == 0);
}

/* Without -of, "-o trace.csv" (or .jsonl, .json, .txt, .xml, each optionally + ".gz" or ".zst") picks the format. */
static void infer_format(etlconv_options *o)
{
    static const struct { const char *suffix; const char *format; } by_suffix[] = {
        {".csv", "csv"}, {".jsonl", "jsonl"}, {".json", "jsonl"}, {".txt", "table"}, {".tsv", "table"},
        {".xml", "xml"},
        {".pcapng", "pcapng"},
        {".evtx", "evtx"},
    };
    size_t n = strlen(o->output);
    if (n > 3 && strcasecmp(o->output + n - 3, ".gz") == 0) n -= 3;
    else if (n > 4 && strcasecmp(o->output + n - 4, ".zst") == 0) n -= 4;
    for (size_t i = 0; i < sizeof by_suffix / sizeof by_suffix[0]; i++) {
        size_t k = strlen(by_suffix[i].suffix);
        if (n > k && strncasecmp(o->output + n - k, by_suffix[i].suffix, k) == 0) {
            o->format = etl_writer_format_find(by_suffix[i].format);
            return;
        }
    }
}

int etlconv_parse_options(int argc, char **argv, etlconv_options *o)
{
    memset(o, 0, sizeof *o);
    o->format = etl_writer_format_find("xml");
    o->writer.table_columns = ETL_TABLE_DEFAULT;
    o->filters.level = -1;
    int only_files = 0, format_given = 0, typed_status = 0;
    char ***collect = &o->inputs;  /* where bare words go: inputs, or -import/-l lists */
    size_t *collect_count = &o->input_count;

    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        const char *v;
#define VALUE(name)                                                                                          \
    do {                                                                                                     \
        if (*v == '\0' && etlconv_required_value(argc, argv, &i, name, &v) != 0)                             \
            return ETLCONV_EXIT_FAILURE; /* never swallows the next option */                                \
    } while (0)
        if (only_files || a[0] != '-' || a[1] == '\0') {
            if (collect == &o->imports && looks_like_trace(a)) {  /* "-import x.man trace.etl" */
                collect = &o->inputs;
                collect_count = &o->input_count;
            }
            if (push(collect, collect_count, a) != 0) return fail("%s", "out of memory");
            continue;
        }
        collect = &o->inputs;
        collect_count = &o->input_count;
        if (strcmp(a, "--") == 0) {
            only_files = 1;
        } else if ((v = match(a, "-h|-?|--help"))) {
            o->mode = MODE_HELP;
        } else if ((v = match(a, "--version|-version"))) {
            o->mode = MODE_VERSION;
        } else if ((v = match(a, "--info|-info"))) {
            o->mode = MODE_INFO;
        } else if ((v = match(a, "-o|--output"))) {
            if (*v == '\0' && etlconv_optional_value(argc, argv, &i, &v) != 0) return ETLCONV_EXIT_FAILURE;
            o->output = v && *v ? v : NULL;
            o->output_default = !o->output;  /* tracerpt: "-o" alone is dumpfile.EXT */
        } else if ((v = match(a, "-of|--format"))) {
            VALUE(a);
            format_given = 1;
            char plain[16];  /* "-of csv.gz": compressed output */
            size_t vlen = strlen(v);
            if (vlen > 3 && vlen < sizeof plain && strcasecmp(v + vlen - 3, ".gz") == 0) {
                snprintf(plain, sizeof plain, "%.*s", (int)(vlen - 3), v);
                o->gzip_output = 1;
                v = plain;
            }
            o->format = etl_writer_format_find(v);
            if (!o->format || strcmp(o->format->name, "summary") == 0) {
                if (o->format) {
                    o->summary_only = 1;
                    o->format = etl_writer_format_find("xml");
                    continue;
                }
                return fail("unknown format '%s' (XML, CSV, TABLE, JSON or SUMMARY)", v);
            }
        } else if ((v = match(a, "-summary|--summary"))) {
            o->summary = 1;
            if (*v)
                o->summary_file = v;
            else if (a[1] != '-' && i + 1 < argc && argv[i + 1][0] != '-' && !looks_like_trace(argv[i + 1]))
                o->summary_file = argv[++i];
        } else if ((v = match(a, "-y|--yes|--overwrite"))) {
            o->overwrite = 1;
        } else if ((v = match(a, "-rts|--raw-timestamps"))) {
            o->writer.raw_timestamps = 1;
        } else if ((v = match(a, "-lr|--best-effort"))) {
            o->writer.best_effort = 1;
        } else if ((v = match(a, "-gmt|--utc"))) {
            o->writer.local_time = 0;
        } else if ((v = match(a, "--local"))) {
            o->writer.local_time = 1;
        } else if ((v = match(a, "--csv-compat"))) {
            o->writer.csv_compat = 1;
        } else if ((v = match(a, "--columns"))) {
            VALUE(a);
            if (parse_columns(v, &o->writer.table_columns) != 0)
                return fail("bad --columns '%s' (time,pid,tid,cpu,provider or none)", v);
        } else if ((v = match(a, "-import|--import|--manifest"))) {
            if (*v) {
                if (push(&o->imports, &o->import_count, (char *)v) != 0) return fail("%s", "out of memory");
            } else if (a[1] == '-') {
                VALUE(a);
                if (push(&o->imports, &o->import_count, (char *)v) != 0) return fail("%s", "out of memory");
            } else {
                collect = &o->imports;  /* tracerpt: -import FILE [FILE ...] */
                collect_count = &o->import_count;
                if (i + 1 >= argc || argv[i + 1][0] == '-') return fail("option %s needs a value", a);
            }
        } else if ((v = match(a, "-l"))) {
            /* tracerpt's optional input marker: the following words are inputs */
        } else if ((v = match(a, "-export|--export"))) {
            if (*v == '\0' && etlconv_optional_value(argc, argv, &i, &v) != 0) return ETLCONV_EXIT_FAILURE;
            o->export_file = v && *v ? v : "schema.man";  /* tracerpt's default name */
        } else if ((v = match(a, "-en"))) {
            VALUE(a);  /* tracerpt's CSV encoding switch: output is always UTF-8 here */
            if (strcasecmp(v, "ANSI") != 0 && strcasecmp(v, "Unicode") != 0)
                return fail("bad -en '%s' (ANSI or Unicode)", v);
            if (strcasecmp(v, "Unicode") == 0)
                fprintf(stderr, "etlconv: warning: -en Unicode ignored: output is UTF-8\n");
        } else if ((v = match(a, "--each"))) {
            o->each = 1;
        } else if ((v = match(a, "-q|--quiet"))) {
            o->quiet = 1;
        } else if ((v = match(a, "--progress"))) {
            o->progress = 1;
        } else if ((v = match(a, "--no-bundled-schemas"))) {
            o->no_bundled = 1;
        } else if ((v = match(a, "--no-trace-schemas"))) {
            o->no_trace_schemas = 1;
        } else if ((v = match(a, "--one-pass"))) {
            o->one_pass = 1;
        } else if ((v = match(a, "--provider"))) {
            VALUE(a);
            if (push(&o->filters.providers, &o->filters.provider_count, (char *)v) != 0)
                return fail("%s", "out of memory");
        } else if ((v = match(a, "--event|--id"))) {
            VALUE(a);
            if (parse_u32_list(v, &o->filters.event_ids, &o->filters.event_id_count) != 0)
                return fail("bad event id list '%s'", v);
        } else if ((v = match(a, "--pid"))) {
            VALUE(a);
            if (parse_u32_list(v, &o->filters.pids, &o->filters.pid_count) != 0) return fail("bad --pid '%s'", v);
        } else if ((v = match(a, "--tid"))) {
            VALUE(a);
            if (parse_u32_list(v, &o->filters.tids, &o->filters.tid_count) != 0) return fail("bad --tid '%s'", v);
        } else if ((v = match(a, "--level"))) {
            VALUE(a);
            uint64_t level;
            if (parse_u64(v, &level) != 0 || level > 255) return fail("bad --level '%s' (0..255)", v);
            o->filters.level = (int)level;
        } else if ((v = match(a, "--keywords|--keyword"))) {
            VALUE(a);
            if (parse_u64(v, &o->filters.keywords) != 0) return fail("bad --keywords mask '%s'", v);
        } else if ((v = match(a, "--from"))) {
            VALUE(a);
            if (parse_time(v, &o->filters.from, &o->filters.from_relative) != 0)
                return fail("bad --from '%s' (ISO time or seconds from trace start)", v);
            o->filters.has_from = 1;
        } else if ((v = match(a, "--to"))) {
            VALUE(a);
            if (parse_time(v, &o->filters.to, &o->filters.to_relative) != 0)
                return fail("bad --to '%s' (ISO time or seconds from trace start)", v);
            o->filters.has_to = 1;
            /* -- issue 12 (tracerpt) options below; keep this line -- */
        } else if (etlconv_tracerpt_option_name(a)) {
            if (etlconv_tracerpt_option(argc, argv, &i, o) != 0) return ETLCONV_EXIT_FAILURE;
            /* -- issue 13 (diff) options below; keep this line -- */
        } else if (etlconv_diff_option(argc, argv, &i, o)) {
            if (o->diff.failed) return ETLCONV_EXIT_FAILURE;
            /* -- issue 14 (perf) options below; keep this line -- */
        } else if ((v = match(a, "-j|--threads")) || (a[1] == 'j' && a[2] >= '0' && a[2] <= '9' && (v = a + 2))) {
            VALUE(a);  /* -j N, -jN, --threads N, --threads=N */
            uint64_t n;
            if (parse_u64(v, &n) != 0 || n < 1 || n > 256) return fail("bad -j '%s' (1..256 threads)", v);
            o->threads = (unsigned)n;
        } else if ((v = match(a, "--compress-level"))) {
            VALUE(a);
            uint64_t n;
            if (parse_u64(v, &n) != 0 || n < 1 || n > 19) return fail("bad --compress-level '%s' (gzip 1..12, zstd 1..19)", v);
            o->compress_level = (int)n;
            /* -- issue 15 (typed) options below; keep this line -- */
        } else if (etlconv_parse_typed_option(argc, argv, &i, o, &typed_status)) {
            if (typed_status) return typed_status;
            /* -- issue 16 (evtx) options below; keep this line -- */
            /* -- issue 17 (net) options below; keep this line -- */
        } else if ((v = match(a, "--pcapng-events"))) {
            o->writer.pcapng_events = 1;
        } else if ((v = match(a, "--activity"))) {
            VALUE(a);
            if (etl_guid_parse(v, &o->activity) != 0) return fail("bad --activity '%s' (a GUID)", v);
            o->activity_given = 1;
        } else if ((v = match(a, "--group"))) {
            VALUE(a);
            if (strcasecmp(v, "activity") != 0) return fail("bad --group '%s' (only 'activity')", v);
            o->group_activity = 1;
            /* -- issue 18 (wpp) options below; keep this line -- */
        } else if ((v = match(a, "-tmf|-tp|--tmf|--tmf-path|-pdb|--pdb|-i|--image"))) {
            VALUE(a);
            if (etlconv_wpp_option(o, a, v) != 0) return fail("%s", "out of memory");
        } else {
            return fail("unknown option '%s'", a);
        }
#undef VALUE
    }
    if (o->mode != MODE_CONVERT) return 0;
    if (!format_given && o->output && !o->each) infer_format(o);
    if (etlconv_finish_typed_options(o) != 0) return ETLCONV_EXIT_FAILURE;
    if (o->input_count == 0) return fail("%s", "no input file");
    if (o->each && !o->output) return fail("%s", "--each needs -o DIR");
    if (o->each && o->summary_file) return fail("%s", "--each writes one summary per input; give -summary no file");
    if (o->compress_level > ETL_GZIP_MAX_LEVEL && (o->gzip_output || (o->output && etlconv_has_suffix(o->output, ".gz"))))
        return fail("%s", "--compress-level above 12 is for zstd; gzip takes 1..12");
    _Static_assert(ETL_GZIP_MAX_LEVEL == 12, "the message above names gzip's levels");
    o->filters.provider_guids = calloc(o->filters.provider_count + 1, sizeof *o->filters.provider_guids);
    if (!o->filters.provider_guids) return fail("%s", "out of memory");
    for (size_t k = 0; k < o->filters.provider_count; k++)
        etl_guid_parse(o->filters.providers[k], &o->filters.provider_guids[k]);
    return 0;
}

void etlconv_free_options(etlconv_options *o)
{
    free(o->inputs);
    free(o->imports);
    free(o->filters.providers);
    free(o->filters.provider_guids);
    free(o->filters.event_ids);
    free(o->filters.pids);
    free(o->filters.tids);
    etlconv_wpp_free_options(o);
    memset(o, 0, sizeof *o);
}

void etlconv_print_help(FILE *out)
{
    fputs("Usage: etlconv [OPTIONS] FILE.etl[.gz]...\n"
          "Convert Windows ETW trace files to XML (tracerpt's dumpfile layout), CSV, a text table, JSON Lines\n"
          "or a summary. Several files are merged in time order. Output goes to stdout unless -o is given.\n"
          "\n"
          "Output:\n"
          "  -o, --output FILE       write FILE atomically (FILE.gz: gzip); refuses to overwrite without -y\n"
          "  -of, --format FMT       XML (default), CSV, TABLE, JSON (JSON Lines) or SUMMARY; without it\n"
          "                          -o NAME.csv/.jsonl/.json/.txt/.tsv/.xml[.gz] picks the format\n"
          "  -summary [FILE]         tracerpt's summary.txt form (stdout when no FILE and no -o)\n"
          "  -y, --yes               overwrite existing output files\n"
          "  --each                  one output per input: -o DIR/ receives DIR/NAME.xml etc.\n"
          "  --csv-compat            CSV exactly as tracerpt writes it (\", \" separators, padded, unquoted)\n"
          "  --columns LIST          table columns before the event name: time,pid,tid,cpu,provider or none\n"
          "                          (default time,pid,tid,provider)\n"
          "  --local                 times in this machine's local time with its UTC offset (default UTC)\n"
          "  -gmt, --utc             times in UTC (the default)\n"
          "  -rts, --raw-timestamps  write the raw timestamps as stored in the file\n"
          "  -lr, --best-effort      events that do not fit their schema: decoded fields + the extra bytes;\n"
          "                          also the bytes after the last property of events that did fit\n"
          "Schemas:\n"
          "  -import FILE..., --manifest FILE|DIR\n"
          "                          instrumentation manifests (.man/.xml), Windows binaries with a\n"
          "                          WEVT_TEMPLATE resource, or folders of them\n"
          "  -export FILE            write a manifest describing every event the inputs were decoded with\n"
          "                          (TraceLogging, EventSource, embedded, manifests; not kernel MOF classes)\n"
          "  --no-bundled-schemas    do not load the manifests shipped with etlconv\n"
          "  --no-trace-schemas      ignore the schemas the trace carries (TraceLogging metadata, EventSource\n"
          "                          manifests, KernelTraceControl metadata): decode with -import, bundled and\n"
          "                          kernel schemas only (e.g. to check an exported manifest)\n"
          "  -en ANSI|Unicode        accepted for tracerpt scripts; output is always UTF-8\n"
          "Filters (all must match; lists match any element):\n"
          "  --provider NAME|GUID    repeatable\n"
          "  --event ID[,ID...]      event ids\n"
          "  --level N               events with level <= N (level 0 events always pass)\n"
          "  --keywords MASK         events with any of these keyword bits\n"
          "  --pid N[,N...], --tid N[,N...]\n"
          "  --from T, --to T        ISO-8601 time (UTC unless it has an offset) or seconds from trace start\n"
          /* -- issue 12 (tracerpt) help lines below; keep this line -- */
          "tracerpt (also the mode when run as 'tracerpt': default file names, closing line):\n"
          "  -report [FILE]          workload report (workload.xml/.html): providers, event types, and by\n"
          "                          -rl 2..5 processes, disks, files, threads; -f XML|HTML\n"
          "  -int FILE               the interpreted event structures (one block per event layout)\n"
          "  -config FILE            read more options from FILE;  -df FILE  accepted (not applied)\n"
          "  -rt NAME                refused: real-time sessions exist only on Windows\n"
          "  --tracerpt              tracerpt mode without renaming the program\n"
          "  --strict                events lost by the recording session exit 1 (default: a note, exit 0)\n"
          "  -, FIFO, /dev/stdin     read once into a temporary file, then converted like a file\n"
          "  --jobs N                with --each: N files at once (same outputs); --gzip or -of FMT.gz: .gz\n"
          "                          outputs; same-named inputs mirror their folders under -o DIR\n"
          /* -- issue 13 (diff) help lines below; keep this line -- */
          "Stable output and trace diffing (see 'Using etlconv in a test pipeline' in the README):\n"
          "  --stable                output identical on every machine, time zone, locale and run: relative\n"
          "                          times (+S.fffffff), ordinals for process/thread/activity ids (P1 T3 A2),\n"
          "                          no CPU, kernel/user times, buffer facts; pointers masked; with -o X.txt a\n"
          "                          golden baseline (one 'EventName Field=Value ...' line per event)\n"
          "  --mask LIST             also mask: time, a field NAME anywhere, or PROVIDER:EVENT:FIELD\n"
          "etlconv diff OLD NEW [OPTIONS]   (OLD, NEW: .etl files or baselines; several files per side:\n"
          "                          etlconv diff a.etl b.etl --new c.etl d.etl). Exit 0 same, 1 different, 2 trouble\n"
          "  --new                   diff: the files after it are the NEW side\n"
          "  --by KEY                align per stream: thread (provider+process+thread, default), process,\n"
          "                          provider or none\n"
          "  --compare-time SECONDS  compare relative times too, within this tolerance\n"
          "  --counts-only           only the event counts per provider/event type\n"
          "  --all-counts            list unchanged counts too\n"
          "  --count-tolerance PCT   count changes within PCT percent are no difference (sampled events)\n"
          "  --context N             events of context around each change (default 3)\n"
          "  --ignore-field NAME     leave this field out of the comparison (repeatable)\n"
          "  --ignore-event [PROVIDER:]EVENT   leave these events out (repeatable)\n"
          "  --json                  the report as one JSON document\n"
          "  --junit FILE            also a JUnit XML report: one test case per provider/event type\n"
          "  --color[=WHEN]          colour the text report: auto (a terminal), always or never\n"
          /* -- issue 14 (perf) help lines below; keep this line -- */
          "Speed:\n"
          "  -j, --threads N         threads for one conversion (default: the number of cores); the output is\n"
          "                          the same as with -j 1; XML, CSV, table and JSON Lines only\n"
          "  -o FILE.zst             zstd-compressed output (FILE.gz: gzip); both on worker threads with -j\n"
          "  --compress-level N      gzip 1..12 or zstd 1..19 (default 1: as fast as the conversion)\n"
          /* -- issue 15 (typed) help lines below; keep this line -- */
          "Typed output (JSON and tables):\n"
          "  --json-bigint number|string\n"
          "                          64-bit integers in JSON as numbers (default; jq 1.6 rounds them above\n"
          "                          2^53) or as decimal strings (exact in every reader)\n"
          "  --split DIR             with -of csv or -of json: one file per event type in DIR (CSV: a\n"
          "                          header row of common columns + the event's fields, and DIR/schema.sql)\n"
          "  --split-max-open N      files --split keeps open at once (default 64; the others are closed\n"
          "                          and reopened to append)\n"
          "  --style ecs             with -of json: Elastic Common Schema (winlog.*) as Filebeat's ETW input\n"
          "etlconv schemas [TRACE...] [-import FILE|DIR...] [-of text|json|manifest] [-o FILE] [--info]\n"
          "                          list providers, events and fields of traces and schema files\n"
          /* -- issue 16 (evtx) help lines below; keep this line -- */
          "EVTX:\n"
          "  -of EVTX, -o FILE.evtx  Windows event log, as tracerpt -of EVTX: Event Viewer, Get-WinEvent and\n"
          "                          the EVTX tools (python-evtx, evtxexport, evtx, chainsaw) read it; typed\n"
          "                          EventData, templates per event layout, 64 KiB chunks; to stdout or .gz\n"
          "                          it is spooled to a temporary file first\n"
          /* -- issue 17 (net) help lines below; keep this line -- */
          "Network captures:\n"
          "  -of pcapng              the packets (pktmon, NDIS-PacketCapture, VMSwitch, NdisWan) as pcapng;\n"
          "                          -o NAME.pcapng picks it\n"
          "  --pcapng-events         pcapng: the other events too, as systemd journal blocks between packets\n"
          "Activities:\n"
          "  -of activities          one line per activity: first/last time, duration, events, parent,\n"
          "                          providers, first message\n"
          "  --activity GUID         events of this activity and of those linked to it by RelatedActivityID\n"
          "  --group activity        output grouped by activity (in order of each activity's first event)\n"
          /* -- issue 18 (wpp) help lines below; keep this line -- */
          "WPP software tracing (trace messages decoded with their TMF; tracefmt's text with -of tracefmt):\n"
          "  -tmf FILE, -tp DIR      a TMF file, or a folder of <message-GUID>.tmf files (repeatable);\n"
          "                          also every folder in $TRACE_FORMAT_SEARCH_PATH (';' or ':' separated)\n"
          "  -pdb FILE|DIR           the TMF annotations of a driver's PDB, or of every .pdb in a folder\n"
          "  -i IMAGE                the PDB a driver/binary names in its debug directory, looked for beside\n"
          "                          it and in the -pdb folders\n"
          "                          $TRACE_FORMAT_PREFIX: the -of tracefmt line prefix (default\n"
          "                          \"[%9!d!]%8!04X!.%3!04X!::%4!s! [%1!s!]\": [CPU]PID.TID::time [component])\n"
          "Other:\n"
          "  -l FILE...              tracerpt's optional marker before the input files\n"
          "  --info FILE...          describe the files (header, clock, buffers, providers) and exit\n"
          "  -q, --quiet             no progress bar, no warnings\n"
          "  --progress              progress bar on stderr even for small inputs or when not a terminal\n"
          "  --one-pass              skip the first pass that learns process names from rundowns logged at\n"
          "                          the end of the trace (faster; early events may lack a process name)\n"
          "  -h, --help              this help\n"
          "  --version               version\n"
          "\n"
          "Exit status: 0 success (events the session lost are only noted, unless --strict); 1 output\n"
          "written with warnings (records skipped or payloads that did not fit their schema); 2 failure\n"
          "(bad usage, unreadable input, output not written).\n",
          out);
}
