/* The baseline text form of a stable event (include/etl/etl_diff.h): one line, tab-separated, field names
 * with their values, so a reviewer reads it and `diff`, `grep` and git handle it. */
#include "etl/etl_diff.h"

#include <stdio.h>
#include <string.h>

#include "util/textbuf.h"
#include "util/utf.h"

#define MAX_PATH_DEPTH 32
#define HEX_DIGITS "0123456789ABCDEF"

void etl_baseline_escape(const char *text, int is_name, etl_textbuf *out)
{
    const unsigned char *s = (const unsigned char *)(text ? text : "");
    size_t n = strlen((const char *)s);
    for (size_t i = 0; i < n;) {
        size_t run = i;  /* printable ASCII that needs no escape goes in as one block */
        while (run < n && s[run] >= 0x20 && s[run] < 0x7F && s[run] != '\\' && !(is_name && s[run] == '=')) run++;
        etl_textbuf_append(out, (const char *)s + i, run - i);
        if (run == n) break;
        i = run;
        uint32_t cp;
        size_t used = etl_utf8_decode(s + i, n - i, &cp);
        if (cp == '\\') {
            etl_textbuf_puts(out, "\\\\");
        } else if (cp == '\t') {
            etl_textbuf_puts(out, "\\t");
        } else if (cp == '\n') {
            etl_textbuf_puts(out, "\\n");
        } else if (cp == '\r') {
            etl_textbuf_puts(out, "\\r");
        } else if (cp < 0x20 || cp == 0x7F || cp == '=') {
            char hex[5] = {'\\', 'x', HEX_DIGITS[cp >> 4], HEX_DIGITS[cp & 0xF], 0};
            etl_textbuf_puts(out, hex);
        } else if (cp == 0xFFFD) {
            etl_textbuf_puts(out, "\xEF\xBF\xBD");  /* malformed UTF-8 becomes U+FFFD: the file stays UTF-8 */
        } else {
            etl_textbuf_append(out, (const char *)s + i, used);
        }
        i += used;
    }
}

static void put_hex(etl_textbuf *out, const uint8_t *bytes, size_t n)
{
    etl_textbuf_puts(out, "0x");
    for (size_t i = 0; i < n; i++) {
        char h[2] = {HEX_DIGITS[bytes[i] >> 4], HEX_DIGITS[bytes[i] & 0xF]};
        etl_textbuf_append(out, h, 2);
    }
}

/* The ordinal an activity GUID of the stable view stands for (0 for the zero GUID). */
static uint32_t activity_number(const etl_guid *g)
{
    uint32_t n = 0;
    for (int i = 0; i < 4; i++) n = n << 8 | g->data4[4 + i];
    return n;
}

static void put_id(etl_textbuf *out, char prefix, uint32_t id)
{
    etl_textbuf_putc(out, '\t');
    if (id == 0xFFFFFFFFu)
        etl_textbuf_printf(out, "%c-", prefix);
    else
        etl_textbuf_printf(out, "%c%u", prefix, (unsigned)id);
}

static void put_fields(const etl_decoded_event *ev, etl_textbuf *out)
{
    size_t depth_len[MAX_PATH_DEPTH];
    int depth = 0, too_deep = 0;
    etl_textbuf path;
    memset(&path, 0, sizeof path);
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (f->kind == ETL_FIELD_ARRAY_BEGIN || f->kind == ETL_FIELD_ARRAY_END) continue;
        if (f->kind == ETL_FIELD_STRUCT_END) {
            if (too_deep)
                too_deep--;
            else if (depth > 0)
                path.length = depth_len[--depth];
            continue;
        }
        size_t mark = path.length;
        if (f->kind == ETL_FIELD_STRUCT_BEGIN && (too_deep || depth == MAX_PATH_DEPTH)) {
            too_deep++;
            continue;
        }
        if (path.length) etl_textbuf_putc(&path, '.');
        etl_baseline_escape(f->name ? f->name : "", 1, &path);
        if (f->array_index >= 0) etl_textbuf_printf(&path, "[%d]", (int)f->array_index);
        if (f->kind == ETL_FIELD_STRUCT_BEGIN) {
            depth_len[depth++] = mark;
            continue;
        }
        etl_textbuf_putc(out, '\t');
        etl_textbuf_append(out, path.data ? path.data : "", path.length);
        etl_textbuf_putc(out, '=');
        etl_baseline_escape(f->value, 0, out);
        path.length = mark;
    }
    if (path.failed) out->failed = 1;
    etl_textbuf_free(&path);
}

void etl_baseline_render(const etl_decoded_event *ev, unsigned flags, etl_textbuf *out)
{
    const etl_event_record *r = ev->record;
    char t[32];
    etl_textbuf_puts(out, (flags & ETL_STABLE_NO_TIME) ? "-" : etl_stable_time(r->header.timestamp, t));
    put_id(out, 'P', r->header.process_id);  /* the record's process, as every writer shows it */
    put_id(out, 'T', r->header.thread_id);
    etl_textbuf_putc(out, '\t');
    if (ev->process_name && *ev->process_name)
        etl_baseline_escape(ev->process_name, 0, out);
    else
        etl_textbuf_putc(out, '-');
    etl_textbuf_putc(out, '\t');
    etl_baseline_escape(ev->provider_name, 0, out);
    etl_textbuf_putc(out, '\t');
    etl_baseline_escape(ev->event_name, 0, out);
    uint32_t activity = activity_number(&r->header.activity_id);
    if (activity) etl_textbuf_printf(out, "\t@activity=A%u", (unsigned)activity);
    for (uint16_t i = 0; r->extended_data && i < r->extended_data_count; i++) {
        const etl_extended_item *x = &r->extended_data[i];
        if (x->ext_type == ETL_EXT_RELATED_ACTIVITYID && x->data_size >= 16 && x->data) {
            etl_guid g = etl_guid_read(x->data);
            etl_textbuf_printf(out, "\t@related=A%u", (unsigned)activity_number(&g));
        }
    }
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        if (r->user_data_length) {
            etl_textbuf_puts(out, "\t@payload=");
            put_hex(out, r->user_data, r->user_data_length);
        }
    } else {
        put_fields(ev, out);
        if (ev->undecoded_length) {
            etl_textbuf_puts(out, ev->status == ETL_DECODE_ERROR ? "\t@undecoded=" : "\t@extra=");
            put_hex(out, ev->undecoded, ev->undecoded_length);
        }
    }
    etl_textbuf_putc(out, '\n');
}
