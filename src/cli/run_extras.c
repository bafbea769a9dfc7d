/* -report, -int and the --provider check (see run_extras.h). */
#include "run_extras.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "output.h"

int etlconv_extras_start(etlconv_extras *x, const etlconv_options *opt, const char *report_path,
                         const char *interpreted_path)
{
    memset(x, 0, sizeof *x);
    x->opt = opt;
    x->report_path = report_path;
    x->interpreted_path = interpreted_path;
    if ((report_path && !(x->report = etl_report_new(opt->report_level))) ||
        (interpreted_path && !(x->layouts = etl_layout_list_new())) ||
        (opt->filters.provider_count && !(x->provider_hit = calloc(opt->filters.provider_count, 1)))) {
        fprintf(stderr, "etlconv: out of memory\n");
        etlconv_extras_free(x);
        return -1;
    }
    return 0;
}

/* Remembers which --provider filters an event satisfies, and the first provider names seen. */
static void note_provider(etlconv_extras *x, const etl_decoded_event *ev)
{
    const etlconv_filters *f = &x->opt->filters;
    const char *name = ev->provider_name;
    for (size_t i = 0; i < f->provider_count; i++) {
        if (x->provider_hit[i]) continue;
        const etl_guid *g = &f->provider_guids[i];
        if (etl_guid_is_zero(g) ? name && strcasecmp(name, f->providers[i]) == 0
                                : etl_guid_equal(g, &ev->record->header.provider_id) ||
                                      (ev->info && etl_guid_equal(g, &ev->info->provider_guid)))
            x->provider_hit[i] = 1;
    }
    if (!name || x->seen_count >= EXTRAS_MAX_PROVIDERS) return;
    for (size_t i = 0; i < x->seen_count; i++)
        if (strcmp(x->seen[i], name) == 0) return;
    x->seen[x->seen_count] = strdup(name);
    if (x->seen[x->seen_count]) x->seen_count++;
}

int etlconv_extras_event(etlconv_extras *x, const etl_decoded_event *ev, int passed)
{
    if (x->provider_hit) note_provider(x, ev);
    if (!passed) return 0;
    if ((x->report && etl_report_add(x->report, ev) != 0) || (x->layouts && etl_layout_list_add(x->layouts, ev) != 0)) {
        fprintf(stderr, "etlconv: out of memory while building the report\n");
        return -1;
    }
    return 0;
}

static void warn_unmatched(const etlconv_extras *x)
{
    const etlconv_filters *f = &x->opt->filters;
    for (size_t i = 0; i < f->provider_count; i++) {
        if (x->provider_hit[i]) continue;
        fprintf(stderr, "etlconv: warning: --provider '%s' matched no event; providers in the input:", f->providers[i]);
        for (size_t k = 0; k < x->seen_count; k++) fprintf(stderr, "%s%s", k ? ", " : " ", x->seen[k]);
        fprintf(stderr, "%s\n", x->seen_count == EXTRAS_MAX_PROVIDERS ? ", ..." : x->seen_count ? "" : " none");
    }
}

static int write_file(const char *path, int overwrite, int (*write)(const void *, const etl_run_totals *, int,
                                                                    const etl_sink *),
                      const void *what, const etl_run_totals *totals, int html)
{
    etlconv_output *out = etlconv_output_open(path, overwrite);
    if (!out) return -1;
    if (write(what, totals, html, etlconv_output_sink(out)) != 0) {
        fprintf(stderr, "etlconv: %s: could not be written\n", path);
        etlconv_output_abort(out);
        return -1;
    }
    return etlconv_output_commit(out);
}

static int write_report(const void *r, const etl_run_totals *t, int html, const etl_sink *s)
{
    return etl_report_write(r, t, html, s);
}

static int write_layouts(const void *l, const etl_run_totals *t, int html, const etl_sink *s)
{
    (void)t, (void)html;
    return etl_layout_list_write(l, s);
}

int etlconv_extras_finish(etlconv_extras *x, const etl_run_totals *totals)
{
    if (x->provider_hit && !x->opt->quiet) warn_unmatched(x);
    int rc = 0;
    if (x->report && write_file(x->report_path, x->opt->overwrite, write_report, x->report, totals,
                                x->opt->report_html) != 0)
        rc = -1;
    if (rc == 0 && x->layouts &&
        write_file(x->interpreted_path, x->opt->overwrite, write_layouts, x->layouts, totals, 0) != 0)
        rc = -1;
    return rc;
}

void etlconv_extras_free(etlconv_extras *x)
{
    etl_report_free(x->report);
    etl_layout_list_free(x->layouts);
    free(x->provider_hit);
    for (size_t i = 0; i < x->seen_count; i++) free(x->seen[i]);
    memset(x, 0, sizeof *x);
}
