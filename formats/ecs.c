/* -of json --style ecs: one Elastic Common Schema document per line, laid out as Filebeat's ETW input
 * (x-pack/filebeat/input/etw, buildEvent) publishes an event, so a converted trace can be indexed next to live
 * Windows data. Field by field (etlconv.1, ECS OUTPUT):
 *   @timestamp           event time, UTC, 100 ns precision
 *   event.code           event id as a string;  event.kind "event";  event.severity the level (number)
 *   event.provider       provider name
 *   log.level            level 0..5 as Filebeat names it (0 and 4 "information", 1 "critical", 2 "error",
 *                        3 "warning", 5 "verbose"); absent for other levels
 *   message              the event message with its inserts, when the schema has one
 *   process.pid, process.thread.id   numbers (ECS)
 *   winlog.activity_id   "{GUID}" upper case, absent when zero;  winlog.channel  channel name
 *   winlog.event_data    the fields, typed as in JSON Lines, without the "NAME.value" numbers of mapped names
 *   winlog.event_id      number (Filebeat's published field list)
 *   winlog.flags         EVENT_HEADER flag names, sorted;  winlog.flags_raw  "0x..."
 *   winlog.keywords      keyword names;  winlog.keywords_raw  "0x..."
 *   winlog.level / level_raw, winlog.opcode / opcode_raw, winlog.task / task_raw   name / number
 *   winlog.process_id, winlog.thread_id   decimal strings (as Filebeat writes them)
 *   winlog.provider_guid "{GUID}" upper case;  winlog.provider_name;  winlog.provider_message
 *   winlog.version       event version
 *   etlconv.status, etlconv.payload, etlconv.error   only for events without a schema or whose payload did
 *                        not fit it (Filebeat drops those; we keep the bytes)
 * Not written: event.created (Filebeat's ingest time), winlog.session and log.file.path (not known per
 * event here). Empty values are left out, as Filebeat does. */
#include <string.h>

#include "json_value.h"

static const char *const SEVERITY[] = {"information", "critical", "error", "warning", "information", "verbose"};

static const struct { uint16_t bit; const char *name; } HEADER_FLAGS[] = {  /* sorted by name */
    {ETL_EVENT_FLAG_32_BIT_HEADER, "32_BIT_HEADER"}, {ETL_EVENT_FLAG_64_BIT_HEADER, "64_BIT_HEADER"},
    {ETL_EVENT_FLAG_CLASSIC_HEADER, "CLASSIC_HEADER"}, {ETL_EVENT_FLAG_DECODE_GUID, "DECODE_GUID"},
    {ETL_EVENT_FLAG_EXTENDED_INFO, "EXTENDED_INFO"}, {ETL_EVENT_FLAG_NO_CPUTIME, "NO_CPUTIME"},
    {ETL_EVENT_FLAG_PRIVATE_SESSION, "PRIVATE_SESSION"}, {ETL_EVENT_FLAG_PROCESSOR_INDEX, "PROCESSOR_INDEX"},
    {ETL_EVENT_FLAG_STRING_ONLY, "STRING_ONLY"}, {ETL_EVENT_FLAG_TRACE_MESSAGE, "TRACE_MESSAGE"},
};

static void key(fmt_buf *tb, const char *name)
{
    etl_textbuf_putc(tb, '"');
    etl_textbuf_puts(tb, name);
    etl_textbuf_puts(tb, "\":");
}

static void text_member(fmt_buf *tb, const char *name, const char *value)
{
    if (!value || !*value) return;  /* empty values are left out, as Filebeat does */
    key(tb, name);
    fmt_json_string(tb, value);
    etl_textbuf_putc(tb, ',');
}

static void number_member(fmt_buf *tb, const char *name, uint64_t value)
{
    key(tb, name);
    fmt_json_u64(tb, value, 0);
    etl_textbuf_putc(tb, ',');
}

static void hex_member(fmt_buf *tb, const char *name, uint64_t value)
{
    char num[FMT_INT_CAP];
    key(tb, name);
    fmt_json_string(tb, fmt_hex64(value, num));
    etl_textbuf_putc(tb, ',');
}

/* Go's windows.GUID.String() form: braces, upper case. */
static void guid_member(fmt_buf *tb, const char *name, const etl_guid *g)
{
    char text[40];
    etl_guid_format(g, text, 1);
    text_member(tb, name, text);
}

static void close_object(fmt_buf *tb)
{
    if (tb->length && tb->data[tb->length - 1] == ',') tb->length--;
    etl_textbuf_putc(tb, '}');
}

static void winlog(fmt_buf *tb, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    char num[FMT_INT_CAP];
    etl_textbuf_puts(tb, ",\"winlog\":{");
    if (!etl_guid_is_zero(&h->activity_id)) guid_member(tb, "activity_id", &h->activity_id);
    text_member(tb, "channel", ev->channel_name);
    if (ev->status == ETL_DECODE_OK && ev->field_count) {
        key(tb, "event_data");
        etl_textbuf_putc(tb, '{');
        fmt_json_members(tb, ev, 0, ev->field_count, FMT_JSON_NO_MAP_NUMBERS);
        etl_textbuf_puts(tb, "},");
    }
    number_member(tb, "event_id", h->descriptor.id);
    if (h->flags) {
        key(tb, "flags");
        etl_textbuf_putc(tb, '[');
        int n = 0;
        uint16_t rest = h->flags;
        for (size_t i = 0; i < sizeof HEADER_FLAGS / sizeof HEADER_FLAGS[0]; i++) {
            if (!(h->flags & HEADER_FLAGS[i].bit)) continue;
            if (n++) etl_textbuf_putc(tb, ',');
            fmt_json_string(tb, HEADER_FLAGS[i].name);
            rest &= (uint16_t)~HEADER_FLAGS[i].bit;
        }
        if (rest) etl_textbuf_printf(tb, "%s\"UNKNOWN(0x%04X)\"", n ? "," : "", (unsigned)rest);
        etl_textbuf_puts(tb, "],");
    }
    hex_member(tb, "flags_raw", h->flags);
    if (ev->keyword_name_count) {
        key(tb, "keywords");
        etl_textbuf_putc(tb, '[');
        for (uint32_t k = 0; k < ev->keyword_name_count; k++) {
            if (k) etl_textbuf_putc(tb, ',');
            fmt_json_string(tb, ev->keyword_names[k]);
        }
        etl_textbuf_puts(tb, "],");
    }
    hex_member(tb, "keywords_raw", h->descriptor.keyword);
    text_member(tb, "level", ev->level_name);
    number_member(tb, "level_raw", h->descriptor.level);
    text_member(tb, "opcode", ev->opcode_name);
    number_member(tb, "opcode_raw", h->descriptor.opcode);
    text_member(tb, "process_id", fmt_u64(h->process_id, num));
    if (!etl_guid_is_zero(&h->provider_id)) guid_member(tb, "provider_guid", &h->provider_id);
    text_member(tb, "provider_message", ev->info ? ev->info->provider_message : NULL);
    text_member(tb, "provider_name", ev->provider_name);
    text_member(tb, "task", ev->task_name);
    number_member(tb, "task_raw", h->descriptor.task);
    text_member(tb, "thread_id", fmt_u64(h->thread_id, num));
    number_member(tb, "version", h->descriptor.version);
    close_object(tb);
}

static int ecs_event(void *state, const etl_decoded_event *ev)
{
    fmt_line_writer *st = state;
    fmt_buf *tb = &st->line;
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char text[64], num[FMT_INT_CAP];

    etl_textbuf_puts(tb, "{\"@timestamp\":");
    fmt_json_string(tb, fmt_event_time(&st->clock, h->timestamp, 7, text, sizeof text));
    etl_textbuf_puts(tb, ",\"event\":{\"code\":");
    fmt_json_string(tb, fmt_u64(h->descriptor.id, num));
    etl_textbuf_puts(tb, ",\"kind\":\"event\",");
    number_member(tb, "severity", h->descriptor.level);
    text_member(tb, "provider", ev->provider_name);
    close_object(tb);
    if (h->descriptor.level < sizeof SEVERITY / sizeof SEVERITY[0]) {
        etl_textbuf_puts(tb, ",\"log\":{\"level\":");
        fmt_json_string(tb, SEVERITY[h->descriptor.level]);
        etl_textbuf_putc(tb, '}');
    }
    if (ev->message && *ev->message) {
        etl_textbuf_puts(tb, ",\"message\":");
        fmt_json_string(tb, ev->message);
    }
    etl_textbuf_puts(tb, ",\"process\":{\"pid\":");
    fmt_json_u64(tb, h->process_id, 0);
    etl_textbuf_puts(tb, ",\"thread\":{\"id\":");
    fmt_json_u64(tb, h->thread_id, 0);
    etl_textbuf_puts(tb, "}}");
    winlog(tb, ev);
    if (ev->status != ETL_DECODE_OK) {
        etl_textbuf_puts(tb, ",\"etlconv\":{\"status\":");
        fmt_json_string(tb, ev->status == ETL_DECODE_NO_SCHEMA ? "no_schema" : "error");
        etl_textbuf_puts(tb, ",\"payload\":\"");
        fmt_buf_put_hex(tb, r->user_data, r->user_data_length, 1);
        etl_textbuf_putc(tb, '"');
        if (ev->status == ETL_DECODE_ERROR) {
            etl_textbuf_puts(tb, ",\"error\":");
            fmt_json_string(tb, ev->error);
        }
        etl_textbuf_putc(tb, '}');
    }
    etl_textbuf_puts(tb, "}\n");
    return fmt_buf_flush(tb, &st->sink);
}

const etl_writer_format etl_writer_ecs = {
    "ecs", "", ".json", "Elastic Common Schema (winlog.*) as Filebeat's ETW input writes it (-of json --style ecs)",
    fmt_line_writer_create, fmt_begin_nothing, ecs_event, fmt_end_nothing, fmt_line_writer_destroy,
    .header_ids_only = 1,
};
