/* A JSON Lines conversion made with --stable, read back as baseline lines (include/etl/etl_diff.h): the
 * members the baseline form carries, in its order; `fields` flattened to the same "Struct.Member" and
 * "Array[i]" names. */
#include "etl/etl_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/json_parse.h"
#include "util/textbuf.h"

#define FIELDS_PREFIX "fields."
#define NO_ID "4294967295"

enum { M_TIME, M_PID, M_TID, M_PROCESS, M_PROVIDER, M_EVENT, M_ACTIVITY, M_RELATED, M_STATUS, M_PAYLOAD, M_EXTRA,
       M_BASELINE, M_OPTIONS, M_COUNT };
static const char *const member_names[M_COUNT] = {
    "time", "pid", "tid", "process", "provider", "event", "activity_id", "related_activity_id", "status",
    "payload", "extra_payload", "etlconv_baseline", "options",
};

typedef struct json_line {
    etl_textbuf values;         /* the top-level members' text, NUL-separated */
    size_t at[M_COUNT];         /* offset in values + 1; 0 = absent */
    int is_string[M_COUNT];
    etl_textbuf fields;         /* "\tName=Value" cells */
} json_line;

/* Typed JSON Lines follow a mapped value NAME with "NAME.value", its number (etlconv.1, TYPED OUTPUT): that
 * member is not a field of the event, and the text baseline does not have it. It is recognised as a
 * ".value" (or ".value[i]") member whose base name was written just before as a field (or its elements). */
static int is_mapped_number(const json_line *j, const char *name)
{
    const char *dot = strstr(name, ".value");
    if (!dot || (dot[6] != '\0' && dot[6] != '[') || !j->fields.data) return 0;
    size_t base = (size_t)(dot - name);
    for (const char *at = j->fields.data; (at = memchr(at, '\t', j->fields.data + j->fields.length - at)); at++)
        if ((size_t)(j->fields.data + j->fields.length - at) > base + 1 && memcmp(at + 1, name, base) == 0 &&
            (at[1 + base] == '=' || at[1 + base] == '['))
            return 1;
    return 0;
}

static void on_leaf(const char *path, const char *value, int is_string, void *ctx)
{
    json_line *j = ctx;
    if (strncmp(path, FIELDS_PREFIX, strlen(FIELDS_PREFIX)) == 0) {
        if (is_mapped_number(j, path + strlen(FIELDS_PREFIX))) return;
        etl_textbuf_putc(&j->fields, '\t');
        etl_baseline_escape(path + strlen(FIELDS_PREFIX), 1, &j->fields);
        etl_textbuf_putc(&j->fields, '=');
        etl_baseline_escape(is_string || strcmp(value, "null") != 0 ? value : "", 0, &j->fields);
        return;
    }
    for (int m = 0; m < M_COUNT; m++) {
        if (strcmp(path, member_names[m]) != 0) continue;
        j->at[m] = j->values.length + 1;
        j->is_string[m] = is_string;
        etl_textbuf_puts(&j->values, value);
        etl_textbuf_putc(&j->values, '\0');
        return;
    }
}

static const char *member(const json_line *j, int m)
{
    if (!j->at[m] || (!j->is_string[m] && strcmp(j->values.data + j->at[m] - 1, "null") == 0)) return NULL;
    return j->values.data + j->at[m] - 1;
}

/* The ordinal an activity GUID of the stable view stands for (etl_stable_apply), 0 for none. */
static unsigned activity(const char *text)
{
    etl_guid g;
    if (!text || etl_guid_parse(text, &g) != 0) return 0;
    return (unsigned)g.data4[4] << 24 | (unsigned)g.data4[5] << 16 | (unsigned)g.data4[6] << 8 | g.data4[7];
}

static void put_id(etl_textbuf *out, char prefix, const char *text)
{
    etl_textbuf_putc(out, '\t');
    etl_textbuf_putc(out, prefix);
    etl_textbuf_puts(out, !text || strcmp(text, NO_ID) == 0 ? "-" : text);
}

int etl_baseline_from_json(const char *line, size_t length, etl_textbuf *out, char *options, size_t cap)
{
    json_line j;
    memset(&j, 0, sizeof j);
    int rc = etl_json_parse(line, length, on_leaf, &j) == 0 && !j.values.failed && !j.fields.failed ? 0 : -1;
    if (rc == 0 && member(&j, M_BASELINE)) {
        const char *o = member(&j, M_OPTIONS);
        if (options && cap) {
            snprintf(options, cap, "%s", o ? o : "");
        }
        rc = 1;
    } else if (rc == 0 && (!member(&j, M_PROVIDER) || !member(&j, M_EVENT) || !j.at[M_PID] || !j.at[M_TID])) {
        rc = -1;  /* not an event of etlconv's JSON Lines */
    } else if (rc == 0) {
        const char *t = member(&j, M_TIME), *process = member(&j, M_PROCESS);
        etl_textbuf_puts(out, t ? t : "-");
        put_id(out, 'P', member(&j, M_PID));
        put_id(out, 'T', member(&j, M_TID));
        etl_textbuf_putc(out, '\t');
        if (process && *process) etl_baseline_escape(process, 0, out); else etl_textbuf_putc(out, '-');
        etl_textbuf_putc(out, '\t');
        etl_baseline_escape(member(&j, M_PROVIDER), 0, out);
        etl_textbuf_putc(out, '\t');
        etl_baseline_escape(member(&j, M_EVENT), 0, out);
        unsigned a = activity(member(&j, M_ACTIVITY)), r = activity(member(&j, M_RELATED));
        if (a) etl_textbuf_printf(out, "\t@activity=A%u", a);
        if (member(&j, M_RELATED)) etl_textbuf_printf(out, "\t@related=A%u", r);
        const char *status = member(&j, M_STATUS), *payload = member(&j, M_PAYLOAD), *extra = member(&j, M_EXTRA);
        int no_schema = status && strcmp(status, "no_schema") == 0;
        if (!no_schema) etl_textbuf_append(out, j.fields.data, j.fields.length);
        if (payload && *payload) {
            etl_textbuf_puts(out, no_schema ? "\t@payload=0x" : "\t@undecoded=0x");
            etl_textbuf_puts(out, payload);
        }
        if (extra && *extra) {
            etl_textbuf_puts(out, "\t@extra=0x");
            etl_textbuf_puts(out, extra);
        }
        etl_textbuf_putc(out, '\n');
    }
    etl_textbuf_free(&j.values);
    etl_textbuf_free(&j.fields);
    return rc;
}
