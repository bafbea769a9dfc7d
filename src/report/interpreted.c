/* -int FILE: the interpreted event structures — one block per distinct event layout the trace used (provider,
 * id, version, opcode, task, the schema source and each property with its TDH in/out type numbers), in the
 * order first seen. tracerpt's own -int layout has no public sample; this text form is etlconv's (etlconv.1). */
#include "report/report.h"
#include "report/report_table.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct etl_layout_list {
    rt_table layouts;  /* text 0 key text, 1 heading line, 2 property lines; value 0 events */
};

etl_layout_list *etl_layout_list_new(void)
{
    etl_layout_list *l = calloc(1, sizeof *l);
    if (l) rt_init(&l->layouts, ETL_REPORT_MAX_ROWS);
    return l;
}

void etl_layout_list_free(etl_layout_list *l)
{
    if (!l) return;
    rt_free(&l->layouts);
    free(l);
}

/* The property lines of a layout, "\t<name>\tInType <n>\tOutType <n>[\tstruct of N]\n" each. */
static char *property_lines(const etl_event_info *info)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (!s) return NULL;
    s[0] = '\0';
    for (uint32_t i = 0; info && i < info->property_count; i++) {
        const etl_property_info *p = &info->properties[i];
        char line[512];
        int n = (p->flags & ETL_PROP_STRUCT)
                    ? snprintf(line, sizeof line, "\t%s\tStruct\tmembers %u..%u\n", p->name ? p->name : "",
                               (unsigned)p->struct_start, (unsigned)(p->struct_start + p->struct_count - 1))
                    : snprintf(line, sizeof line, "\t%s\tInType %u\tOutType %u%s%s\n", p->name ? p->name : "",
                               (unsigned)p->in_type, (unsigned)p->out_type,
                               (p->flags & (ETL_PROP_PARAM_COUNT | ETL_PROP_PARAM_FIXED_COUNT | ETL_PROP_INLINE_COUNT))
                                   ? "\tarray" : "",
                               p->map ? "\tmapped" : "");
        if (n < 0) continue;
        if ((size_t)n >= sizeof line) n = sizeof line - 1;
        if (len + (size_t)n + 1 > cap) {
            while (len + (size_t)n + 1 > cap) cap *= 2;
            char *g = realloc(s, cap);
            if (!g) {
                free(s);
                return NULL;
            }
            s = g;
        }
        memcpy(s + len, line, (size_t)n + 1);
        len += (size_t)n;
    }
    return s;
}

int etl_layout_list_add(etl_layout_list *l, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    char guid[40], key[160];
    etl_guid_format(&h->provider_id, guid, 0);
    snprintf(key, sizeof key, "%s/%u/%u/%u/%u/%d", guid, (unsigned)h->descriptor.id, (unsigned)h->descriptor.version,
             (unsigned)h->descriptor.opcode, (unsigned)h->descriptor.task, (int)ev->status);
    int nomem = 0;
    rt_row *row = rt_get(&l->layouts, rt_hash_text(key, 3), key, &nomem);
    if (!row) return nomem ? -1 : 0;
    if (row->value[0]++ == 0) {
        char head[1024];
        snprintf(head, sizeof head,
                 "Provider %s %s\tEvent %s\tId %u\tVersion %u\tOpcode %u\tTask %u\tSource %s\tDecoding %s\n",
                 ev->provider_name ? ev->provider_name : "", guid, ev->event_name ? ev->event_name : "",
                 (unsigned)h->descriptor.id, (unsigned)h->descriptor.version, (unsigned)h->descriptor.opcode,
                 (unsigned)h->descriptor.task, etl_schema_source_name(ev->source),
                 ev->status == ETL_DECODE_OK ? "ok" : ev->status == ETL_DECODE_NO_SCHEMA ? "no schema" : "error");
        char *props = property_lines(ev->info);
        if (!props || rt_set_text(row, 1, head) != 0) {
            free(props);
            return -1;
        }
        row->text[2] = props;
    }
    return 0;
}

int etl_layout_list_write(const etl_layout_list *l, const etl_sink *sink)
{
    for (size_t i = 0; i < l->layouts.count; i++) {
        const rt_row *row = &l->layouts.rows[i];
        char count[48];
        snprintf(count, sizeof count, "\tEvents %" PRIu64 "\n", row->value[0]);
        const char *parts[] = {row->text[1], count, row->text[2], "\n"};
        for (size_t k = 0; k < 4; k++)
            if (parts[k] && sink->write(sink->ctx, parts[k], strlen(parts[k])) != 0) return -1;
    }
    if (l->layouts.dropped) {
        char more[96];
        snprintf(more, sizeof more, "%" PRIu64 " more layouts left out (the list keeps 100000)\n", l->layouts.dropped);
        if (sink->write(sink->ctx, more, strlen(more)) != 0) return -1;
    }
    return 0;
}
