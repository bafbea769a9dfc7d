/* --activity and --group activity (activity_cli.h). */
#include "cli/activity_cli.h"

#include <stdio.h>
#include <string.h>

static int observe(const etl_event_record *record, void *ctx)
{
    return etl_activity_observe_record(ctx, record) != ETL_OK;
}

int etlconv_activity_prepare(etlconv_activity_run *a, const etlconv_options *opt, const etlconv_job *job)
{
    memset(a, 0, sizeof *a);
    a->opt = opt;
    if (!opt->activity_given) return 0;
    etl_trace *trace;
    etl_error err;
    memset(&err, 0, sizeof err);
    if (etl_open(&trace, (const char *const *)job->inputs, job->input_count, NULL, &err) != ETL_OK) {
        fprintf(stderr, "etlconv: --activity: %s\n", err.message);
        return -1;
    }
    a->links = etl_activity_table_new();
    int rc = a->links ? etl_process(trace, observe, a->links) : ETL_ERR_NOMEM;
    etl_close(trace);
    if (rc < 0 || rc == ETL_STOPPED) {
        fprintf(stderr, "etlconv: --activity: %s\n", rc == ETL_STOPPED ? "out of memory" : etl_status_name(rc));
        return -1;
    }
    return 0;
}

int etlconv_activity_match(const etlconv_activity_run *a, const etl_event_record *record)
{
    return !a->links || etl_activity_related(a->links, &a->opt->activity, &record->header.activity_id);
}

const etl_sink *etlconv_activity_sink(etlconv_activity_run *a, const etl_sink *out, const char *format_name)
{
    if (!a->opt->group_activity) return out;
    /* the table does not show the activity id: a heading line names each group */
    a->group = etl_group_sink_new(out, strcmp(format_name, "table") == 0);
    return a->group ? etl_group_sink_sink(a->group) : NULL;
}

int etlconv_activity_event_begin(etlconv_activity_run *a, const etl_event_record *record)
{
    if (!a->group || etl_group_sink_event(a->group, &record->header.activity_id) == 0) return 0;
    fprintf(stderr, "etlconv: --group activity: more than %u events or out of memory (use filters)\n",
            ETL_GROUP_MAX_EVENTS);
    return -1;
}

void etlconv_activity_event_end(etlconv_activity_run *a)
{
    if (a->group) etl_group_sink_event_done(a->group);
}

int etlconv_activity_flush(etlconv_activity_run *a)
{
    return a->group ? etl_group_sink_flush(a->group) : 0;
}

void etlconv_activity_free(etlconv_activity_run *a)
{
    etl_activity_table_free(a->links);
    etl_group_sink_free(a->group);
    a->links = NULL;
    a->group = NULL;
}
