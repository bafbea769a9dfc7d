/* `etlconv diff` (see diff_cmd.h): options → library calls. A baseline side brings the options it was
 * written with (its header line); they apply to the trace sides too. */
#include "diff_cmd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "convert.h"
#include "etl/etl_diff.h"
#include "filter.h"
#include "options_diff.h"
#include "output.h"
#include "progress.h"
#include "util/textbuf.h"

#define MAX_HEADER_WORDS 256
#define HEADER_CAP 4096
#define MAX_PRINTED_DIAGNOSTICS 20
#define DEFAULT_CONTEXT 3

typedef struct diff_cli {
    etlconv_options opt;
    etlconv_options golden[2];    /* options recorded in baseline sides */
    char header_text[2][HEADER_CAP];
    int is_baseline[2];           /* 1 text baseline, 2 JSON Lines baseline */
    etl_writer *json_writer;      /* trace sides compared with a JSON Lines baseline go through the jsonl writer */
    etl_textbuf json_text;
    etlconv_filters filters;      /* bound to the trace start of the side being read */
    int filtering, bound;
    etlconv_progress progress;
    unsigned diagnostics;
} diff_cli;

static int accept_event(void *ctx, const etl_decoded_event *ev)
{
    diff_cli *c = ctx;
    if (!c->filtering) return 1;
    if (!c->bound) {
        c->filters = c->opt.filters;  /* relative --from/--to count from this side's first event */
        etlconv_filter_bind(&c->filters, ev->record->header.timestamp);
        c->bound = 1;
    }
    return etlconv_filter_match(&c->filters, ev);
}

static void on_progress(void *ctx, uint64_t done, uint64_t total, uint64_t events)
{
    diff_cli *c = ctx;
    etlconv_progress_update(&c->progress, done, total ? total : done, events);
}

static void on_diagnostic(const etl_diagnostic *d, void *ctx)
{
    diff_cli *c = ctx;
    if (c->opt.quiet && d->severity != ETL_ERROR) return;
    if (c->diagnostics++ >= MAX_PRINTED_DIAGNOSTICS) return;
    etlconv_progress_finish(&c->progress);
    fprintf(stderr, "etlconv: %s: %s\n", d->severity == ETL_ERROR ? "error" : "warning", d->message);
}

static int append_json(void *ctx, const void *data, size_t length)
{
    etl_textbuf_append(ctx, data, length);
    return ((etl_textbuf *)ctx)->failed ? -1 : 0;
}

/* A trace side's event as the jsonl writer writes it, read back as a baseline line: what a JSON Lines
 * baseline went through too, so the two sides compare whatever the JSON form of a value is. */
static int render_json(void *ctx, const etl_decoded_event *ev, unsigned flags, etl_textbuf *line)
{
    diff_cli *c = ctx;
    if (!c->json_writer) {
        etl_writer_options wo = c->opt.writer;
        wo.stable = flags;
        wo.stable_options = NULL;
        wo.flush_every_event = 1;  /* each event is read back right after it is written */
        etl_sink sink = {append_json, &c->json_text};
        c->json_writer = etl_writer_new(etl_writer_format_find("jsonl"), &sink, &wo);
        if (!c->json_writer) return -1;
    }
    etl_textbuf_reset(&c->json_text);
    if (etl_writer_event(c->json_writer, ev) != 0 || c->json_text.length == 0) return -1;
    return etl_baseline_from_json(c->json_text.data, c->json_text.length - 1, line, NULL, 0) == 0 ? 0 : -1;
}

/* A baseline's header options, parsed as if given on the command line. */
static int read_golden(diff_cli *c, int side, const char *path)
{
    char *words[MAX_HEADER_WORDS + 2];
    size_t n = etlconv_stable_options_split(c->header_text[side], words + 1, MAX_HEADER_WORDS);
    words[0] = "diff";
    words[n + 1] = (char *)path;  /* stands in for the inputs, which the parser requires */
    if (etlconv_parse_options((int)n + 2, words, &c->golden[side]) != 0) {
        fprintf(stderr, "etlconv: %s: the options in its header line are not understood\n", path);
        return -1;
    }
    return 0;
}

/* Masks of the command line and of every baseline side, for a trace side's stable view. */
static etl_stable *stable_for_traces(diff_cli *c)
{
    etl_stable *s = etl_stable_new(0);
    int rc = s ? 0 : -1;
    const etlconv_options *all[3] = {&c->opt, &c->golden[0], &c->golden[1]};
    for (int k = 0; k < 3 && rc == 0; k++)
        for (size_t m = 0; m < all[k]->diff.mask_count && rc == 0; m++) rc = etl_stable_add_mask(s, all[k]->diff.masks[m]);
    if (rc != 0) {
        etl_stable_free(s);
        return NULL;
    }
    return s;
}

static int read_side(diff_cli *c, etl_diff *d, int side, char **files, size_t count, etl_schema_registry *registry)
{
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc;
    if (c->is_baseline[side]) {
        rc = etl_diff_read_baseline(d, side, files[0], &err);
    } else {
        c->bound = 0;
        etlconv_progress_start(&c->progress, c->opt.quiet, c->opt.progress, 0);
        c->progress.enabled = !c->opt.quiet && (c->opt.progress || isatty(STDERR_FILENO));
        rc = etl_diff_read_trace(d, side, (const char *const *)files, count, registry, &err);
        etlconv_progress_finish(&c->progress);
    }
    if (rc != ETL_OK) fprintf(stderr, "etlconv: %s\n", err.message[0] ? err.message : etl_status_name(rc));
    return rc == ETL_OK ? 0 : -1;
}

static int use_color(const diff_cli *c)
{
    if (c->opt.diff.color == 1) return 1;
    if (c->opt.diff.color == 2 || c->opt.output || c->opt.diff.json || getenv("NO_COLOR")) return 0;
    const char *term = getenv("TERM");
    return isatty(STDOUT_FILENO) && term && strcmp(term, "dumb") != 0;
}

static int run(diff_cli *c)
{
    etlconv_options *o = &c->opt;
    size_t split = o->diff.new_from == (size_t)-1 ? 0 : o->diff.new_from;
    if (!split) split = o->input_count == 2 ? 1 : 0;
    if (split == 0 || split >= o->input_count) {
        fprintf(stderr, "etlconv: diff needs OLD and NEW (etlconv diff OLD NEW, or OLD... --new NEW...)\n");
        return ETLCONV_EXIT_FAILURE;
    }
    char **files[2] = {o->inputs, o->inputs + split};
    size_t counts[2] = {split, o->input_count - split};
    for (int s = 0; s < 2; s++) {
        c->is_baseline[s] = counts[s] == 1 ? etl_baseline_read_options(files[s][0], c->header_text[s], HEADER_CAP) + 1 : 0;
        if (c->is_baseline[s] && read_golden(c, s, files[s][0]) != 0) return ETLCONV_EXIT_FAILURE;
    }
    /* filters recorded in a baseline apply to the trace side unless the command line gives its own */
    c->filtering = etlconv_filter_active(&o->filters);
    for (int s = 0; s < 2 && !c->filtering; s++)
        if (c->is_baseline[s] && etlconv_filter_active(&c->golden[s].filters)) {
            etlconv_filters mine = o->filters;
            o->filters = c->golden[s].filters;
            c->golden[s].filters = mine;
            c->filtering = 1;
        }

    etl_schema_registry *registry = etl_schema_registry_new();
    etl_stable *stable[2] = {stable_for_traces(c), stable_for_traces(c)};
    etl_diff_options dopt;
    memset(&dopt, 0, sizeof dopt);
    dopt.by = (etl_diff_by)o->diff.by;
    dopt.compare_time = o->diff.compare_time;
    dopt.time_tolerance = o->diff.time_tolerance;
    dopt.count_tolerance = o->diff.count_tolerance;
    dopt.counts_only = o->diff.counts_only;
    dopt.all_counts = o->diff.all_counts;
    dopt.context = o->diff.context_set ? (unsigned)o->diff.context : DEFAULT_CONTEXT;
    dopt.color = use_color(c);
    dopt.ignore_fields = (const char *const *)o->diff.ignore_fields;
    dopt.ignore_field_count = o->diff.ignore_field_count;
    dopt.ignore_events = (const char *const *)o->diff.ignore_events;
    dopt.ignore_event_count = o->diff.ignore_event_count;
    dopt.accept = accept_event;
    dopt.accept_ctx = c;
    dopt.progress = on_progress;
    dopt.progress_ctx = c;
    if (c->is_baseline[0] == 2 || c->is_baseline[1] == 2) {
        dopt.render = render_json;
        dopt.render_ctx = c;
    }
    dopt.on_diagnostic = on_diagnostic;
    dopt.diagnostic_ctx = c;
    etl_diff *d = registry && stable[0] && stable[1] ? etl_diff_new(&dopt, stable[0], stable[1]) : NULL;
    int status = ETLCONV_EXIT_FAILURE;
    etlconv_output *out = NULL, *junit = NULL;
    if (!d) {
        fprintf(stderr, "etlconv: out of memory\n");
        goto done;
    }
    if (!c->is_baseline[0] || !c->is_baseline[1]) {
        if (etlconv_load_schemas(o, registry) == ETLCONV_EXIT_FAILURE) goto done;
    }
    if (read_side(c, d, 0, files[0], counts[0], registry) != 0 || read_side(c, d, 1, files[1], counts[1], registry) != 0)
        goto done;
    out = etlconv_output_open(o->output, o->overwrite);
    if (!out) goto done;
    if (!etlconv_output_stream(out)) {
        fprintf(stderr, "etlconv: %s: the diff report is not written compressed\n", o->output);
        goto done;
    }
    if (o->diff.junit) {
        junit = etlconv_output_open(o->diff.junit, o->overwrite);
        if (!junit || !etlconv_output_stream(junit)) goto done;
    }
    char old_name[512], new_name[512];
    snprintf(old_name, sizeof old_name, "%s%s", files[0][0], counts[0] > 1 ? " (+ more)" : "");
    snprintf(new_name, sizeof new_name, "%s%s", files[1][0], counts[1] > 1 ? " (+ more)" : "");
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc = etl_diff_report(d, o->diff.json ? ETL_DIFF_REPORT_JSON : ETL_DIFF_REPORT_TEXT, etlconv_output_stream(out),
                             junit ? etlconv_output_stream(junit) : NULL, old_name, new_name, &err);
    if (rc < 0) {
        fprintf(stderr, "etlconv: %s\n", err.message);
        goto done;
    }
    int commit = etlconv_output_commit(out);
    out = NULL;
    if (junit && etlconv_output_commit(junit) != 0) commit = -1;
    junit = NULL;
    if (commit == 0) status = rc;
done:
    etlconv_output_abort(out);
    etlconv_output_abort(junit);
    etl_diff_free(d);
    etl_stable_free(stable[0]);
    etl_stable_free(stable[1]);
    etl_schema_registry_free(registry);
    etl_writer_free(c->json_writer);
    etl_textbuf_free(&c->json_text);
    return status;
}

int etlconv_diff_main(int argc, char **argv)
{
    diff_cli *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "etlconv: out of memory\n");
        return ETLCONV_EXIT_FAILURE;
    }
    int status;
    if (etlconv_parse_options(argc, argv, &c->opt) != 0) {
        status = ETLCONV_EXIT_FAILURE;
    } else if (c->opt.mode == MODE_HELP) {
        etlconv_print_help(stdout);
        status = 0;
    } else {
        status = run(c);
    }
    for (int s = 0; s < 2; s++) {
        etlconv_diff_options_free(&c->golden[s]);
        etlconv_free_options(&c->golden[s]);
    }
    etlconv_diff_options_free(&c->opt);
    etlconv_free_options(&c->opt);
    free(c);
    return status;
}
