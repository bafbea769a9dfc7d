/* Test-only helper for the self-describing schema tests: compares decoded events with the EVENT lines of a
 * PerfView baseline (format: corpus/EXPECTED.md §1). For each baseline line of the given providers, our event
 * with the same "Provider/Event" key and rank must carry the same value for every field PerfView prints
 * (found by name, case-insensitive), after PerfView's display conventions are undone. */
#ifndef TESTS_SELFDESC_PERFVIEW_H
#define TESTS_SELFDESC_PERFVIEW_H

#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_schema.h"
#include "selfdesc_records.h"

#define PV_MAX_LINES 160

typedef struct pv_line {
    char key[160];
    char fields[640];      /* "name=value; name=value; " as in the baseline */
    int used;
} pv_line;

/* Fields PerfView derives or renders its own way: the test names them with the reason. */
typedef int (*pv_skip_fn)(const char *key, const char *field);

typedef struct pv_compare {
    pv_skip_fn skip_field;
    pv_line lines[PV_MAX_LINES];
    size_t line_count;
    long compared, mismatched, skipped;
    char first_mismatch[400];
} pv_compare;

static void pv_load_baseline(pv_compare *c, const char *path, const char *const *providers, size_t n)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    char line[2048];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "EVENT ", 6) != 0) continue;
        char *key = strstr(line, ": "), *end = key ? strstr(key, " PID=") : NULL;
        char *data = end ? strstr(end, "DataLen=") : NULL;
        if (!data || !(data = strstr(data, "; "))) continue;
        key += 2;
        *end = '\0';
        size_t i = 0;
        while (i < n && strncmp(key, providers[i], strlen(providers[i])) != 0) i++;
        if (i == n) continue;
        assert_true(c->line_count < PV_MAX_LINES);
        pv_line *e = &c->lines[c->line_count++];
        snprintf(e->key, sizeof e->key, "%.150s", key);
        snprintf(e->fields, sizeof e->fields, "%.600s", data + 2);
        e->fields[strcspn(e->fields, "\n")] = '\0';
    }
    fclose(f);
}

/* Our ISO date "2021-09-09T14:59:35.799000000Z" in PerfView's "yy/MM/dd HH:mm:ss.ffffff" form. */
static int pv_date(const char *ours, char *out, size_t cap)
{
    if (strlen(ours) < 27 || ours[4] != '-' || ours[10] != 'T' || ours[19] != '.') return 0;
    snprintf(out, cap, "%.2s/%.2s/%.2s %.8s.%.6s", ours + 2, ours + 5, ours + 8, ours + 11, ours + 20);
    return 1;
}

/* PerfView's display conventions (EXPECTED.md §1): thousands separators, values cut to 20 characters + "...",
 * GUIDs without braces, True/False, UTC dates as yy/MM/dd HH:mm:ss.ffffff; bitmaps joined by "|". */
static int pv_same_value(const char *perfview, const char *ours)
{
    char p[256], o[256];
    size_t n = 0;
    int numeric = perfview[0] != '\0';
    for (const char *c = perfview; *c; c++)
        if (!(*c >= '0' && *c <= '9') && *c != ',' && *c != '-' && *c != '.') numeric = 0;
    for (const char *c = perfview; *c && n + 1 < sizeof p; c++)
        if (!(numeric && *c == ',')) p[n++] = *c;
    p[n] = '\0';
    n = 0;
    size_t len = strlen(ours);
    int guid = len == 38 && ours[0] == '{' && ours[37] == '}';
    if (!pv_date(ours, o, sizeof o)) {
        for (size_t i = guid; i < len - guid && n + 1 < sizeof o; i++) {
            if (strncmp(ours + i, " | ", 3) == 0) {
                o[n++] = '|';
                i += 2;
            } else {
                o[n++] = ours[i];
            }
        }
        o[n] = '\0';
    }
    size_t plen = strlen(p);
    /* value-map names keep the schema's trailing spaces as Windows prints them; TraceEvent trims them */
    while (n > plen && n > 0 && o[n - 1] == ' ') o[--n] = '\0';
    if (plen == 23 && strcmp(p + 20, "...") == 0) return strncmp(p, o, 20) == 0;
    if (strcmp(p, "True") == 0 || strcmp(p, "False") == 0) return strcasecmp(p, o) == 0;
    return strcmp(p, o) == 0;
}

static void pv_on_event(const etl_decoded_event *ev, void *vctx)
{
    pv_compare *c = vctx;
    if (ev->source == ETL_SOURCE_NONE) return;
    char key[160];
    snprintf(key, sizeof key, "%.70s/%.80s", ev->provider_name, ev->event_name);
    pv_line *b = NULL;
    for (size_t i = 0; i < c->line_count && !b; i++)
        if (!c->lines[i].used && strcmp(c->lines[i].key, key) == 0) b = &c->lines[i];
    if (!b) return; /* beyond PerfView's first five of this key, or a provider not compared */
    b->used = 1;
    char fields[640];
    memcpy(fields, b->fields, sizeof fields);
    for (char *save = NULL, *item = strtok_r(fields, ";", &save); item; item = strtok_r(NULL, ";", &save)) {
        while (*item == ' ') item++;
        char *eq = strchr(item, '=');
        if (!eq) continue;
        *eq = '\0';
        if (c->skip_field && c->skip_field(key, item)) {
            c->skipped++;
            continue;
        }
        const char *value = NULL;
        for (size_t k = 0; k < ev->field_count && !value; k++)
            if (ev->fields[k].kind == ETL_FIELD_VALUE && strcasecmp(ev->fields[k].name, item) == 0)
                value = ev->fields[k].value;
        c->compared++;
        if ((!value || !pv_same_value(eq + 1, value)) && !c->mismatched++)
            snprintf(c->first_mismatch, sizeof c->first_mismatch, "%s %s: PerfView '%.60s', ours '%.60s'", key,
                     item, eq + 1, value ? value : "(missing)");
    }
}

/* Decodes `etl` and compares it with the baseline lines of `providers` (prefixes "Provider/"); fails the test
 * on any difference or any baseline line without a decoded event. */
static pv_compare *pv_compare_trace(const char *etl, const char *baseline, const char *const *providers, size_t n,
                                    pv_skip_fn skip_field)
{
    static pv_compare c;
    memset(&c, 0, sizeof c);
    c.skip_field = skip_field;
    pv_load_baseline(&c, baseline, providers, n);
    assert_true(c.line_count > 0);
    assert_int_equal(sd_decode_trace(etl, pv_on_event, &c), 0);
    for (size_t i = 0; i < c.line_count; i++)
        if (!c.lines[i].used) fail_msg("no decoded event for baseline line %zu: %s", i, c.lines[i].key);
    if (c.mismatched) fail_msg("%ld of %ld values differ; first: %s", c.mismatched, c.compared, c.first_mismatch);
    print_message("%s: %zu PerfView lines, %ld values compared, %ld PerfView-only skipped\n", etl, c.line_count,
                  c.compared, c.skipped);
    return &c;
}

#endif
