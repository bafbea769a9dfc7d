/* Event filters (see filter.h). All given filters must match; each list matches any of its elements. */
#include "filter.h"

#include <strings.h>


void etlconv_filter_bind(etlconv_filters *f, int64_t trace_start)
{
    if (f->has_from && f->from_relative) {
        f->from += trace_start;
        f->from_relative = 0;
    }
    if (f->has_to && f->to_relative) {
        f->to += trace_start;
        f->to_relative = 0;
    }
}

int etlconv_filter_active(const etlconv_filters *f)
{
    return f->provider_count || f->event_id_count || f->pid_count || f->tid_count || f->level >= 0 ||
           f->keywords || f->has_from || f->has_to;
}

static int in_list(const uint32_t *list, size_t count, uint32_t v)
{
    for (size_t i = 0; i < count; i++)
        if (list[i] == v) return 1;
    return 0;
}

static int provider_matches(const etlconv_filters *f, const etl_decoded_event *ev)
{
    const etl_guid *record_guid = &ev->record->header.provider_id;
    for (size_t i = 0; i < f->provider_count; i++) {
        const etl_guid *g = &f->provider_guids[i];
        if (!etl_guid_is_zero(g)) {
            if (etl_guid_equal(g, record_guid)) return 1;
            if (ev->info && (etl_guid_equal(g, &ev->info->provider_guid) || etl_guid_equal(g, &ev->info->event_guid)))
                return 1;
        } else if (ev->provider_name && strcasecmp(ev->provider_name, f->providers[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int etlconv_filter_match(const etlconv_filters *f, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    if (f->has_from && h->timestamp < f->from) return 0;
    if (f->has_to && h->timestamp > f->to) return 0;
    if (f->pid_count && !in_list(f->pids, f->pid_count, h->process_id)) return 0;
    if (f->tid_count && !in_list(f->tids, f->tid_count, h->thread_id)) return 0;
    if (f->event_id_count && !in_list(f->event_ids, f->event_id_count, h->descriptor.id)) return 0;
    if (f->level >= 0 && h->descriptor.level > f->level && h->descriptor.level != 0) return 0;
    if (f->keywords && !(h->descriptor.keyword & f->keywords)) return 0;
    if (f->provider_count && !provider_matches(f, ev)) return 0;
    return 1;
}
