/* tracerpt's summary.txt (docs/tracerpt.md §1.5, the tracefmt "summary message file" layout): files
 * processed, totals, elapsed time, then a boxed table of event counts per event name / type / GUID in the
 * order the event kinds first appeared. Counting uses an open-addressing hash on the event's identity,
 * so it is O(1) per event. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format_util.h"

#define TABLE_INNER_WIDTH 81  /* characters between the two '|' of the box (tracefmt) */
#define COUNT_WIDTH 10        /* right-aligned event count */
#define NAME_WIDTH 12         /* event name column, widened for longer names */
#define TYPE_WIDTH 17         /* event type column, widened for longer types */
#define GUID_WIDTH 36         /* GUID without braces */

typedef struct summary_key {
    etl_guid guid;        /* event-class GUID (classic) or provider GUID */
    uint16_t id;
    uint16_t task;
    uint8_t version;
    uint8_t opcode;
    uint8_t status;
    uint64_t name_hash;   /* TraceLogging events share id/task/opcode 0: their name tells them apart */
} summary_key;

typedef struct summary_row {
    summary_key key;
    uint64_t count;
    char *name;
    char *type;
} summary_row;

typedef struct summary_state {
    etl_sink sink;
    fmt_buf text;
    summary_row *rows;      /* in first-seen order */
    size_t row_count, row_capacity;
    uint32_t *slots;        /* hash slots: row index + 1, 0 = empty */
    size_t slot_count;      /* power of two */
    int failed;
    unsigned stable;  /* --stable: no elapsed time, file names without their folders */
} summary_state;

static uint64_t key_hash(const summary_key *k)
{
    uint64_t h = 1469598103934665603ULL;
    const uint8_t *g = (const uint8_t *)&k->guid;
    for (size_t i = 0; i < sizeof k->guid; i++) h = (h ^ g[i]) * 1099511628211ULL;
    uint64_t rest = (uint64_t)k->id | (uint64_t)k->task << 16 | (uint64_t)k->version << 32 |
                    (uint64_t)k->opcode << 40 | (uint64_t)k->status << 48;
    h ^= rest ^ k->name_hash;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static int key_equal(const summary_key *a, const summary_key *b)
{
    return etl_guid_equal(&a->guid, &b->guid) && a->id == b->id && a->task == b->task &&
           a->version == b->version && a->opcode == b->opcode && a->status == b->status &&
           a->name_hash == b->name_hash;
}

static uint64_t string_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (; s && *s; s++) h = (h ^ (uint8_t)*s) * 1099511628211ULL;
    return h;
}

/* The EventName column: task name (TraceLogging: event name), else the schema's event name. */
static const char *row_name(const etl_decoded_event *ev)
{
    const char *name = fmt_task_display(ev);
    if (!name && ev->info) name = ev->info->event_name;
    if (!name) name = ev->status == ETL_DECODE_NO_SCHEMA ? "Unknown" : ev->event_name;
    return name;
}

static int rehash(summary_state *st, size_t slot_count)
{
    uint32_t *slots = calloc(slot_count, sizeof *slots);
    if (!slots) return -1;
    for (size_t r = 0; r < st->row_count; r++) {
        size_t i = key_hash(&st->rows[r].key) & (slot_count - 1);
        while (slots[i]) i = (i + 1) & (slot_count - 1);
        slots[i] = (uint32_t)(r + 1);
    }
    free(st->slots);
    st->slots = slots;
    st->slot_count = slot_count;
    return 0;
}

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

static int summary_event(void *state, const etl_decoded_event *ev)
{
    summary_state *st = state;
    const etl_event_header *h = &ev->record->header;
    summary_key key;
    memset(&key, 0, sizeof key);
    if (!fmt_class_guid(ev, &key.guid)) key.guid = h->provider_id;
    key.id = h->descriptor.id;
    key.task = h->descriptor.task;
    key.version = h->descriptor.version;
    key.opcode = h->descriptor.opcode;
    key.status = ev->status == ETL_DECODE_NO_SCHEMA;
    const char *name = row_name(ev);
    key.name_hash = string_hash(name);

    if ((st->row_count + 1) * 10 > st->slot_count * 7 && rehash(st, st->slot_count * 2) != 0) return -1;
    size_t i = key_hash(&key) & (st->slot_count - 1);
    while (st->slots[i]) {
        summary_row *row = &st->rows[st->slots[i] - 1];
        if (key_equal(&row->key, &key) && strcmp(row->name, name) == 0) {
            row->count++;
            return 0;
        }
        i = (i + 1) & (st->slot_count - 1);
    }
    if (st->row_count == st->row_capacity) {
        size_t cap = st->row_capacity ? st->row_capacity * 2 : 64;
        summary_row *rows = realloc(st->rows, cap * sizeof *rows);
        if (!rows) return -1;
        st->rows = rows;
        st->row_capacity = cap;
    }
    summary_row *row = &st->rows[st->row_count];
    row->key = key;
    row->count = 1;
    row->name = dup_or_empty(name);
    row->type = dup_or_empty(ev->opcode_name);
    if (!row->name || !row->type) {
        free(row->name);
        free(row->type);
        return -1;
    }
    st->slots[i] = (uint32_t)(++st->row_count);
    return 0;
}

/* Display width of UTF-8 text: code points (continuation bytes do not count). */
static size_t text_width(const char *text)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) n += (*p & 0xC0) != 0x80;
    return n;
}

static void put_padded(fmt_buf *tb, const char *text, size_t width)
{
    etl_textbuf_puts(tb, text);
    for (size_t i = text_width(text); i < width; i++) etl_textbuf_putc(tb, ' ');
}

static void box_line(fmt_buf *tb, size_t inner)
{
    etl_textbuf_putc(tb, '+');
    for (size_t i = 0; i < inner; i++) etl_textbuf_putc(tb, '-');
    etl_textbuf_puts(tb, "+\n");
}

/* "|" + count, name, type and GUID columns + "|". tracefmt's widths (name 12, type 17, box 81) widen to
 * the longest name/type so that the columns and the right border stay aligned. */
static void box_row(fmt_buf *tb, const char *count, const char *name, const char *type, const char *guid,
                    size_t name_width, size_t type_width, size_t inner)
{
    etl_textbuf_putc(tb, '|');
    size_t used = text_width(count);
    for (size_t i = used; i < COUNT_WIDTH; i++) etl_textbuf_putc(tb, ' ');
    if (used < COUNT_WIDTH) used = COUNT_WIDTH;
    etl_textbuf_puts(tb, count);
    etl_textbuf_puts(tb, "    ");
    put_padded(tb, name, name_width);
    etl_textbuf_putc(tb, ' ');
    put_padded(tb, type, type_width);
    etl_textbuf_putc(tb, ' ');
    etl_textbuf_puts(tb, guid);
    used += 4 + name_width + 1 + type_width + 1 + text_width(guid);
    for (size_t i = used; i < inner; i++) etl_textbuf_putc(tb, ' ');
    etl_textbuf_puts(tb, "|\n");
}

static int summary_end(void *state, const etl_run_totals *t)
{
    summary_state *st = state;
    static const etl_run_totals none;
    fmt_buf *tb = &st->text;
    if (!t) t = &none;
    etl_textbuf_puts(tb, "Files Processed:\n");
    for (size_t i = 0; i < t->file_count && t->files; i++) {
        const char *base = st->stable ? strrchr(t->files[i], '/') : NULL;
        etl_textbuf_printf(tb, "\t%s\n", base ? base + 1 : t->files[i]);
    }
    etl_textbuf_printf(tb, "Total Buffers Processed %" PRIu64 "\n", t->buffers);
    etl_textbuf_printf(tb, "Total Events  Processed %" PRIu64 "\n", t->events);
    etl_textbuf_printf(tb, "Total Events  Lost      %" PRIu64 "\n", t->events_lost);
    etl_textbuf_printf(tb, "Total Buffers Lost      %" PRIu64 "\n", t->buffers_lost);
    etl_textbuf_printf(tb, "Total Format  Errors    %" PRIu64 "\n", t->format_errors);
    etl_textbuf_printf(tb, "Total Formats Unknown   %" PRIu64 "\n", t->unknown_formats);
    if (!st->stable) etl_textbuf_printf(tb, "Elapsed Time            %.0f sec\n", t->elapsed_seconds);
    size_t name_width = NAME_WIDTH, type_width = TYPE_WIDTH;
    for (size_t r = 0; r < st->row_count; r++) {
        size_t n = text_width(st->rows[r].name), k = text_width(st->rows[r].type);
        if (n > name_width) name_width = n;
        if (k > type_width) type_width = k;
    }
    size_t inner = COUNT_WIDTH + 4 + name_width + 1 + type_width + 1 + GUID_WIDTH;
    if (inner < TABLE_INNER_WIDTH) inner = TABLE_INNER_WIDTH;
    box_line(tb, inner);
    box_row(tb, "EventCount", "EventName", "EventType", "Guid", name_width, type_width, inner);
    box_line(tb, inner);
    for (size_t r = 0; r < st->row_count; r++) {
        const summary_row *row = &st->rows[r];
        char guid[40], count[24];
        fmt_guid(&row->key.guid, guid);
        guid[37] = '\0';  /* tracefmt prints the GUID without braces */
        snprintf(count, sizeof count, "%" PRIu64, row->count);
        box_row(tb, count, row->name, row->type, guid + 1, name_width, type_width, inner);
    }
    box_line(tb, inner);
    int failed = tb->failed;
    if (failed) return -1;
    return fmt_buf_flush(tb, &st->sink);
}

static int summary_begin(void *state)
{
    (void)state;
    return 0;
}

static void summary_destroy(void *state)
{
    summary_state *st = state;
    if (!st) return;
    for (size_t r = 0; r < st->row_count; r++) {
        free(st->rows[r].name);
        free(st->rows[r].type);
    }
    free(st->rows);
    free(st->slots);
    etl_textbuf_free(&st->text);
    free(st);
}

static void *summary_create(const etl_sink *sink, const etl_writer_options *options)
{
    summary_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->sink = *sink;
    st->stable = options->stable;
    memset(&st->text, 0, sizeof st->text);
    if (rehash(st, 256) != 0) {
        free(st);
        return NULL;
    }
    return st;
}

const etl_writer_format etl_writer_summary = {
    "summary", "sum", ".txt", "tracerpt summary.txt: totals and event counts per event type",
    summary_create, summary_begin, summary_event, summary_end, summary_destroy,
    .header_ids_only = 1,
};
