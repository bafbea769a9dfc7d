/* Shared by test_wevt.c and test_pe.c: compare two schema sets event by event and report every
 * difference on stderr (the test then asserts the difference count is 0). */
#ifndef TEST_MANIFEST_COMPARE_H
#define TEST_MANIFEST_COMPARE_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/manifest_model.h"

/* What the compiled side cannot carry (schemas.md §2.8): v3 has no provider or event names. */
enum { CMP_SKIP_PROVIDER_NAME = 1, CMP_SKIP_EVENT_NAME = 2,
       CMP_SKIP_PROVIDER_COUNT = 4 /* -export writes only providers that have events */ };

static inline unsigned char *read_whole_file(const char *path, size_t *len)
{
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && n > 0 && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    *len = n > 0 ? (size_t)n : 0;
    return buf;
}

/* Parses a manifest file into `set`; returns the parser's status (err filled on failure). */
static inline int parse_manifest_path(const char *path, etl_schema_set *set, etl_error *err)
{
    size_t len;
    unsigned char *xml = read_whole_file(path, &len);
    if (!xml) {
        snprintf(err->message, sizeof(err->message), "%s: cannot read", path);
        return ETL_ERR_IO;
    }
    int rc = etl_manifest_parse(set, (const char *)xml, len, path, err);
    free(xml);
    return rc;
}

static inline int cmp_str(const char *what, unsigned id, unsigned ver, const char *a, const char *b)
{
    if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
        fprintf(stderr, "  event %u v%u %s: man=\"%s\" wevt=\"%s\"\n", id, ver, what, a ? a : "(null)",
                b ? b : "(null)");
        return 1;
    }
    return 0;
}

static inline int cmp_num(const char *what, unsigned id, unsigned ver, unsigned long long a, unsigned long long b)
{
    if (a != b) {
        fprintf(stderr, "  event %u v%u %s: man=0x%llx wevt=0x%llx\n", id, ver, what, a, b);
        return 1;
    }
    return 0;
}

static inline int compare_event(const etl_event_info *a, const etl_event_info *b, int skip)
{
    unsigned id = a->descriptor.id, v = a->descriptor.version;
    int d = 0;
    d += cmp_num("channel", id, v, a->descriptor.channel, b->descriptor.channel);
    d += cmp_num("level", id, v, a->descriptor.level, b->descriptor.level);
    d += cmp_num("opcode", id, v, a->descriptor.opcode, b->descriptor.opcode);
    d += cmp_num("task", id, v, a->descriptor.task, b->descriptor.task);
    d += cmp_num("keyword", id, v, a->descriptor.keyword, b->descriptor.keyword);
    if (!(skip & CMP_SKIP_PROVIDER_NAME)) d += cmp_str("provider_name", id, v, a->provider_name, b->provider_name);
    if (!(skip & CMP_SKIP_EVENT_NAME)) d += cmp_str("event_name", id, v, a->event_name, b->event_name);
    d += cmp_str("provider_message", id, v, a->provider_message, b->provider_message);
    d += cmp_str("task_name", id, v, a->task_name, b->task_name);
    d += cmp_str("opcode_name", id, v, a->opcode_name, b->opcode_name);
    d += cmp_str("level_name", id, v, a->level_name, b->level_name);
    d += cmp_str("channel_name", id, v, a->channel_name, b->channel_name);
    d += cmp_str("message", id, v, a->message, b->message);
    d += cmp_num("keyword_name_count", id, v, a->keyword_name_count, b->keyword_name_count);
    for (uint32_t k = 0; k < a->keyword_name_count && k < b->keyword_name_count; k++)
        d += cmp_str("keyword_name", id, v, a->keyword_names[k], b->keyword_names[k]);
    d += cmp_num("property_count", id, v, a->property_count, b->property_count);
    d += cmp_num("top_level_count", id, v, a->top_level_count, b->top_level_count);
    for (uint32_t i = 0; i < a->property_count && i < b->property_count; i++) {
        const etl_property_info *p = &a->properties[i], *q = &b->properties[i];
        char what[64];
        snprintf(what, sizeof(what), "property[%u]", i);
        int pd = 0;
        pd += cmp_str(what, id, v, p->name, q->name);
        pd += cmp_num("  .flags", id, v, p->flags, q->flags);
        pd += cmp_num("  .in_type", id, v, p->in_type, q->in_type);
        pd += cmp_num("  .out_type", id, v, p->out_type, q->out_type);
        pd += cmp_num("  .struct_start", id, v, p->struct_start, q->struct_start);
        pd += cmp_num("  .struct_count", id, v, p->struct_count, q->struct_count);
        pd += cmp_num("  .count", id, v, p->count, q->count);
        pd += cmp_num("  .length", id, v, p->length, q->length);
        if ((p->map == NULL) != (q->map == NULL)) {
            pd += cmp_str("  .map", id, v, p->map ? p->map->name : NULL, q->map ? q->map->name : NULL);
        } else if (p->map) {
            pd += cmp_str("  .map.name", id, v, p->map->name, q->map->name);
            pd += cmp_num("  .map.flags", id, v, p->map->flags, q->map->flags);
            pd += cmp_num("  .map.entry_count", id, v, p->map->entry_count, q->map->entry_count);
            for (uint32_t k = 0; k < p->map->entry_count && k < q->map->entry_count; k++) {
                pd += cmp_num("  .map.value", id, v, p->map->entries[k].value, q->map->entries[k].value);
                pd += cmp_str("  .map.text", id, v, p->map->entries[k].name, q->map->entries[k].name);
            }
        }
        if (pd) fprintf(stderr, "    (in property %u '%s')\n", i, p->name ? p->name : "?");
        d += pd;
    }
    return d;
}

/* Sorts both sets and returns the number of differences (events missing on either side included). */
static inline int compare_sets(etl_schema_set *man, etl_schema_set *wevt, int skip)
{
    etl_schema_set_sort(man);
    etl_schema_set_sort(wevt);
    int d = 0;
    if (man->event_count != wevt->event_count) {
        fprintf(stderr, "  event count: man=%zu wevt=%zu\n", man->event_count, wevt->event_count);
        d++;
    }
    if (!(skip & CMP_SKIP_PROVIDER_COUNT) && man->provider_count != wevt->provider_count) {
        fprintf(stderr, "  provider count: man=%zu wevt=%zu\n", man->provider_count, wevt->provider_count);
        d++;
    }
    size_t n = man->event_count < wevt->event_count ? man->event_count : wevt->event_count;
    for (size_t i = 0; i < n; i++) {
        const etl_event_info *a = &man->events[i], *b = &wevt->events[i];
        if (!etl_guid_equal(&a->provider_guid, &b->provider_guid) || a->descriptor.id != b->descriptor.id ||
            a->descriptor.version != b->descriptor.version) {
            fprintf(stderr, "  event #%zu key differs: man %u v%u, wevt %u v%u\n", i, a->descriptor.id,
                    a->descriptor.version, b->descriptor.id, b->descriptor.version);
            return d + 1;
        }
        d += compare_event(a, b, skip);
    }
    return d;
}

#endif
