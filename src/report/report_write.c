/* Writes the report as XML or as one HTML page (layout in etlconv.1, "REPORT"). Rows are sorted by their
 * first counter, largest first, then by key, so the same trace always gives the same bytes. */
#include "report/report_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OUT_BUFFER 65536

typedef struct out {
    const etl_sink *sink;
    char buf[OUT_BUFFER];
    size_t used;
    int failed;
    int html;
} out;

static void flush(out *o)
{
    if (o->used && !o->failed && o->sink->write(o->sink->ctx, o->buf, o->used) != 0) o->failed = 1;
    o->used = 0;
}

static void put_n(out *o, const char *s, size_t n)
{
    while (n > 0) {
        if (o->used == OUT_BUFFER) flush(o);
        size_t k = OUT_BUFFER - o->used < n ? OUT_BUFFER - o->used : n;
        memcpy(o->buf + o->used, s, k);
        o->used += k;
        s += k;
        n -= k;
    }
}

static void put(out *o, const char *s)
{
    put_n(o, s, strlen(s));
}

/* Text content and attribute values: the five XML specials escaped; control characters that XML 1.0
 * forbids become U+FFFD. */
static void put_text(out *o, const char *s)
{
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        switch (c) {
        case '&': put(o, "&amp;"); break;
        case '<': put(o, "&lt;"); break;
        case '>': put(o, "&gt;"); break;
        case '"': put(o, "&quot;"); break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') put(o, "\xEF\xBF\xBD");
            else put_n(o, (const char *)&c, 1);
        }
    }
}

static void put_u64(out *o, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, v);
    put(o, num);
}

/* ---- tables ------------------------------------------------------------------------------------------- */

typedef struct column {
    const char *name;
    int text;     /* >= 0: row->text[text]; -1: value */
    int value;    /* row->value[value] */
    int hex;      /* print the key in hex */
} column;

enum { KEY = -2, PID_PLUS_ONE = -3 };

static const rt_table *sort_table;
static unsigned sort_mask;  /* bit i: value[i] counts in the sort key */

static uint64_t sort_key(const rt_row *r)
{
    uint64_t k = 0;
    for (int i = 0; i < RT_VALUES; i++)
        if (sort_mask & (1u << i)) k += r->value[i];
    return k;
}

static int by_count(const void *a, const void *b)
{
    const rt_row *x = &sort_table->rows[*(const size_t *)a], *y = &sort_table->rows[*(const size_t *)b];
    uint64_t kx = sort_key(x), ky = sort_key(y);
    if (kx != ky) return kx > ky ? -1 : 1;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return strcmp(x->text[0] ? x->text[0] : "", y->text[0] ? y->text[0] : "");
}

static void cell(out *o, const column *c, const rt_row *row)
{
    char num[24];
    const char *text = num;
    if (c->text >= 0) {
        text = row->text[c->text] ? row->text[c->text] : "";
    } else if (c->value == KEY) {
        snprintf(num, sizeof num, c->hex ? "0x%" PRIX64 : "%" PRIu64, row->key);
    } else if (c->value == PID_PLUS_ONE) {
        if (row->value[1]) snprintf(num, sizeof num, "%" PRIu64, row->value[1] - 1);
        else num[0] = '\0';
    } else {
        snprintf(num, sizeof num, "%" PRIu64, row->value[c->value]);
    }
    if (o->html) {
        put(o, c->text >= 0 ? "<td>" : "<td class=\"n\">");
        put_text(o, text);
        put(o, "</td>");
    } else {
        put(o, "<data name=\"");
        put(o, c->name);
        put(o, "\">");
        put_text(o, text);
        put(o, "</data>");
    }
}

static int write_table(out *o, const char *name, int level, const rt_table *t, const column *cols, size_t ncols,
                       unsigned sort_values)
{
    size_t *order = malloc((t->count ? t->count : 1) * sizeof *order);
    if (!order) return -1;
    for (size_t i = 0; i < t->count; i++) order[i] = i;
    sort_table = t;
    sort_mask = sort_values;
    qsort(order, t->count, sizeof *order, by_count);
    if (o->html) {
        put(o, "<h2>");
        put(o, name);
        put(o, "</h2>\n<table>\n<tr>");
        for (size_t c = 0; c < ncols; c++) {
            put(o, "<th>");
            put(o, cols[c].name);
            put(o, "</th>");
        }
        put(o, "</tr>\n");
    } else {
        put(o, "\t<table name=\"");
        put(o, name);
        put(o, "\" level=\"");
        put_u64(o, (uint64_t)level);
        put(o, "\" rows=\"");
        put_u64(o, t->count);
        put(o, "\" omitted=\"");
        put_u64(o, t->dropped);
        put(o, "\">\n");
    }
    for (size_t i = 0; i < t->count; i++) {
        put(o, o->html ? "<tr>" : "\t\t<item>");
        for (size_t c = 0; c < ncols; c++) cell(o, &cols[c], &t->rows[order[i]]);
        put(o, o->html ? "</tr>\n" : "</item>\n");
    }
    if (o->html) {
        put(o, "</table>\n");
        if (t->dropped) {
            put(o, "<p>");
            put_u64(o, t->dropped);
            put(o, " more rows left out (the report keeps 100000 per table).</p>\n");
        }
    } else {
        put(o, "\t</table>\n");
    }
    free(order);
    return 0;
}

static const column provider_cols[] = {
    {"Provider", 1, 0, 0}, {"Guid", 0, 0, 0}, {"Events", -1, 0, 0}, {"PayloadBytes", -1, 1, 0},
};
static const column type_cols[] = {
    {"Provider", 1, 0, 0}, {"Guid", 0, 0, 0}, {"Event", 2, 0, 0}, {"EventID", -1, 2, 0}, {"Version", -1, 3, 0},
    {"Opcode", -1, 4, 0}, {"Task", -1, 5, 0}, {"Events", -1, 0, 0}, {"PayloadBytes", -1, 1, 0},
};
static const column process_cols[] = {
    {"PID", -1, KEY, 0}, {"Image", 1, 0, 0}, {"Events", -1, 0, 0}, {"DiskReads", -1, 1, 0},
    {"DiskReadBytes", -1, 2, 0}, {"DiskWrites", -1, 3, 0}, {"DiskWriteBytes", -1, 4, 0},
    {"FileReads", -1, 5, 0}, {"FileReadBytes", -1, 6, 0}, {"FileWrites", -1, 7, 0}, {"FileWriteBytes", -1, 8, 0},
};
static const column disk_cols[] = {
    {"Disk", -1, KEY, 0}, {"Reads", -1, 0, 0}, {"ReadBytes", -1, 1, 0}, {"Writes", -1, 2, 0}, {"WriteBytes", -1, 3, 0},
};
static const column file_cols[] = {
    {"File", 0, 0, 0}, {"Reads", -1, 0, 0}, {"ReadBytes", -1, 1, 0}, {"Writes", -1, 2, 0},
    {"WriteBytes", -1, 3, 0}, {"DiskReads", -1, 4, 0}, {"DiskReadBytes", -1, 5, 0}, {"DiskWrites", -1, 6, 0},
    {"DiskWriteBytes", -1, 7, 0},
};
static const column thread_cols[] = {
    {"TID", -1, KEY, 0}, {"PID", -1, PID_PLUS_ONE, 0}, {"Events", -1, 0, 0},
};
#define COUNT(a) (sizeof a / sizeof a[0])

/* File objects → one row per file name; I/O of objects never named is only counted. */
static int merge_files(const etl_report *r, rt_table *files, uint64_t *unnamed_io)
{
    rt_init(files, ETL_REPORT_MAX_ROWS);
    for (size_t i = 0; i < r->file_objects.count; i++) {
        const rt_row *obj = &r->file_objects.rows[i];
        const char *name = etl_report_file_name(r, obj->key);
        if (!name && obj->value[8]) name = etl_report_file_name(r, obj->value[8]);
        if (!name) {
            *unnamed_io += obj->value[0] + obj->value[2] + obj->value[4] + obj->value[6];
            continue;
        }
        int nomem = 0;
        rt_row *f = rt_get(files, rt_hash_text(name, 7), name, &nomem);
        if (nomem) return -1;
        if (f)
            for (int k = 0; k < 8; k++) f->value[k] += obj->value[k];
    }
    return 0;
}

static void header_item(out *o, const char *name, const char *value)
{
    if (o->html) {
        put(o, "<tr><th>");
        put(o, name);
        put(o, "</th><td>");
        put_text(o, value);
        put(o, "</td></tr>\n");
    } else {
        put(o, "\t\t<data name=\"");
        put(o, name);
        put(o, "\">");
        put_text(o, value);
        put(o, "</data>\n");
    }
}

static void header_number(out *o, const char *name, uint64_t v)
{
    char num[24];
    snprintf(num, sizeof num, "%" PRIu64, v);
    header_item(o, name, num);
}

static void write_header(out *o, const etl_report *r, const etl_run_totals *totals, uint64_t unnamed_io)
{
    put(o, o->html ? "<h2>Trace</h2>\n<table>\n" : "\t<header>\n");
    for (size_t i = 0; totals && i < totals->file_count; i++) header_item(o, "File", totals->files[i]);
    header_number(o, "Events", r->events);
    header_number(o, "EventsLost", totals ? totals->events_lost : 0);
    header_number(o, "BuffersLost", totals ? totals->buffers_lost : 0);
    if (r->events) {
        char t[48];
        header_item(o, "FirstEvent", etl_filetime_format(r->first_time, 7, t, sizeof t));
        header_item(o, "LastEvent", etl_filetime_format(r->last_time, 7, t, sizeof t));
        int64_t d = r->last_time - r->first_time;
        snprintf(t, sizeof t, "%" PRId64 ".%07" PRId64, d / 10000000, d % 10000000);
        header_item(o, "DurationSeconds", t);
    }
    header_number(o, "DiskIoEvents", r->disk_events);
    header_number(o, "FileIoEvents", r->file_events);
    if (r->level >= ETL_REPORT_LEVEL_FILES) header_number(o, "IoWithoutFileName", unnamed_io);
    put(o, o->html ? "</table>\n" : "\t</header>\n");
}

int etl_report_write(const etl_report *r, const etl_run_totals *totals, int html, const etl_sink *sink)
{
    out *o = calloc(1, sizeof *o);
    if (!o) return -1;
    o->sink = sink;
    o->html = html;
    char level[8];
    snprintf(level, sizeof level, "%d", r->level);
    if (html) {
        put(o, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Workload report</title>\n"
               "<style>body{font-family:sans-serif}table{border-collapse:collapse}td,th{border:1px solid #999;"
               "padding:2px 6px;text-align:left}td.n{text-align:right}</style></head>\n<body>\n"
               "<h1>Workload report (level ");
        put(o, level);
        put(o, ")</h1>\n");
    } else {
        put(o, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<report generator=\"etlconv\" level=\"");
        put(o, level);
        put(o, "\">\n");
    }
    rt_table files;  /* file objects merged by name */
    uint64_t unnamed_io = 0;
    int rc = merge_files(r, &files, &unnamed_io);
    write_header(o, r, totals, unnamed_io);
    /* sorted by events, disks and files by bytes moved */
    if (rc == 0) rc = write_table(o, "Providers", 1, &r->providers, provider_cols, COUNT(provider_cols), 0x1);
    if (rc == 0) rc = write_table(o, "Event types", 1, &r->event_types, type_cols, COUNT(type_cols), 0x1);
    if (rc == 0 && r->level >= ETL_REPORT_LEVEL_PROCESSES)
        rc = write_table(o, "Processes", 2, &r->processes, process_cols, COUNT(process_cols), 0x1);
    if (rc == 0 && r->level >= ETL_REPORT_LEVEL_DISKS)
        rc = write_table(o, "Disks", 3, &r->disks, disk_cols, COUNT(disk_cols), 0x2 | 0x8);
    if (rc == 0 && r->level >= ETL_REPORT_LEVEL_FILES)
        rc = write_table(o, "Files", 4, &files, file_cols, COUNT(file_cols), 0x2 | 0x8 | 0x20 | 0x80);
    if (rc == 0 && r->level >= ETL_REPORT_LEVEL_THREADS)
        rc = write_table(o, "Threads", 5, &r->threads, thread_cols, COUNT(thread_cols), 0x1);
    rt_free(&files);
    put(o, html ? "</body></html>\n" : "</report>\n");
    flush(o);
    if (o->failed) rc = -1;
    free(o);
    return rc;
}
