/* tracerpt's remaining options, the tracerpt-compatible mode and the command-line checks (see
 * options_tracerpt.h). */
#include "options_tracerpt.h"
#include "suffix.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define CONFIG_MAX_BYTES (1u << 20)  /* a settings file is a few lines; this bounds a wrong file */
#define CONFIG_MAX_WORDS 4096
#define CONFIG_MAX_DEPTH 8           /* -config inside a settings file, but no endless loop */
#define MAX_JOBS 64
#define MAX_EVENT_ID 65535u          /* EVENT_DESCRIPTOR.Id is 16 bits */

static int tracerpt_mode;
static char **expanded_argv;  /* the argv with -config expanded, or NULL */
static char **config_texts;   /* file contents the expanded words point into */
static size_t config_text_count;

static int usage(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "etlconv: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, " (try 'etlconv --help')\n");
    return ETLCONV_EXIT_FAILURE;
}

int etlconv_tracerpt_mode(void)
{
    return tracerpt_mode;
}

static int is_option_word(const char *w)
{
    return w[0] == '-' && w[1] != '\0';
}

static int names_trace(const char *w)
{
    size_t n = strlen(w);
    return (n >= 4 && strcasecmp(w + n - 4, ".etl") == 0) || (n >= 7 && strcasecmp(w + n - 7, ".etl.gz") == 0);
}

int etlconv_optional_value(int argc, char **argv, int *i, const char **value)
{
    *value = NULL;
    if (*i + 1 >= argc || names_trace(argv[*i + 1])) return 0;
    const char *next = argv[*i + 1];
    if (is_option_word(next)) {
        if (tracerpt_mode) return 0;  /* tracerpt: "-o -report" means both default names */
        usage("option %s: '%s' is an option, not a file name (give the name, or leave the option last)",
              argv[*i], next);
        return -1;
    }
    *value = argv[++*i];
    return 0;
}

int etlconv_required_value(int argc, char **argv, int *i, const char *name, const char **value)
{
    if (*i + 1 >= argc) {
        usage("option %s needs a value%s", name, "");
        return -1;
    }
    if (is_option_word(argv[*i + 1])) {
        usage("option %s needs a value, not the option '%s'", name, argv[*i + 1]);
        return -1;
    }
    *value = argv[++*i];
    return 0;
}

/* ---- -config FILE ------------------------------------------------------------------------------------ */

typedef struct word_list {
    char **words;
    size_t count, cap;
} word_list;

static int add_word(word_list *l, char *w)
{
    if (l->count >= CONFIG_MAX_WORDS * 4) return -1;
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 32;
        char **p = realloc(l->words, cap * sizeof *p);
        if (!p) return -1;
        l->words = p;
        l->cap = cap;
    }
    l->words[l->count++] = w;
    return 0;
}

static char *read_config(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "etlconv: -config %s: %s\n", path, strerror(errno));
        return NULL;
    }
    char *text = malloc(CONFIG_MAX_BYTES + 1);
    size_t n = text ? fread(text, 1, CONFIG_MAX_BYTES + 1, f) : 0;
    int err = ferror(f);
    fclose(f);
    if (!text || err || n > CONFIG_MAX_BYTES) {
        fprintf(stderr, "etlconv: -config %s: %s\n", path,
                !text ? "out of memory" : err ? "read error" : "larger than 1 MiB: not a settings file");
        free(text);
        return NULL;
    }
    text[n] = '\0';
    char **p = realloc(config_texts, (config_text_count + 1) * sizeof *p);
    if (!p) {
        free(text);
        return NULL;
    }
    config_texts = p;
    config_texts[config_text_count++] = text;
    return text;
}

static int expand(word_list *out, char **words, size_t count, int depth);

/* Words of a settings file: whitespace separates them, "double quotes" group, '#' starts a comment line. */
static int expand_file(word_list *out, const char *path, int depth)
{
    if (depth >= CONFIG_MAX_DEPTH) {
        fprintf(stderr, "etlconv: -config %s: settings files nested more than %d deep\n", path, CONFIG_MAX_DEPTH);
        return -1;
    }
    char *text = read_config(path);
    if (!text) return -1;
    word_list file = {0};
    char *p = text;
    int rc = 0;
    if ((unsigned char)p[0] == 0xEF && (unsigned char)p[1] == 0xBB && (unsigned char)p[2] == 0xBF) p += 3;
    while (*p && rc == 0) {
        while (isspace((unsigned char)*p)) p++;
        if (!*p) break;
        if (*p == '#') {
            while (*p && *p != '\n') p++;
            continue;
        }
        char *start = p, *dst = p;
        while (*p && !isspace((unsigned char)*p)) {
            if (*p == '"') {
                for (p++; *p && *p != '"'; p++) *dst++ = *p;
                if (*p != '"') {
                    fprintf(stderr, "etlconv: -config %s: unterminated quote\n", path);
                    rc = -1;
                    break;
                }
                p++;
            } else {
                *dst++ = *p++;
            }
        }
        int at_end = *p == '\0';
        *dst = '\0';
        if (rc == 0 && add_word(&file, start) != 0) {
            fprintf(stderr, "etlconv: -config %s: more than %d words\n", path, CONFIG_MAX_WORDS);
            rc = -1;
        }
        if (!at_end) p++;
    }
    if (rc == 0) rc = expand(out, file.words, file.count, depth + 1);
    free(file.words);
    return rc;
}

static int expand(word_list *out, char **words, size_t count, int depth)
{
    for (size_t k = 0; k < count; k++) {
        if (strcmp(words[k], "-config") == 0 || strcmp(words[k], "--config") == 0) {
            if (k + 1 >= count || is_option_word(words[k + 1])) {
                usage("option %s needs a settings file%s", words[k], "");
                return -1;
            }
            if (expand_file(out, words[++k], depth) != 0) return -1;
            continue;
        }
        if (strcmp(words[k], "--tracerpt") == 0) tracerpt_mode = 1;
        if (add_word(out, words[k]) != 0) {
            fprintf(stderr, "etlconv: too many command-line words\n");
            return -1;
        }
    }
    return 0;
}

int etlconv_tracerpt_prepare(int *argc, char ***argv)
{
    const char *base = strrchr((*argv)[0] ? (*argv)[0] : "", '/');
    base = base ? base + 1 : (*argv)[0] ? (*argv)[0] : "";
    if (strcasecmp(base, "tracerpt") == 0 || strcasecmp(base, "tracerpt.exe") == 0) tracerpt_mode = 1;
    word_list out = {0};
    if (add_word(&out, (*argv)[0]) != 0 || expand(&out, *argv + 1, (size_t)(*argc - 1), 0) != 0 ||
        add_word(&out, NULL) != 0) {
        free(out.words);
        etlconv_tracerpt_release();
        return ETLCONV_EXIT_FAILURE;
    }
    expanded_argv = out.words;
    *argc = (int)out.count - 1;
    *argv = out.words;
    return 0;
}

void etlconv_tracerpt_release(void)
{
    free(expanded_argv);
    expanded_argv = NULL;
    for (size_t k = 0; k < config_text_count; k++) free(config_texts[k]);
    free(config_texts);
    config_texts = NULL;
    config_text_count = 0;
}

/* ---- the options -------------------------------------------------------------------------------------- */

static const char *const own_options[] = {
    "-report", "--report", "-f", "--report-format", "-rl", "--report-level", "-df", "-int", "--interpreted",
    "-rt", "-config", "--config", "--tracerpt", "--strict", "--jobs", "--gzip",
};

static const char *spelled(const char *arg)
{
    for (size_t k = 0; k < sizeof own_options / sizeof own_options[0]; k++) {
        size_t n = strlen(own_options[k]);
        if (strncmp(arg, own_options[k], n) == 0 && (arg[n] == '\0' || (arg[n] == '=' && arg[1] == '-')))
            return own_options[k];
    }
    return NULL;
}

int etlconv_tracerpt_option_name(const char *arg)
{
    return spelled(arg) != NULL;
}

static int is(const char *name, const char *a, const char *b)
{
    return strcmp(name, a) == 0 || (b && strcmp(name, b) == 0);
}

int etlconv_tracerpt_option(int argc, char **argv, int *i, etlconv_options *o)
{
    const char *arg = argv[*i], *name = spelled(arg);
    const char *eq = strchr(arg, '=');
    const char *v = eq && arg[1] == '-' ? eq + 1 : NULL;
#define NEED_VALUE()                                                                                         \
    do {                                                                                                     \
        if (!v && etlconv_required_value(argc, argv, i, name, &v) != 0) return ETLCONV_EXIT_FAILURE;         \
    } while (0)
    if (is(name, "-report", "--report")) {
        o->report = 1;
        if (!v && etlconv_optional_value(argc, argv, i, &v) != 0) return ETLCONV_EXIT_FAILURE;
        o->report_file = v;
    } else if (is(name, "-f", "--report-format")) {
        NEED_VALUE();
        if (strcasecmp(v, "XML") != 0 && strcasecmp(v, "HTML") != 0)
            return usage("bad %s '%s' (XML or HTML)", name, v);
        o->report_html = strcasecmp(v, "HTML") == 0;
    } else if (is(name, "-rl", "--report-level")) {
        NEED_VALUE();
        if (strlen(v) != 1 || v[0] < '1' || v[0] > '5') return usage("bad %s '%s' (1 to 5)", name, v);
        o->report_level = v[0] - '0';
    } else if (is(name, "-df", NULL)) {
        NEED_VALUE();
        o->counting_schema = v;
    } else if (is(name, "-int", "--interpreted")) {
        NEED_VALUE();
        o->interpreted_file = v;
    } else if (is(name, "-rt", NULL)) {
        fprintf(stderr, "etlconv: -rt: real-time ETW sessions exist only on Windows; record the session to an "
                        ".etl file there (wpr, logman, xperf) and convert that file\n");
        return ETLCONV_EXIT_FAILURE;
    } else if (is(name, "-config", "--config")) {
        return usage("%s%s: settings files cannot name further settings files here", name, "");
    } else if (is(name, "--tracerpt", NULL)) {
        o->tracerpt = 1;
    } else if (is(name, "--strict", NULL)) {
        o->strict = 1;
    } else if (is(name, "--gzip", NULL)) {
        o->gzip_output = 1;
    } else if (is(name, "--jobs", NULL)) {
        NEED_VALUE();
        char *end;
        errno = 0;
        long n = strtol(v, &end, 10);
        if (errno || *end || n < 1 || n > MAX_JOBS) return usage("bad %s '%s' (1 to 64)", name, v);
        o->jobs = (unsigned)n;
    }
#undef NEED_VALUE
    return 0;
}

/* ---- after parsing ---------------------------------------------------------------------------------- */

static int looks_like_guid(const char *s)
{
    if (s[0] == '{') return 1;
    size_t dashes = 0;
    for (const char *p = s; *p; p++) {
        if (*p == '-') dashes++;
        else if (!isxdigit((unsigned char)*p)) return 0;
    }
    return dashes >= 2;
}

static int check_filters(const etlconv_filters *f)
{
    for (size_t k = 0; k < f->event_id_count; k++) {
        if (f->event_ids[k] > MAX_EVENT_ID) {
            char num[16];
            snprintf(num, sizeof num, "%u", (unsigned)f->event_ids[k]);
            return usage("--event %s can match no event (event ids are 0 to %s)", num, "65535");
        }
    }
    for (size_t k = 0; k < f->provider_count; k++) {
        etl_guid g;
        if (looks_like_guid(f->providers[k]) && etl_guid_parse(f->providers[k], &g) != 0)
            return usage("--provider '%s' is not a GUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, braces optional)%s",
                         f->providers[k], "");
    }
    if (f->has_from && f->has_to && f->from_relative == f->to_relative && f->from > f->to)
        return usage("--from is after --to: no event can match%s%s", "", "");
    return 0;
}

/* tracerpt takes performance-counter logs (.blg, counter .csv) for -report; etlconv reads no counter logs:
 * they are dropped with a warning, so the documented "-report -df" command line still runs. */
static void drop_counter_logs(etlconv_options *o)
{
    size_t kept = 0;
    for (size_t k = 0; k < o->input_count; k++) {
        size_t n = strlen(o->inputs[k]);
        if (n > 4 && strcasecmp(o->inputs[k] + n - 4, ".blg") == 0) {
            if (!o->quiet)
                fprintf(stderr, "etlconv: warning: %s: performance-counter logs are not read; the report covers "
                                "the trace files only\n", o->inputs[k]);
            continue;
        }
        o->inputs[kept++] = o->inputs[k];
    }
    o->input_count = kept;
}

/* -df: tracerpt's counting/reporting schema has no public format; the file must exist (a typo should not
 * pass), and the report says which counters it has (etlconv.1). */
static int check_counting_schema(const etlconv_options *o)
{
    FILE *f = fopen(o->counting_schema, "rb");
    if (!f) {
        fprintf(stderr, "etlconv: -df %s: %s\n", o->counting_schema, strerror(errno));
        return ETLCONV_EXIT_FAILURE;
    }
    fclose(f);
    if (!o->quiet)
        fprintf(stderr, "etlconv: warning: -df %s: the report uses etlconv's fixed counters (providers, event types, "
                        "processes, disks, files, threads); the schema file is not applied\n", o->counting_schema);
    return 0;
}

int etlconv_tracerpt_finish(etlconv_options *o)
{
    if (tracerpt_mode) o->tracerpt = 1;
    if (o->mode != MODE_CONVERT) return 0;
    drop_counter_logs(o);
    if (o->input_count == 0) return usage("no trace file to read (only performance-counter logs)%s%s", "", "");
    if (o->counting_schema && check_counting_schema(o) != 0) return ETLCONV_EXIT_FAILURE;
    if (check_filters(&o->filters) != 0) return ETLCONV_EXIT_FAILURE;
    if (o->jobs > 1 && !o->each) return usage("--jobs converts several files at once with --each%s%s", "", "");
    if (o->jobs > 1 && o->export_file)
        return usage("--jobs with -export: the manifest collects every file; drop --jobs%s%s", "", "");
    if (!o->report_level) o->report_level = 1;
    if (o->each && (o->report_file || o->interpreted_file))
        return usage("--each writes one report per input; give -report no file and leave out -int%s%s", "", "");
    if (o->report && !o->report_file && !o->each) o->report_file = o->report_html ? "workload.html" : "workload.xml";
    if (o->tracerpt && o->summary && !o->summary_file && !o->summary_only && !o->each) o->summary_file = "summary.txt";
    int asked = o->output || o->output_default || o->summary || o->summary_only || o->report || o->export_file ||
                o->interpreted_file;
    if (o->tracerpt && !asked && !o->each) o->output_default = 1;  /* tracerpt with no output: dumpfile.xml */
    if (o->output_default && !o->output) {
        snprintf(o->default_output, sizeof o->default_output, "dumpfile%s%s", o->format->extension,
                 o->gzip_output ? ".gz" : "");
        o->output = o->default_output;
    }
    if (o->gzip_output && !o->each && (!o->output || !etlconv_has_suffix(o->output, ".gz")))
        return usage("compressed output: name the file FILE.gz with -o (or use --each -o DIR)%s%s", "", "");
    return 0;
}

void etlconv_tracerpt_done(const etlconv_options *o, int status)
{
    if (!o->tracerpt || o->mode != MODE_CONVERT || status == ETLCONV_EXIT_FAILURE) return;
    /* on stdout like tracerpt, unless the dump itself goes there */
    FILE *out = o->output && strcmp(o->output, "-") == 0 && !o->each ? stderr : stdout;
    fputs("The command completed successfully.\n", out);
    fflush(out);
}
