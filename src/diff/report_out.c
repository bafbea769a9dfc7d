/* Writers of the diff report (see report_out.h). */
#include "diff/report_out.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "util/xml_text.h"

#define MAX_COMPARED_FIELDS 512          /* more fields: the two lines are shown whole */
#define MAX_JUNIT_TEXT_PER_TYPE (64u << 10)
#define ARROW " \xE2\x86\x92 "            /* " → " */

enum { RED, GREEN, CYAN, YELLOW, BOLD, RESET };

typedef struct field_change {
    diff_cell name, old_value, new_value;  /* text NULL: absent on that side */
} field_change;
static const char *const ansi[] = {"\033[31m", "\033[32m", "\033[36m", "\033[33m", "\033[1m", "\033[0m"};

struct report_out {
    etl_diff *d;
    int json;
    FILE *out, *junit;
    const char *old_name, *new_name;
    etl_textbuf text;          /* what goes to `out` next */
    etl_textbuf la, lb;        /* event lines read back */
    etl_textbuf shown;         /* one event as displayed */
    uint32_t stream;           /* of the current hunk */
    int64_t json_stream;       /* stream whose JSON object is open, -1 none */
    int first_count, first_event;
    uint64_t hunks;
    etl_textbuf *junit_text;   /* per event type: failure text */
    uint64_t *junit_changes;   /* per event type: changed events */
    uint64_t *junit_hunk;      /* per event type: the last hunk written into its text */
    uint8_t *count_differs;
    field_change *changes;  /* scratch of put_pair: 2 * MAX_COMPARED_FIELDS + 1 */
};

static void color(report_out *ro, int c)
{
    if (ro->d->opt.color && !ro->json) etl_textbuf_puts(&ro->text, ansi[c]);
}

static int flush(report_out *ro)
{
    int rc = ro->text.failed ? -1 : 0;
    if (rc == 0 && ro->text.length && fwrite(ro->text.data, 1, ro->text.length, ro->out) != ro->text.length) rc = -1;
    etl_textbuf_reset(&ro->text);
    return rc;
}

report_out *report_out_new(etl_diff *d, int format, FILE *out, FILE *junit, const char *old_name,
                           const char *new_name)
{
    report_out *ro = calloc(1, sizeof *ro);
    if (!ro) return NULL;
    ro->d = d;
    ro->json = format == ETL_DIFF_REPORT_JSON;
    ro->out = out;
    ro->junit = junit;
    ro->old_name = old_name;
    ro->new_name = new_name;
    ro->json_stream = -1;
    ro->first_count = 1;
    ro->changes = calloc(2 * MAX_COMPARED_FIELDS + 1, sizeof *ro->changes);
    if (!ro->changes) {
        free(ro);
        return NULL;
    }
    size_t types = d->types.count + 1;
    if (junit) {
        ro->junit_text = calloc(types, sizeof *ro->junit_text);
        ro->junit_changes = calloc(types, sizeof *ro->junit_changes);
        ro->junit_hunk = calloc(types, sizeof *ro->junit_hunk);
        ro->count_differs = calloc(types, 1);
        if (!ro->junit_text || !ro->junit_changes || !ro->junit_hunk || !ro->count_differs) {
            report_out_free(ro);
            return NULL;
        }
    }
    if (ro->json) {
        etl_textbuf_puts(&ro->text, "{\"old\":");
        diff_json_string(&ro->text, old_name, strlen(old_name));
        etl_textbuf_puts(&ro->text, ",\"new\":");
        diff_json_string(&ro->text, new_name, strlen(new_name));
        etl_textbuf_puts(&ro->text, ",\"events\":{\"old\":");
        etl_textbuf_printf(&ro->text, "%zu,\"new\":%zu},\"counts\":[", d->side[0].count, d->side[1].count);
    } else {
        color(ro, BOLD);
        etl_textbuf_printf(&ro->text, "--- %s (%zu events)\n+++ %s (%zu events)\n", old_name, d->side[0].count,
                           new_name, d->side[1].count);
        color(ro, RESET);
    }
    return ro;
}

void report_out_free(report_out *ro)
{
    if (!ro) return;
    if (ro->junit_text)
        for (uint32_t t = 0; t <= ro->d->types.count; t++) etl_textbuf_free(&ro->junit_text[t]);
    free(ro->junit_text);
    free(ro->junit_changes);
    free(ro->junit_hunk);
    free(ro->count_differs);
    free(ro->changes);
    etl_textbuf_free(&ro->text);
    etl_textbuf_free(&ro->la);
    etl_textbuf_free(&ro->lb);
    etl_textbuf_free(&ro->shown);
    free(ro);
}

/* "provider\tevent" → the two parts. */
static void type_parts(const report_out *ro, uint32_t type, diff_cell *provider, diff_cell *event)
{
    const char *key = strmap_key(&ro->d->types, type);
    const char *tab = strchr(key, '\t');
    *provider = (diff_cell){key, tab ? (size_t)(tab - key) : strlen(key)};
    *event = (diff_cell){tab ? tab + 1 : "", tab ? strlen(tab + 1) : 0};
}

int report_out_count(report_out *ro, uint32_t type, uint64_t o, uint64_t n, int differs)
{
    diff_cell p, e;
    type_parts(ro, type, &p, &e);
    if (ro->count_differs) ro->count_differs[type] = (uint8_t)differs;
    if (ro->json) {
        if (!ro->first_count) etl_textbuf_putc(&ro->text, ',');
        etl_textbuf_puts(&ro->text, "\n{\"provider\":");
        diff_json_string(&ro->text, p.text, p.length);
        etl_textbuf_puts(&ro->text, ",\"event\":");
        diff_json_string(&ro->text, e.text, e.length);
        etl_textbuf_printf(&ro->text, ",\"old\":%" PRIu64 ",\"new\":%" PRIu64 ",\"differs\":%s}", o, n,
                           differs ? "true" : "false");
        ro->first_count = 0;
        return flush(ro);
    }
    if (o == n && !ro->d->opt.all_counts) return 0;
    if (ro->first_count) etl_textbuf_puts(&ro->text, "Event counts (old" ARROW "new):\n");
    ro->first_count = 0;
    color(ro, differs ? YELLOW : RESET);
    etl_textbuf_printf(&ro->text, "  %-40.*s %-32.*s %10" PRIu64 ARROW "%-10" PRIu64, (int)p.length, p.text,
                       (int)e.length, e.text, o, n);
    if (o != n) etl_textbuf_printf(&ro->text, " (%+" PRId64 ")%s", (int64_t)(n - o), differs ? "" : " within tolerance");
    color(ro, RESET);
    etl_textbuf_putc(&ro->text, '\n');
    return flush(ro);
}

int report_out_counts_end(report_out *ro)
{
    if (ro->json) etl_textbuf_puts(&ro->text, "],\"streams\":[");
    return flush(ro);
}

int report_out_hunk_begin(report_out *ro, uint32_t stream, uint32_t a_start, uint32_t a_count, uint32_t b_start,
                          uint32_t b_count)
{
    ro->hunks++;
    ro->stream = stream;
    const char *name = ro->d->stream_names[stream];
    if (ro->json) {
        if (ro->json_stream != (int64_t)stream) {
            if (ro->json_stream >= 0) etl_textbuf_puts(&ro->text, "]},");
            etl_textbuf_puts(&ro->text, "\n{\"stream\":");
            diff_json_string(&ro->text, name, strlen(name));
            etl_textbuf_puts(&ro->text, ",\"hunks\":[");
        } else {
            etl_textbuf_putc(&ro->text, ',');
        }
        ro->json_stream = stream;
        etl_textbuf_printf(&ro->text, "\n{\"old_start\":%u,\"old_count\":%u,\"new_start\":%u,\"new_count\":%u,\"events\":[",
                           a_start + 1, a_count, b_start + 1, b_count);
        ro->first_event = 1;
        return flush(ro);
    }
    color(ro, CYAN);
    etl_textbuf_printf(&ro->text, "@@ -%u,%u +%u,%u @@ %s", a_start + 1, a_count, b_start + 1, b_count, name);
    color(ro, RESET);
    etl_textbuf_putc(&ro->text, '\n');
    return flush(ro);
}

/* The event as shown: [time] then the columns the stream name does not already say. */
static void shown_text(report_out *ro, const etl_textbuf *line)
{
    diff_cell c[COL_FIRST_FIELD];
    etl_textbuf_reset(&ro->shown);
    size_t n = diff_split(line->data ? line->data : "", line->length, c, COL_FIRST_FIELD);
    if (n < COL_FIRST_FIELD) {
        etl_textbuf_append(&ro->shown, line->data, line->length);
        return;
    }
    etl_diff_by by = ro->d->opt.by;
    size_t first = by == ETL_DIFF_BY_THREAD ? COL_EVENT : by == ETL_DIFF_BY_PROCESS ? COL_THREAD_ID : COL_PROCESS_ID;
    if (ro->d->opt.compare_time) {
        etl_textbuf_append(&ro->shown, c[COL_TIME].text, c[COL_TIME].length);
        etl_textbuf_putc(&ro->shown, ' ');
    }
    for (size_t k = first; k < COL_FIRST_FIELD; k++) {
        if (k == COL_PROCESS_NAME && by == ETL_DIFF_BY_PROCESS) continue;
        if (k == COL_PROVIDER && by != ETL_DIFF_BY_NONE) continue;
        etl_textbuf_append(&ro->shown, c[k].text, c[k].length);
        etl_textbuf_putc(&ro->shown, ' ');
    }
    const char *rest = c[COL_EVENT].text + c[COL_EVENT].length;
    size_t len = (size_t)(line->data + line->length - rest);
    ro->shown.length--;  /* the last space */
    for (size_t i = 0; i < len; i++) etl_textbuf_putc(&ro->shown, rest[i] == '\t' ? ' ' : rest[i]);
}

static int read_event(report_out *ro, int side, uint32_t index, etl_textbuf *buf)
{
    return diff_read_line(&ro->d->side[side], ro->d->side[side].events[index].offset, buf);
}

/* JUnit: the failure text of the event's type gets the hunk header (once per hunk) and the line. */
static void junit_note(report_out *ro, uint32_t type, char op, const char *text, size_t len)
{
    if (!ro->junit_text) return;
    etl_textbuf *t = &ro->junit_text[type];
    ro->junit_changes[type]++;
    if (t->length > MAX_JUNIT_TEXT_PER_TYPE) return;
    if (ro->junit_hunk[type] != ro->hunks) {
        etl_textbuf_printf(t, "@@ %s\n", ro->d->stream_names[ro->stream]);
        ro->junit_hunk[type] = ro->hunks;
    }
    etl_textbuf_putc(t, op);
    etl_textbuf_putc(t, ' ');
    etl_textbuf_append(t, text, len);
    etl_textbuf_putc(t, '\n');
}

static void json_event_start(report_out *ro, char op, int side, uint32_t index)
{
    diff_cell p, e;
    type_parts(ro, ro->d->side[side].events[index].type, &p, &e);
    if (!ro->first_event) etl_textbuf_putc(&ro->text, ',');
    ro->first_event = 0;
    etl_textbuf_printf(&ro->text, "\n{\"op\":\"%c\",\"provider\":", op);
    diff_json_string(&ro->text, p.text, p.length);
    etl_textbuf_puts(&ro->text, ",\"event\":");
    diff_json_string(&ro->text, e.text, e.length);
}

/* One whole event line: context, deleted or added. */
static int put_event(report_out *ro, char op, int side, uint32_t index)
{
    etl_textbuf *line = side ? &ro->lb : &ro->la;
    if (read_event(ro, side, index, line) != 0) return -1;
    shown_text(ro, line);
    if (op != ' ') junit_note(ro, ro->d->side[side].events[index].type, op, ro->shown.data, ro->shown.length);
    if (ro->json) {
        json_event_start(ro, op, side, index);
        etl_textbuf_puts(&ro->text, ",\"text\":");
        diff_json_string(&ro->text, ro->shown.data, ro->shown.length);
        etl_textbuf_putc(&ro->text, '}');
        return flush(ro);
    }
    color(ro, op == '-' ? RED : op == '+' ? GREEN : RESET);
    etl_textbuf_putc(&ro->text, op);
    etl_textbuf_putc(&ro->text, ' ');
    etl_textbuf_append(&ro->text, ro->shown.data, ro->shown.length);
    color(ro, RESET);
    etl_textbuf_putc(&ro->text, '\n');
    return flush(ro);
}

int report_out_event(report_out *ro, char op, uint32_t a, uint32_t b)
{
    (void)b;
    return put_event(ro, op, 0, a);
}

/* Field cells of a line from COL_FIRST_FIELD on; 0 when there are too many to compare by name. */
static size_t field_cells(const etl_textbuf *line, diff_cell *cells)
{
    diff_cell all[COL_FIRST_FIELD + MAX_COMPARED_FIELDS + 1];
    size_t n = diff_split(line->data ? line->data : "", line->length, all, sizeof all / sizeof all[0]);
    if (n < COL_FIRST_FIELD || n > COL_FIRST_FIELD + MAX_COMPARED_FIELDS) return SIZE_MAX;
    memcpy(cells, all + COL_FIRST_FIELD, (n - COL_FIRST_FIELD) * sizeof *cells);
    return n - COL_FIRST_FIELD;
}

static size_t name_length(const diff_cell *c)
{
    const char *eq = memchr(c->text, '=', c->length);
    return eq ? (size_t)(eq - c->text) : c->length;
}



static void change_text(const field_change *c, etl_textbuf *t)
{
    etl_textbuf_puts(t, "    ");
    etl_textbuf_append(t, c->name.text, c->name.length);
    etl_textbuf_puts(t, ": ");
    if (c->old_value.text) etl_textbuf_append(t, c->old_value.text, c->old_value.length); else etl_textbuf_puts(t, "(absent)");
    etl_textbuf_puts(t, ARROW);
    if (c->new_value.text) etl_textbuf_append(t, c->new_value.text, c->new_value.length); else etl_textbuf_puts(t, "(absent)");
}

static void json_value(etl_textbuf *t, const diff_cell *v)
{
    if (v->text)
        diff_json_string(t, v->text, v->length);
    else
        etl_textbuf_puts(t, "null");
}

/* The fields that differ between an old and a new event of the same type (by name; a time beyond the
 * tolerance too when times are compared). SIZE_MAX when they cannot be compared field by field. */
static size_t compare_fields(report_out *ro, uint32_t a, uint32_t b, field_change *out)
{
    static const char time_name[] = "time";
    diff_cell fa[MAX_COMPARED_FIELDS], fb[MAX_COMPARED_FIELDS];
    size_t na = field_cells(&ro->la, fa), nb = field_cells(&ro->lb, fb), n = 0;
    if (na == SIZE_MAX || nb == SIZE_MAX) return SIZE_MAX;
    const diff_event *ea = &ro->d->side[0].events[a], *eb = &ro->d->side[1].events[b];
    int64_t dt = ea->time - eb->time;
    if (ro->d->opt.compare_time && (dt > ro->d->opt.time_tolerance || -dt > ro->d->opt.time_tolerance)) {
        diff_cell ta[1], tb[1];
        diff_split(ro->la.data, ro->la.length, ta, 1);
        diff_split(ro->lb.data, ro->lb.length, tb, 1);
        out[n++] = (field_change){{time_name, 4}, ta[0], tb[0]};
    }
    uint8_t matched[MAX_COMPARED_FIELDS] = {0};
    for (size_t i = 0; i < na; i++) {
        size_t ln = name_length(&fa[i]);
        diff_cell name = {fa[i].text, ln}, ov = {fa[i].text + ln + (ln < fa[i].length), fa[i].length - ln - (ln < fa[i].length)};
        size_t j = 0;
        while (j < nb && (matched[j] || name_length(&fb[j]) != ln || memcmp(fb[j].text, fa[i].text, ln) != 0)) j++;
        if (j == nb) {
            out[n++] = (field_change){name, ov, {NULL, 0}};
            continue;
        }
        matched[j] = 1;
        diff_cell nv = {fb[j].text + ln + (ln < fb[j].length), fb[j].length - ln - (ln < fb[j].length)};
        if (nv.length != ov.length || memcmp(nv.text, ov.text, ov.length) != 0) out[n++] = (field_change){name, ov, nv};
    }
    for (size_t j = 0; j < nb; j++) {
        if (matched[j]) continue;
        size_t ln = name_length(&fb[j]);
        diff_cell nv = {fb[j].text + ln + (ln < fb[j].length), fb[j].length - ln - (ln < fb[j].length)};
        out[n++] = (field_change){{fb[j].text, ln}, {NULL, 0}, nv};
    }
    return n;
}

/* An old and a new event of the same type shown as one changed event; 1 when they differ in no field
 * (then they are shown whole, deleted and added). */
static int put_pair(report_out *ro, uint32_t a, uint32_t b)
{
    field_change *changes = ro->changes;
    if (read_event(ro, 0, a, &ro->la) != 0 || read_event(ro, 1, b, &ro->lb) != 0) return -1;
    size_t n = compare_fields(ro, a, b, changes);
    if (n == 0 || n == SIZE_MAX) return 1;
    shown_text(ro, &ro->la);
    diff_cell c[COL_FIRST_FIELD];
    diff_split(ro->la.data, ro->la.length, c, COL_FIRST_FIELD);
    uint32_t type = ro->d->side[0].events[a].type;
    etl_textbuf *t = &ro->text;
    if (ro->json) {
        json_event_start(ro, '~', 0, a);
        etl_textbuf_puts(t, ",\"text\":");
        diff_json_string(t, ro->shown.data, ro->shown.length);
        etl_textbuf_puts(t, ",\"changes\":[");
        for (size_t i = 0; i < n; i++) {
            etl_textbuf_puts(t, i ? ",{\"field\":" : "{\"field\":");
            diff_json_string(t, changes[i].name.text, changes[i].name.length);
            etl_textbuf_puts(t, ",\"old\":");
            json_value(t, &changes[i].old_value);
            etl_textbuf_puts(t, ",\"new\":");
            json_value(t, &changes[i].new_value);
            etl_textbuf_putc(t, '}');
        }
        etl_textbuf_puts(t, "]}");
    } else {
        color(ro, YELLOW);
        etl_textbuf_puts(t, "~ ");
        etl_textbuf_append(t, c[COL_EVENT].text, c[COL_EVENT].length);
        color(ro, RESET);
        etl_textbuf_putc(t, '\n');
        for (size_t i = 0; i < n; i++) {
            change_text(&changes[i], t);
            etl_textbuf_putc(t, '\n');
        }
    }
    if (ro->junit_text) {
        etl_textbuf_reset(&ro->shown);
        etl_textbuf_append(&ro->shown, c[COL_EVENT].text, c[COL_EVENT].length);
        for (size_t i = 0; i < n; i++) {
            etl_textbuf_putc(&ro->shown, '\n');
            change_text(&changes[i], &ro->shown);
        }
        junit_note(ro, type, '~', ro->shown.data, ro->shown.length);
    }
    return flush(ro);
}

int report_out_change(report_out *ro, const uint32_t *dels, uint32_t ndel, const uint32_t *adds, uint32_t nadd)
{
    const diff_event *ea = ro->d->side[0].events, *eb = ro->d->side[1].events;
    uint32_t next_add = 0;  /* pairs keep their order: an add pairs only after the previous pair's add */
    for (uint32_t i = 0; i < ndel; i++) {
        uint32_t j = next_add;
        while (j < nadd && eb[adds[j]].type != ea[dels[i]].type) j++;
        if (j < nadd) {
            for (; next_add < j; next_add++)
                if (put_event(ro, '+', 1, adds[next_add]) != 0) return -1;
            int rc = put_pair(ro, dels[i], adds[j]);
            if (rc < 0) return -1;
            if (rc == 1 && (put_event(ro, '-', 0, dels[i]) != 0 || put_event(ro, '+', 1, adds[j]) != 0)) return -1;
            next_add = j + 1;
        } else if (put_event(ro, '-', 0, dels[i]) != 0) {
            return -1;
        }
    }
    for (; next_add < nadd; next_add++)
        if (put_event(ro, '+', 1, adds[next_add]) != 0) return -1;
    return 0;
}

int report_out_hunk_end(report_out *ro)
{
    if (ro->json) etl_textbuf_puts(&ro->text, "]}");
    return flush(ro);
}

uint64_t report_out_hunk_count(const report_out *ro)
{
    return ro->hunks;
}

static void xml_text(etl_textbuf *out, const char *text, size_t len, etl_textbuf *scratch)
{
    etl_textbuf_reset(scratch);
    etl_textbuf_append(scratch, text, len);
    const char *clean = scratch->data ? scratch->data : "";
    etl_textbuf cleaned = {0};
    if (!etl_xml_text_is_clean(clean)) {
        etl_xml_text_clean(&cleaned, clean);
        clean = cleaned.data ? cleaned.data : "";
    }
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': etl_textbuf_puts(out, "&amp;"); break;
        case '<': etl_textbuf_puts(out, "&lt;"); break;
        case '>': etl_textbuf_puts(out, "&gt;"); break;
        case '"': etl_textbuf_puts(out, "&quot;"); break;
        default: etl_textbuf_putc(out, *p);
        }
    }
    etl_textbuf_free(&cleaned);
}

/* One test case per event type: it fails when its count differs or events of it changed. */
static int write_junit(report_out *ro)
{
    etl_diff *d = ro->d;
    uint32_t types = d->types.count, failures = 0;
    for (uint32_t t = 0; t < types; t++) failures += ro->count_differs[t] || ro->junit_changes[t];
    etl_textbuf x = {0}, scratch = {0};
    etl_textbuf_puts(&x, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    etl_textbuf_printf(&x, "<testsuites name=\"etlconv diff\" tests=\"%u\" failures=\"%u\">\n", types, failures);
    etl_textbuf_puts(&x, "  <testsuite name=\"");
    xml_text(&x, ro->old_name, strlen(ro->old_name), &scratch);
    etl_textbuf_puts(&x, " vs ");
    xml_text(&x, ro->new_name, strlen(ro->new_name), &scratch);
    etl_textbuf_printf(&x, "\" tests=\"%u\" failures=\"%u\" errors=\"0\">\n", types, failures);
    for (uint32_t t = 0; t < types; t++) {
        diff_cell p, e;
        type_parts(ro, t, &p, &e);
        uint64_t o = d->type_count[0][t], n = d->type_count[1][t];
        etl_textbuf_puts(&x, "    <testcase classname=\"");
        xml_text(&x, p.text, p.length, &scratch);
        etl_textbuf_puts(&x, "\" name=\"");
        xml_text(&x, e.text, e.length, &scratch);
        if (!ro->count_differs[t] && !ro->junit_changes[t]) {
            etl_textbuf_puts(&x, "\"/>\n");
            continue;
        }
        etl_textbuf_printf(&x, "\">\n      <failure type=\"difference\" message=\"count %" PRIu64 ARROW "%" PRIu64
                           "; %" PRIu64 " events changed\">", o, n, ro->junit_changes[t]);
        xml_text(&x, ro->junit_text[t].data ? ro->junit_text[t].data : "", ro->junit_text[t].length, &scratch);
        if (ro->junit_text[t].length > MAX_JUNIT_TEXT_PER_TYPE) etl_textbuf_puts(&x, "(more changes not shown)\n");
        etl_textbuf_puts(&x, "</failure>\n    </testcase>\n");
    }
    etl_textbuf_puts(&x, "  </testsuite>\n</testsuites>\n");
    int rc = x.failed || scratch.failed || fwrite(x.data, 1, x.length, ro->junit) != x.length ? -1 : 0;
    etl_textbuf_free(&x);
    etl_textbuf_free(&scratch);
    return rc;
}

int report_out_end(report_out *ro, int different)
{
    if (ro->json) {
        if (ro->json_stream >= 0) etl_textbuf_puts(&ro->text, "]}");
        etl_textbuf_printf(&ro->text, "],\"same\":%s}\n", different ? "false" : "true");
    } else if (!different) {
        etl_textbuf_puts(&ro->text, "same\n");
    }
    int rc = flush(ro);
    if (rc == 0 && ro->junit) rc = write_junit(ro);
    return rc;
}
