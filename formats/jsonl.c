/* JSON Lines: one JSON object per event, one event per line. Members, always in this order:
 *   time, timestamp, provider, provider_guid, event, id, version, level, task, opcode, keywords,
 *   keyword_names, pid, tid, cpu, process, activity_id, related_activity_id, source[, schema_version], status,
 *   fields[, extra_payload][, payload][, error][, message][, wpp], schema
 * `fields` maps names (schema order) to typed values (json_value.c: numbers, booleans, strings, arrays,
 * objects; a mapped value is followed by "NAME.value" with its number). `keywords` is the 64-bit mask as a
 * number, `keyword_names` the names the schema gives its bits. `schema` is the layout version (1), last so
 * that existing readers matching the line start keep working. `payload` is the hex of the undecoded bytes;
 * `extra_payload` the hex of the bytes after the last property of an event that decoded; `message` the
 * schema's event message with its inserts. --json-bigint string writes every 64-bit integer (and
 * `timestamp`, `keywords`) as a decimal string. Every line is valid JSON (RFC 8259). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_diff.h"
#include "fast_text.h"
#include "json_value.h"
#include "text_cache.h"

/* ,"key":"value" (null when value is NULL); key is a literal. */
#define put_member(tb, key, value) put_member_n(tb, ",\"" key "\":", sizeof(key) + 3, value)
static void put_member_n(fmt_buf *tb, const char *prefix, size_t prefix_length, const char *value)
{
    etl_textbuf_append(tb, prefix, prefix_length);
    if (value)
        fmt_json_string(tb, value);
    else
        FMT_PUT_LIT(tb, "null");
}

/* ,"key":N; key is a literal. */
#define put_number(tb, key, value) put_number_n(tb, ",\"" key "\":", sizeof(key) + 3, value)
static void put_number_n(fmt_buf *tb, const char *prefix, size_t prefix_length, uint64_t value)
{
    char *p = fmt_put_begin(tb, prefix_length + 20);
    if (p) fmt_put_end(tb, fmt_w_u64(fmt_w_mem(p, prefix, prefix_length), value));
}

/* The members fixed by the event's schema and descriptor: provider .. keyword_names (segment 0), source and
 * schema_version (segment 1). */
enum { SEG_NAMES, SEG_SOURCE, SEGMENTS };

static void put_names(fmt_buf *tb, const etl_writer_options *options, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    char guid[40];
    put_member(tb, "provider", ev->provider_name);
    put_member(tb, "provider_guid", fmt_guid(&h->provider_id, guid));
    put_member(tb, "event", ev->event_name);
    put_number(tb, "id", h->descriptor.id);
    put_number(tb, "version", h->descriptor.version);
    put_number(tb, "level", h->descriptor.level);
    put_number(tb, "task", h->descriptor.task);
    put_number(tb, "opcode", h->descriptor.opcode);
    etl_textbuf_puts(tb, ",\"keywords\":");
    fmt_json_u64(tb, h->descriptor.keyword, options->json_bigint_string);
    etl_textbuf_puts(tb, ",\"keyword_names\":[");
    for (uint32_t k = 0; k < ev->keyword_name_count; k++) {
        if (k) etl_textbuf_putc(tb, ',');
        fmt_json_string(tb, ev->keyword_names[k]);
    }
    etl_textbuf_putc(tb, ']');
}

static void put_source(fmt_buf *tb, const etl_decoded_event *ev)
{
    put_member(tb, "source", etl_schema_source_name(ev->source));
    /* decoded with the nearest older version the schema knows: the fields of the newer version may be missing */
    if (ev->info && ev->info->descriptor.version != ev->record->header.descriptor.version)
        put_number(tb, "schema_version", ev->info->descriptor.version);
}

static void build_static(void *state, const etl_decoded_event *ev, fmt_buf *text, uint32_t *ends)
{
    fmt_line_writer *st = state;
    put_names(text, &st->options, ev);
    ends[SEG_NAMES] = (uint32_t)text->length;
    put_source(text, ev);
    ends[SEG_SOURCE] = (uint32_t)text->length;
}


/* Text of the event before that most events repeat: the pid/tid pair (runs of one thread) and the high
 * digits of the raw timestamp (events come in time order). */
typedef struct jsonl_memo {
    uint32_t pid, tid;
    int ids_valid;
    size_t ids_length;
    char ids[48];        /* ",\"pid\":P,\"tid\":T" (at most 34 bytes) */
    int64_t high;        /* raw timestamp / 10^4 whose digits are high_text; 0: none */
    size_t high_length;
    char high_text[24];
} jsonl_memo;

typedef struct jsonl_state {
    fmt_line_writer line; /* first member: the line-writer helpers take it */
    jsonl_memo memo;
} jsonl_state;

/* The raw timestamp's digits at p (at most 24 bytes written); with a memo the digits above the last four are
 * those of the event before while they are the same. */
static inline char *w_raw_timestamp(jsonl_memo *m, char *p, int64_t value)
{
    if (!m || value < 10000) return fmt_w_i64(p, value);
    int64_t high = value / 10000;
    if (high != m->high) {
        m->high_length = (size_t)(fmt_w_u64(m->high_text, (uint64_t)high) - m->high_text);
        m->high = high;
    }
    memcpy(p, m->high_text, sizeof m->high_text);
    p += m->high_length;
    fmt_w_digits(p + 4, (uint32_t)(value - high * 10000), 4);
    return p + 4;
}

/* ,"pid":P,"tid":T at p (at most 48 bytes written); with a memo kept while the pair repeats. */
static inline char *w_ids(jsonl_memo *m, char *p, uint32_t pid, uint32_t tid)
{
    if (!m) {
        FMT_W_LIT(p, ",\"pid\":");
        p = fmt_w_u64(p, pid);
        FMT_W_LIT(p, ",\"tid\":");
        return fmt_w_u64(p, tid);
    }
    if (!m->ids_valid || m->pid != pid || m->tid != tid) {
        m->ids_length = (size_t)(w_ids(NULL, m->ids, pid, tid) - m->ids);
        m->pid = pid, m->tid = tid, m->ids_valid = 1;
    }
    memcpy(p, m->ids, sizeof m->ids);
    return p + m->ids_length;
}

/* Bytes a head reservation needs besides its static parts and process name: the numbers, GUIDs, time and
 * literals, and what the 16-byte block copies write past their text. */
#define HEAD_ROOM 512

/* One line; `s` the static text of ev, or NULL to render it here; `memo` NULL when there is none. */
static void jsonl_line(fmt_buf *tb, fmt_clock *clock, const etl_writer_options *options,
                       const etl_decoded_event *ev, const fmt_static_text *s, jsonl_memo *memo)
{
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    int wide = options->json_bigint_string;
    /* time .. status through one reservation in the usual case: static parts cached, process name clean */
    size_t names_length = 0, source_length = 0, process_length = 0;
    const char *names = s ? fmt_static_part(s, SEG_NAMES, &names_length) : NULL;
    const char *source = s ? fmt_static_part(s, SEG_SOURCE, &source_length) : NULL;
    const char *process = ev->process_name;
    int process_clean = 0;
    if (process) process_length = fmt_json_scan(process, &process_clean);
    char *p = fmt_put_begin(tb, HEAD_ROOM + names_length + source_length + (process_clean ? process_length : 0));
    if (!p) return;
    FMT_W_LIT(p, "{\"time\":");
    if (options->stable) {  /* relative time (or none), no raw timestamp */
        if (options->stable & ETL_STABLE_NO_TIME) {
            FMT_W_LIT(p, "null");
        } else {
            *p++ = '"';
            etl_stable_time(h->timestamp, p);
            p += strlen(p);
            *p++ = '"';
        }
    } else {
        *p++ = '"';
        p = fmt_w_time(clock, h->timestamp, 7, p);
        FMT_W_LIT(p, "\",\"timestamp\":");
        if (wide) *p++ = '"';
        p = w_raw_timestamp(memo, p, r->raw_timestamp);
        if (wide) *p++ = '"';
    }
    if (names) {
        memcpy(p, names, names_length); /* a few hundred bytes: the C library copies them best */
        p += names_length;
    } else {
        fmt_put_end(tb, p);
        put_names(tb, options, ev);
        if (!(p = fmt_put_begin(tb, HEAD_ROOM + (process_clean ? process_length : 0)))) return;
    }
    p = w_ids(memo, p, h->process_id, h->thread_id);
    if (!options->stable) {
        FMT_W_LIT(p, ",\"cpu\":");
        p = fmt_w_u64(p, r->buffer_context.processor_index);
    }
    if (process_clean) {
        FMT_W_LIT(p, ",\"process\":\"");
        p = fmt_w_short(p, process, process_length);
        *p++ = '"';
    } else {
        fmt_put_end(tb, p);
        put_member(tb, "process", process);
        if (!(p = fmt_put_begin(tb, HEAD_ROOM + source_length))) return;
    }
    FMT_W_LIT(p, ",\"activity_id\":\"");
    p = fmt_w_guid(p, &h->activity_id);
    FMT_W_LIT(p, "\",\"related_activity_id\":");
    etl_guid related;
    if (r->extended_data_count && fmt_related_activity(r, &related)) {
        *p++ = '"';
        p = fmt_w_guid(p, &related);
        *p++ = '"';
    } else {
        FMT_W_LIT(p, "null");
    }
    if (source) {
        p = fmt_w_padded(p, source, source_length);
    } else {
        fmt_put_end(tb, p);
        put_source(tb, ev);
        if (!(p = fmt_put_begin(tb, 64))) return;
    }
    if (ev->status == ETL_DECODE_OK)
        FMT_W_LIT(p, ",\"status\":\"ok\",\"fields\":{");
    else if (ev->status == ETL_DECODE_NO_SCHEMA)
        FMT_W_LIT(p, ",\"status\":\"no_schema\",\"fields\":{}");
    else
        FMT_W_LIT(p, ",\"status\":\"error\",\"fields\":{");
    fmt_put_end(tb, p);
    if (ev->status == ETL_DECODE_NO_SCHEMA) {
        etl_textbuf_puts(tb, ",\"payload\":\"");
        fmt_buf_put_hex(tb, r->user_data, r->user_data_length, 1);
        etl_textbuf_putc(tb, '"');
    } else {
        if (s)
            fmt_json_fields(tb, ev, wide ? FMT_JSON_WIDE_STRINGS : 0, s);
        else
            fmt_json_members(tb, ev, 0, ev->field_count, wide ? FMT_JSON_WIDE_STRINGS : 0);
        if (ev->status == ETL_DECODE_OK && !ev->undecoded_length && !ev->message && !ev->wpp) {
            FMT_PUT_LIT(tb, "},\"schema\":" FMT_JSON_SCHEMA_TEXT "}\n"); /* the usual end */
            return;
        }
        etl_textbuf_putc(tb, '}');
        if (ev->status == ETL_DECODE_OK && ev->undecoded_length) {
            /* bytes after the last property (a newer event version); tracerpt drops them, we keep them */
            etl_textbuf_puts(tb, ",\"extra_payload\":\"");
            fmt_buf_put_hex(tb, ev->undecoded, ev->undecoded_length, 1);
            etl_textbuf_putc(tb, '"');
        }
        if (ev->status == ETL_DECODE_ERROR) {
            etl_textbuf_puts(tb, ",\"payload\":\"");
            fmt_buf_put_hex(tb, ev->undecoded, ev->undecoded_length, 1);
            etl_textbuf_putc(tb, '"');
            put_member(tb, "error", ev->error ? ev->error : "");
        }
    }
    if (ev->message) put_member(tb, "message", ev->message);
    if (ev->wpp) { /* WPP message decoded with its TMF: what tracerpt's DebugData and tracefmt's %!...! show */
        const etl_wpp_event *w = ev->wpp;
        etl_textbuf_puts(tb, ",\"wpp\":{\"component\":");
        fmt_json_string(tb, w->component ? w->component : "");
        put_member(tb, "tag", w->tag);
        put_member(tb, "file", w->file);
        put_number(tb, "line", w->line);
        put_member(tb, "function", w->function);
        put_member(tb, "level", w->level);
        put_member(tb, "flags", w->flags);
        put_number(tb, "sequence", r->wpp_sequence);
        etl_textbuf_putc(tb, '}');
    }
    FMT_PUT_LIT(tb, ",\"schema\":" FMT_JSON_SCHEMA_TEXT "}\n");
}


void fmt_jsonl_line(fmt_buf *tb, fmt_clock *clock, const etl_writer_options *options, const etl_decoded_event *ev)
{
    jsonl_line(tb, clock, options, ev, NULL, NULL);
}

static int jsonl_event(void *state, const etl_decoded_event *ev)
{
    jsonl_state *js = state;
    fmt_line_writer *st = &js->line;
    const fmt_static_text *s = fmt_text_cache_get(st->cache, ev);
    if (!s) return -1;
    jsonl_line(&st->line, &st->clock, &st->options, ev, s, &js->memo);
    return fmt_flush_event(&st->line, &st->sink, &st->options);
}

/* --stable: a first line that makes the file a baseline for `etlconv diff` (etl_baseline_from_json). */
static int jsonl_begin(void *state)
{
    fmt_line_writer *st = state;
    if (!st->options.stable || !st->options.stable_options) return 0;
    etl_textbuf_puts(&st->line, "{\"etlconv_baseline\":1");
    put_member(&st->line, "options", st->options.stable_options);
    etl_textbuf_puts(&st->line, "}\n");
    return fmt_buf_flush(&st->line, &st->sink);
}

/* The cache also holds each property's member key ("NAME":, fmt_json_fields). */
static void *jsonl_create(const etl_sink *sink, const etl_writer_options *options)
{
    jsonl_state *js = calloc(1, sizeof *js);
    fmt_line_writer *lw = js ? fmt_line_writer_create(sink, options) : NULL;
    if (!lw) {
        free(js);
        return NULL;
    }
    js->line = *lw;
    free(lw); /* its buffers now belong to js->line; fmt_line_writer_destroy frees js */
    if (!(js->line.cache = fmt_text_cache_new(SEGMENTS, build_static, fmt_json_key, &js->line))) {
        fmt_line_writer_destroy(js);
        return NULL;
    }
    return js;
}

const etl_writer_format etl_writer_jsonl = {
    "jsonl", "json|ndjson", ".jsonl", "JSON Lines: one object per event with typed, nested fields",
    jsonl_create, jsonl_begin, jsonl_event, fmt_end_nothing, fmt_line_writer_destroy,
    .header_ids_only = 0,  /* "process" is event->process_name */
};
