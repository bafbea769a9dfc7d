/* --stable in a conversion (see stable_run.h). */
#include "stable_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options_diff.h"

int etlconv_stable_begin(etlconv_stable_run *s, const etlconv_options *opt)
{
    memset(s, 0, sizeof *s);
    s->writer = opt->writer;
    s->format = opt->format->name;
    if (!(opt->writer.stable & ETL_STABLE_ON)) return 0;
    s->stable = etl_stable_new(0);
    s->header = etlconv_stable_options_text(opt);
    int rc = s->stable && s->header ? 0 : -1;
    for (size_t k = 0; k < opt->diff.mask_count && rc == 0; k++) rc = etl_stable_add_mask(s->stable, opt->diff.masks[k]);
    if (rc != 0) {
        fprintf(stderr, "etlconv: out of memory\n");
        etlconv_stable_end(s);
        return -1;
    }
    s->writer.stable = etl_stable_flags(s->stable);
    s->writer.stable_options = s->header;
    if (strcmp(s->format, "table") == 0) s->format = "baseline";
    return 0;
}

void etlconv_stable_observe(etlconv_stable_run *s, const etl_decoded_event *ev)
{
    if (s->stable) etl_stable_observe(s->stable, ev);
}

const etl_decoded_event *etlconv_stable_view(etlconv_stable_run *s, const etl_decoded_event *ev)
{
    const etl_decoded_event *view;
    if (!s->stable) return ev;
    return etl_stable_apply(s->stable, ev, &view) == ETL_OK ? view : NULL;
}

void etlconv_stable_end(etlconv_stable_run *s)
{
    etl_stable_free(s->stable);
    free(s->header);
    s->stable = NULL;
    s->header = NULL;
}
