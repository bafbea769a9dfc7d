/* The decoder: per record, feed the stateful schema sources, find the schema in the documented order, walk
 * the payload, and fill every member of etl_decoded_event. All text lives in per-decoder buffers reused
 * between calls, so the steady state allocates nothing.
 *
 * Lookup order (etl_schema.h): the record's own TraceLogging metadata; then the registry, where the sources
 * rank themselves (user manifests > EventSource > embedded TDH > bundled > kernel MOF) — EVENT_HEADER records
 * by (provider GUID, id, version), classic/kernel records by (class GUID, opcode, version). WPP trace messages
 * (classic MESSAGE records and EVENT_HEADER records flagged TRACE_MESSAGE) are decoded by the TMF statement of
 * their (message GUID, number) when one was loaded (src/schema/wpp/), and stay undecoded otherwise.
 *
 * Naming:
 *  - provider: schema name, else any name the registry knows for the GUID, else the GUID text "{…}";
 *  - event: TraceLogging → the event name; classic → "Task/Opcode" (PerfView's "Process/DCStart"), else the
 *    task or event name; manifest → "Task/Opcode" (opcode left out when 0), else the task or event name;
 *    no name at all → "EventID(N)" (classic records: "Opcode(N)", their id is always 0);
 *  - level/opcode/channel/keyword names fall back to the winmeta.xml display strings (docs/schemas.md §1.6),
 *    the strings tracerpt prints in RenderingInfo ("Information", "Start"); classic events get only the
 *    level names 1-5 (their opcodes are MOF event types, not winmeta opcodes); TraceLogging events use the
 *    winmeta opcodes too (activity Start/Stop);
 *  - TraceLogging events have no task: task_name is the event name, as tracerpt's RenderingInfo/Task. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/decode_cache.h"
#include "decode/message.h"
#include "decode/observe_filter.h"
#include "decode/process_table.h"
#include "decode/render_int.h"
#include "decode/walk.h"
#include "schema/eventsource.h"
#include "schema/sources.h"
#include "schema/wpp/wpp.h"
#include "util/clear.h"
#include "util/swar.h"

struct etl_decoder {
    etl_schema_registry *registry;
    const etl_trace *trace;
    etl_tracelogging_cache *tracelogging;
    etl_eventsource_state *eventsource;
    etl_embedded_state *embedded;
    etl_process_table *processes;
    wpp_decoder *wpp;      /* WPP trace messages with a TMF statement (ETL_SOURCE_TMF) */
    etl_decode_cache *cache;  /* lookups, names and walk plans remembered between events */
    uint64_t tracelogging_flushes;
    etl_walk walk;
    etl_textbuf names;     /* event name of the current event */
    etl_textbuf inserts;   /* message inserts, NUL-separated */
    etl_textbuf message;
    etl_textbuf string_only;
    const char **insert_ptrs;
    size_t *insert_offsets;
    size_t insert_capacity;
    const char *keyword_ptrs[8];
    char provider_text[40];     /* the GUID text of an unnamed provider */
    struct {                    /* the name of the last provider whose schema gave none (provider_name_of) */
        const char *name;       /* NULL: nothing kept */
        etl_guid of;
        uint64_t generation;    /* the registry's when it was looked up */
    } named;
    char error[512];
    etl_field string_field;
    etl_decoded_event event;
    etl_decode_stats stats;
    unsigned flags;        /* ETL_DECODER_* */
    enum { PENDING_NONE, PENDING_STRING, PENDING_WALK } pending;  /* what etl_decode_complete still does */
    etl_diagnostic_fn on_diagnostic;
    void *diagnostic_ctx;
    int process_bounds_warned;  /* the process table's bounds were reached and said so */
    int embedded_held;          /* a MetaData record came: events may be held back for maps until the next other */
    int flush_failed;           /* embedded schemas held back could not be registered (etl_decoder_needs_every_record) */
};

/* winmeta.xml display strings */
static const char *const level_names[6] = {"Log Always", "Critical", "Error", "Warning", "Information", "Verbose"};
static const char *const opcode_names[10] = {"Info",      "Start", "Stop",   "DCStart", "DCStop",
                                             "Extension", "Reply", "Resume", "Suspend", "Send"};
/* Symbolic winmeta names as some schemas carry them (e.g. KernelTraceControl metadata written without the
 * provider's message table: opcode "win:Start") → the display strings tracerpt and PerfView show. */
static const struct {
    const char *symbol, *display;
} winmeta_symbols[] = {
    {"win:Info", "Info"},           {"win:Start", "Start"},         {"win:Stop", "Stop"},
    {"win:DC_Start", "DCStart"},    {"win:DC_Stop", "DCStop"},      {"win:Extension", "Extension"},
    {"win:Reply", "Reply"},         {"win:Resume", "Resume"},       {"win:Suspend", "Suspend"},
    {"win:Send", "Send"},           {"win:Receive", "Receive"},     {"win:LogAlways", "Log Always"},
    {"win:Critical", "Critical"},   {"win:Error", "Error"},         {"win:Warning", "Warning"},
    {"win:Informational", "Information"}, {"win:Verbose", "Verbose"}, {"win:None", "None"},
};

static const char *display_name(const char *name)
{
    if (!name || strncmp(name, "win:", 4) != 0) return name;
    for (size_t i = 0; i < sizeof winmeta_symbols / sizeof winmeta_symbols[0]; i++)
        if (strcmp(name, winmeta_symbols[i].symbol) == 0) return winmeta_symbols[i].display;
    return name;
}

static const char *const keyword_bit_names[8] = {"Response Time", "WDI Context",   "WDI Diag",          "SQM",
                                                 "Audit Failure", "Audit Success", "Correlation Hint", "Classic"};

/* A warning naming the file and the place of the event that showed it. */
static void report_warning(etl_decoder *d, const etl_record_place *at, const char *message)
{
    if (!d->on_diagnostic) return;
    const char *path = etl_trace_file_path(d->trace, at->file_index);
    char place[96], line[1000];
    etl_record_place_text(at, place, sizeof place);
    snprintf(line, sizeof line, "%s: %s: %s", path ? path : "trace", place, message);
    etl_diagnostic diag = {ETL_WARNING, ETL_ERR_SCHEMA, at->file_index, etl_record_place_offset(at), line};
    d->on_diagnostic(&diag, d->diagnostic_ctx);
}

/* A schema the trace carries was lost. */
static void report_schema_lost(void *ctx, const etl_record_place *at, const char *message)
{
    etl_decoder *d = ctx;
    d->stats.trace_schemas_lost++;
    report_warning(d, at, message);
}

/* The process table learns from every record; once it leaves something out (its bounds, process_table.c), one
 * warning names the record where that first happened. */
static int note_process_bounds(etl_decoder *d, const etl_event_record *rec, int rc)
{
    if (rc != ETL_OK || d->process_bounds_warned || !etl_process_table_dropped(d->processes)) return rc;
    d->process_bounds_warned = 1;
    etl_record_place at = etl_record_place_of(rec);
    report_warning(d, &at,
                   "the process table is full (bounded against hostile traces): later process or thread "
                   "starts are left out, their events may show no or an older process name");
    return ETL_OK;
}

static int observe_processes(etl_decoder *d, const etl_decoded_event *ev)
{
    if (d->flags & ETL_DECODER_NO_PROCESSES) return ETL_OK;
    int rc = etl_process_table_observe(d->processes, ev) == ETL_OK ? ETL_OK : ETL_ERR_NOMEM;
    return note_process_bounds(d, ev->record, rc);
}

etl_decoder *etl_decoder_new(etl_schema_registry *registry, const etl_trace *trace)
{
    if (!registry) return NULL;
    etl_decoder *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->registry = registry;
    d->trace = trace;
    etl_walk_init(&d->walk);
    d->tracelogging = etl_tracelogging_cache_new();
    d->eventsource = etl_eventsource_new(registry);
    if (d->eventsource) etl_eventsource_set_report(d->eventsource, report_schema_lost, d);
    d->embedded = etl_embedded_new(registry);
    d->processes = etl_process_table_new();
    d->wpp = wpp_decoder_new();
    d->cache = etl_decode_cache_new();
    if (!d->tracelogging || !d->eventsource || !d->embedded || !d->processes || !d->wpp || !d->cache ||
        etl_kernel_mof_register(registry) == ETL_ERR_NOMEM) {
        etl_decoder_free(d);
        return NULL;
    }
    return d;
}

void etl_decoder_free(etl_decoder *d)
{
    if (!d) return;
    etl_tracelogging_cache_free(d->tracelogging);
    etl_eventsource_free(d->eventsource);
    etl_embedded_free(d->embedded);
    etl_process_table_free(d->processes);
    wpp_decoder_free(d->wpp);
    etl_decode_cache_free(d->cache);
    etl_walk_free(&d->walk);
    etl_textbuf_free(&d->names);
    etl_textbuf_free(&d->inserts);
    etl_textbuf_free(&d->message);
    etl_textbuf_free(&d->string_only);
    free(d->insert_ptrs);
    free(d->insert_offsets);
    free(d);
}

const etl_decode_stats *etl_decoder_get_stats(const etl_decoder *d) { return &d->stats; }

void etl_decoder_set_flags(etl_decoder *d, unsigned flags) { d->flags = flags; }

void etl_decoder_set_diagnostic(etl_decoder *d, etl_diagnostic_fn fn, void *ctx)
{
    d->on_diagnostic = fn;
    d->diagnostic_ctx = ctx;
}

void etl_decoder_finish(etl_decoder *d)
{
    if (d) etl_eventsource_finish(d->eventsource);
}

static const etl_event_info *find_schema(etl_decoder *d, const etl_event_record *rec, const char **tl_error);

int etl_decoder_learn(etl_decoder *d, const etl_event_record *rec)
{
    if (d->flags & ETL_DECODER_NO_PROCESSES) return ETL_OK;
    if (!etl_process_table_learns_from(rec))
        return note_process_bounds(d, rec, etl_process_table_observe_header(d->processes, rec));
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    ev.record = rec;
    ev.status = ETL_DECODE_NO_SCHEMA;
    ev.process_id = UINT32_MAX;
    if (!(rec->header.flags & ETL_EVENT_FLAG_STRING_ONLY)) {
        const char *tl_error;
        ev.info = find_schema(d, rec, &tl_error);
        if (ev.info) {
            etl_render_context ctx = {rec->pointer_size, d->trace, rec->file_index, etl_trace_raw_to_filetime};
            int rc = etl_walk_event_planned(&d->walk, ev.info, etl_decode_cache_plan(d->cache, ev.info), rec->user_data,
                                            rec->user_data ? rec->user_data_length : 0, &ctx);
            if (rc < 0) return rc;
            ev.status = (etl_decode_status)rc;
            ev.fields = d->walk.fields;
            ev.field_count = d->walk.field_count;
        }
    }
    return observe_processes(d, &ev);
}

/* The schemas the trace carries (EventSource manifests, embedded TDH metadata), unless told not to. */
static void observe_trace_schemas(etl_decoder *d, const etl_event_record *rec)
{
    if (d->flags & ETL_DECODER_NO_TRACE_SCHEMAS) return;
    etl_eventsource_observe(d->eventsource, rec);
    /* events are held back only after a MetaData record: the usual record asks nothing more */
    if (etl_embedded_observe(d->embedded, rec)) d->embedded_held = 1;
    else if (d->embedded_held) d->embedded_held = d->flush_failed = etl_embedded_pending(d->embedded) != 0;
}

/* What this observes of a record, and so which records a decoder that does not decode them may leave out, is
 * decode/observe_filter.c's to know: a change here is one there. */
int etl_decoder_observe(etl_decoder *d, const etl_event_record *rec)
{
    observe_trace_schemas(d, rec);
    return etl_decoder_learn(d, rec);  /* process table: thread ids of every header, process events */
}

int etl_decoder_needs_every_record(const etl_decoder *d)
{
    return d->flush_failed || etl_process_table_dropped(d->processes) != 0;
}

const etl_process_table *etl_decoder_process_table(const etl_decoder *d) { return d->processes; }

unsigned etl_decoder_flags(const etl_decoder *d) { return d->flags; }

int etl_decoder_copy_processes(etl_decoder *to, const etl_decoder *from)
{
    to->process_bounds_warned = from->process_bounds_warned;  /* said once, by the first pass */
    return etl_process_table_copy(to->processes, from->processes);
}

static int is_classic_kind(etl_header_kind kind) { return kind <= ETL_KIND_INSTANCE64; }

static int is_event_header_kind(etl_header_kind kind) { return kind == ETL_KIND_EVENT32 || kind == ETL_KIND_EVENT64; }

static const etl_event_info *find_schema(etl_decoder *d, const etl_event_record *rec, const char **tl_error)
{
    const etl_event_header *h = &rec->header;
    *tl_error = NULL;
    if (is_event_header_kind(rec->kind)) {
        if (!(d->flags & ETL_DECODER_NO_TRACE_SCHEMAS) && rec->extended_data_count) {
            const etl_event_info *info = etl_tracelogging_lookup(d->tracelogging, rec, tl_error);
            uint64_t flushes = etl_tracelogging_cache_flushes(d->tracelogging);
            if (flushes != d->tracelogging_flushes) { /* descriptions it handed out are gone */
                etl_decode_cache_forget(d->cache);
                d->tracelogging_flushes = flushes;
            }
            if (info || *tl_error) return info;
        }
        return etl_decode_cache_find(d->cache, d->registry, ETL_KEY_MANIFEST, &h->provider_id, h->descriptor.id,
                                     h->descriptor.version);
    }
    if (is_classic_kind(rec->kind))
        return etl_decode_cache_find(d->cache, d->registry, ETL_KEY_CLASSIC, &h->provider_id, h->descriptor.opcode,
                                     h->descriptor.version);
    return NULL; /* WPP messages need TMF files; error placeholders have no payload schema */
}

/* "Opcode(N)" (classic events) or "EventID(N)": the name of an event its schema does not name. */
static void put_numbered_name(etl_textbuf *t, int classic, const etl_event_descriptor *desc)
{
    char text[8 + ETL_INT_TEXT_MAX + 1];
    size_t at = classic ? 7 : 8;
    memcpy(text, classic ? "Opcode(" : "EventID(", at);
    at += etl_int_format_unsigned(text + at, classic ? desc->opcode : desc->id);
    text[at++] = ')';
    etl_textbuf_append(t, text, at);
}

/* The names that depend on the description and the record's descriptor only (see etl_event_names). */
static void compose_names(etl_decoder *d, const etl_event_record *rec, const etl_event_info *info,
                          etl_event_names *out)
{
    const etl_event_descriptor *desc = &rec->header.descriptor;
    int classic = is_classic_kind(rec->kind);
    int tracelogging = info->source == ETL_SOURCE_TRACELOGGING;
    memset(out, 0, sizeof *out);
    out->task_name = info->task_name ? display_name(info->task_name) : tracelogging ? info->event_name : NULL;
    out->opcode_name = display_name(info->opcode_name);
    if (!out->opcode_name && !classic)
        out->opcode_name = desc->opcode < 10 ? opcode_names[desc->opcode] : desc->opcode == 240 ? "Receive" : NULL;
    out->level_name = display_name(info->level_name);
    if (!out->level_name && desc->level <= 5 && (desc->level || !classic)) out->level_name = level_names[desc->level];
    out->channel_name = info->channel_name;
    if (!out->channel_name && desc->channel >= 8 && desc->channel <= 10)
        out->channel_name = desc->channel == 8 ? "System" : desc->channel == 9 ? "Application" : "Security";
    if (info->keyword_name_count) {
        out->keyword_names = info->keyword_names;
        out->keyword_name_count = info->keyword_name_count;
    } else {
        uint32_t n = 0;
        for (int bit = 48; bit < 56; bit++)
            if (desc->keyword >> bit & 1) d->keyword_ptrs[n++] = keyword_bit_names[bit - 48];
        out->keyword_names = n ? d->keyword_ptrs : NULL;
        out->keyword_name_count = n;
    }

    etl_textbuf_reset(&d->names);
    const char *task = out->task_name, *event = info->event_name;
    if (tracelogging && event) etl_textbuf_puts(&d->names, event);
    else if (task && out->opcode_name && (classic || desc->opcode != 0)) {
        etl_textbuf_puts(&d->names, task);
        etl_textbuf_putc(&d->names, '/');
        etl_textbuf_puts(&d->names, out->opcode_name);
    }
    else if (task) etl_textbuf_puts(&d->names, task);
    else if (event) etl_textbuf_puts(&d->names, event);
    else put_numbered_name(&d->names, classic, desc);
    out->event_name = etl_textbuf_at(&d->names, 0);
}

/* The registry's name of a provider, else its GUID text, looked up again only when the provider or the
 * registry changes (etl_schema_registry_generation counts every change a lookup could see): events without a
 * schema, or whose schema names no provider, come in runs of one provider, and each lookup takes the registry's
 * locks and formats the GUID of an unnamed one. */
static const char *provider_name_of(etl_decoder *d, const etl_guid *provider)
{
    uint64_t generation = etl_schema_registry_generation(d->registry);
    if (d->named.name && d->named.generation == generation && etl_guid_equal(&d->named.of, provider))
        return d->named.name;
    const char *name = etl_schema_registry_provider_name(d->registry, provider);
    d->named.name = name ? name : etl_guid_format(provider, d->provider_text, 0);
    d->named.of = *provider;
    d->named.generation = generation;
    return d->named.name;
}

static void fill_names(etl_decoder *d, etl_decoded_event *ev, const etl_event_info *info)
{
    const etl_event_record *rec = ev->record;
    const etl_event_descriptor *desc = &rec->header.descriptor;

    ev->provider_name = info && info->provider_name && *info->provider_name
                            ? info->provider_name
                            : provider_name_of(d, &rec->header.provider_id);

    if (!info) {
        etl_textbuf_reset(&d->names);
        put_numbered_name(&d->names, is_classic_kind(rec->kind), desc);
        ev->event_name = etl_textbuf_at(&d->names, 0);
        return;
    }
    etl_names_key key = {info, desc->id, desc->opcode, desc->level, desc->channel,
                         info->keyword_name_count ? 0 : (uint8_t)(desc->keyword >> 48), (uint8_t)is_classic_kind(rec->kind)};
    const etl_event_names *names = etl_decode_cache_names(d->cache, &key);
    etl_event_names fresh;
    if (!names) {
        compose_names(d, rec, info, &fresh);
        names = etl_decode_cache_keep_names(d->cache, &key, &fresh);
        if (!names) names = &fresh;
    }
    ev->task_name = names->task_name;
    ev->opcode_name = names->opcode_name;
    ev->level_name = names->level_name;
    ev->channel_name = names->channel_name;
    ev->keyword_names = names->keyword_names;
    ev->keyword_name_count = names->keyword_name_count;
    ev->event_name = names->event_name;
}

/* Message inserts: the text of each top-level property; array elements joined by ", ". */
/* The text span of top-level property i of the last walk: its values' texts lie there one after another, each
 * with its NUL (markers take no text). Only for a walk that completed. */
static void value_span(const etl_walk *w, size_t i, size_t *from, size_t *to)
{
    *from = w->top_text[i];
    *to = w->top_text[i + 1];
}

/* "a\0b\0c" -> "a, b, c" into out (room for 2 * (stop - p) + 8 bytes); *nuls counts the separators. On
 * little-endian hosts 8 bytes a step: a word without a NUL is copied whole, else up to its first NUL (the
 * lowest byte the zero test flags is exact). */
static char *join_values(char *out, const char *p, const char *stop, size_t *nuls)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (stop - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        memcpy(out, &x, 8);
        uint64_t zero = etl_swar_zero(x);
        if (!zero) {
            p += 8, out += 8;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctzll(zero) / 8;
        out += k;
        p += k + 1;
        memcpy(out, ", ", 2);
        out += 2;
        ++*nuls;
    }
#endif
    for (; p < stop; p++) {
        if (*p) *out++ = *p;
        else *out++ = ',', *out++ = ' ', ++*nuls;
    }
    return out;
}

/* How many values top-level property [first, end) holds, and the last one's text ("" without one). */
static size_t count_values(const etl_field *fields, size_t first, size_t end, const char **only)
{
    *only = "";
    if (end - first == 1 && fields[first].kind == ETL_FIELD_VALUE) {
        *only = fields[first].value;
        return 1;
    }
    /* an array of non-struct elements holds values only (BEGIN, values, END) */
    if (end - first >= 3 && fields[first].kind == ETL_FIELD_ARRAY_BEGIN && fields[first + 1].kind == ETL_FIELD_VALUE) {
        *only = fields[end - 2].value;
        return end - first - 2;
    }
    size_t values = 0;
    for (size_t f = first; f < end; f++)
        if (fields[f].kind == ETL_FIELD_VALUE) values++, *only = fields[f].value;
    return values;
}

/* Message inserts: the text of each top-level property; array elements joined by ", ". */
static int format_message(etl_decoder *d, etl_decoded_event *ev, const etl_event_info *info)
{
    if (!info->message) return ETL_OK;
    size_t count = info->top_level_count;
    if (count > info->property_count) count = info->property_count;
    if (count > d->insert_capacity) {
        const char **p = realloc(d->insert_ptrs, count * sizeof *p);
        if (!p) return ETL_ERR_NOMEM;
        d->insert_ptrs = p;
        size_t *o = realloc(d->insert_offsets, 2 * count * sizeof *o);
        if (!o) return ETL_ERR_NOMEM;
        d->insert_offsets = o;
        d->insert_capacity = count;
    }
    size_t *lengths = count ? d->insert_offsets + count : NULL; /* no arithmetic on a NULL array */
    const etl_walk *w = &d->walk;
    int spans = ev->status == ETL_DECODE_OK; /* value_span applies */
    /* an insert is its property's value text; only arrays (elements joined by ", ") are copied */
    etl_textbuf_reset(&d->inserts);
    for (size_t i = 0; i < count; i++) {
        size_t first = w->top_first[i], end = w->top_first[i + 1];
        const char *only;
        size_t values = count_values(ev->fields, first, end, &only), from = 0, to = 0;
        if (spans) value_span(w, i, &from, &to);
        d->insert_offsets[i] = d->inserts.length;
        if (values < 2) {
            d->insert_ptrs[i] = only;
            /* a character of code 0 renders as a NUL byte: that value is "" */
            lengths[i] = spans && values && only[0] ? to - from - 1 : strlen(only);
            continue;
        }
        d->insert_ptrs[i] = NULL;
        size_t nuls = 0;
        if (spans) { /* "a\0b\0c\0" -> "a, b, c" */
            if (etl_textbuf_reserve(&d->inserts, 2 * (to - from) + 8) != 0) return ETL_ERR_NOMEM;
            char *out = join_values(d->inserts.data + d->inserts.length, w->text.data + from, w->text.data + to - 1,
                                    &nuls);
            d->inserts.length = (size_t)(out - d->inserts.data);
        }
        if (!spans || nuls + 1 != values) { /* a value held a NUL byte: join value by value */
            d->inserts.length = d->insert_offsets[i];
            int joined = 0;
            for (size_t f = first; f < end; f++) {
                const etl_field *field = &ev->fields[f];
                if (field->kind != ETL_FIELD_VALUE) continue;
                if (joined++) etl_textbuf_append(&d->inserts, ", ", 2);
                etl_textbuf_puts(&d->inserts, field->value);
            }
        }
        lengths[i] = d->inserts.length - d->insert_offsets[i];
        etl_textbuf_putc(&d->inserts, '\0');
    }
    if (d->inserts.failed) return ETL_ERR_NOMEM;
    for (size_t i = 0; i < count; i++)
        if (!d->insert_ptrs[i]) d->insert_ptrs[i] = etl_textbuf_at(&d->inserts, d->insert_offsets[i]);
    etl_textbuf_reset(&d->message);
    const etl_message_plan *compiled = etl_decode_cache_message(d->cache, info, count);
    if (compiled) etl_message_apply(&d->message, compiled, d->insert_ptrs, lengths);
    else etl_message_format_lengths(&d->message, info->message, d->insert_ptrs, lengths, count);
    /* mc terminates compiled messages with CR LF */
    while (d->message.length && (d->message.data[d->message.length - 1] == '\n' ||
                                 d->message.data[d->message.length - 1] == '\r'))
        d->message.data[--d->message.length] = '\0';
    if (d->message.failed) return ETL_ERR_NOMEM;
    ev->message = etl_textbuf_at(&d->message, 0);
    return ETL_OK;
}

static void set_error(etl_decoder *d, etl_decoded_event *ev, const char *why)
{
    const etl_event_record *rec = ev->record;
    etl_record_place place = etl_record_place_of(rec);
    char at[96];
    etl_record_place_text(&place, at, sizeof at);
    snprintf(d->error, sizeof d->error, "%s record at file %u %s, %s/%s: %s", etl_header_kind_name(rec->kind),
             rec->file_index, at, ev->provider_name, ev->event_name, why);
    for (char *c = d->error; *c; c++) /* names come from the trace: keep the reason on one line */
        if ((unsigned char)*c < 0x20 || *c == 0x7F) *c = ' ';
    etl_utf8_trim_partial(d->error);
    ev->error = d->error;
}

int etl_decode_begin(etl_decoder *d, const etl_event_record *rec, const etl_decoded_event **out)
{
    etl_decoded_event *ev = &d->event;
    etl_clear_blocks(ev, sizeof *ev); /* a memset here is `rep stos` */
    ev->record = rec;
    *out = ev;
    d->pending = PENDING_NONE;
    observe_trace_schemas(d, rec);

    size_t size = rec->user_data ? rec->user_data_length : 0;
    const char *tl_error = NULL;
    const etl_event_info *info = NULL;
    int string_only = is_event_header_kind(rec->kind) && (rec->header.flags & ETL_EVENT_FLAG_STRING_ONLY);

    if (string_only) { /* the payload is one UTF-16 string, printed bare (tracerpt: <Data>text</Data>) */
        ev->string_only = 1;
        ev->status = ETL_DECODE_OK;
        d->pending = PENDING_STRING;
    } else {
        info = find_schema(d, rec, &tl_error);
    }
    ev->info = info;
    fill_names(d, ev, info);

    int wpp = 0;
    if (!string_only && wpp_is_trace_message(rec)) { /* WPP: the statement of a TMF (-tmf/-tp/-pdb) */
        etl_render_context ctx = {rec->pointer_size, d->trace, rec->file_index, etl_trace_raw_to_filetime};
        wpp = wpp_decode(d->wpp, etl_schema_registry_wpp_const(d->registry), rec, &ctx, ev);
        if (wpp < 0) return wpp;
        if (wpp) ev->info = info = NULL; /* the TMF statement is the description (ev->wpp) */
        if (wpp && ev->status == ETL_DECODE_ERROR) set_error(d, ev, ev->error);
    }

    if (wpp) {
        /* decoded above */
    } else if (info) {
        d->pending = PENDING_WALK;
        ev->source = info->source;
    } else if (tl_error) {
        ev->status = ETL_DECODE_ERROR;
        ev->undecoded = size ? rec->user_data : NULL;
        ev->undecoded_length = size;
        set_error(d, ev, tl_error);
    } else if (!string_only) {
        ev->status = ETL_DECODE_NO_SCHEMA;
        ev->undecoded = size ? rec->user_data : NULL;
        ev->undecoded_length = size;
    }
    return ETL_OK;
}

static void count_event(etl_decoder *d, const etl_decoded_event *ev)
{
    switch (ev->status) {
    case ETL_DECODE_OK:
        d->stats.decoded++;
        if (ev->undecoded_length) d->stats.extra_payload++;
        break;
    case ETL_DECODE_NO_SCHEMA: d->stats.no_schema++; break;
    case ETL_DECODE_ERROR: d->stats.decode_errors++; break;
    }
    d->stats.by_source[ev->source]++;
}

/* OK: trailing bytes of a newer event version (kept for writers that show them); ERROR: the bytes from the
 * value that did not fit */
static void set_undecoded(etl_decoded_event *ev, size_t consumed)
{
    const etl_event_record *rec = ev->record;
    size_t size = rec->user_data ? rec->user_data_length : 0;
    if (consumed < size) {
        ev->undecoded = rec->user_data + consumed;
        ev->undecoded_length = size - consumed;
    }
}

int etl_decode_complete(etl_decoder *d, const etl_decoded_event **out)
{
    etl_decoded_event *ev = &d->event;
    const etl_event_record *rec = ev->record;
    *out = ev;
    const uint8_t *payload = rec->user_data;
    size_t size = payload ? rec->user_data_length : 0;
    if (d->pending == PENDING_STRING) {
        etl_textbuf_reset(&d->string_only);
        etl_render_utf16(&d->string_only, payload, size);
        if (d->string_only.failed) return ETL_ERR_NOMEM;
        d->string_field = (etl_field){ETL_FIELD_VALUE, "", etl_textbuf_at(&d->string_only, 0), ETL_IN_UNICODESTRING,
                                      ETL_OUT_STRING, 0, -1, NULL};
        ev->fields = &d->string_field;
        ev->field_count = 1;
    } else if (d->pending == PENDING_WALK) {
        const etl_event_info *info = ev->info;
        etl_render_context ctx = {rec->pointer_size, d->trace, rec->file_index, etl_trace_raw_to_filetime};
        int rc = etl_walk_event_planned(&d->walk, info, etl_decode_cache_plan(d->cache, info), payload, size, &ctx);
        if (rc < 0) return rc;
        ev->status = (etl_decode_status)rc;
        ev->fields = d->walk.fields;
        ev->field_count = d->walk.field_count;
        ev->field_bytes = d->walk.bytes;
        set_undecoded(ev, d->walk.consumed);
        if (ev->status == ETL_DECODE_ERROR) set_error(d, ev, d->walk.error);
        if ((rc = format_message(d, ev, info)) != ETL_OK) return rc;
    }
    d->pending = PENDING_NONE;

    if (observe_processes(d, ev) != ETL_OK) return ETL_ERR_NOMEM;
    ev->process_id = UINT32_MAX;  /* process_name stays NULL (etl_decode_begin) without a table */
    if (!(d->flags & ETL_DECODER_NO_PROCESSES)) {
        ev->process_id = etl_process_table_event_pid(d->processes, ev);
        ev->process_name = etl_process_table_name(d->processes, ev->process_id, rec->header.timestamp);
    }
    count_event(d, ev);
    return ETL_OK;
}

int etl_decode_skip(etl_decoder *d, const etl_decoded_event **out)
{
    etl_decoded_event *ev = &d->event;
    const etl_event_record *rec = ev->record;
    *out = ev;
    if (d->pending == PENDING_WALK) {
        /* process events feed the process table with their fields; a payload that does not fit needs the walk
         * for its message: those take the full decode (rare) */
        if (!(d->flags & ETL_DECODER_NO_PROCESSES) && etl_process_table_wants(rec)) return etl_decode_complete(d, out);
        etl_render_context ctx = {rec->pointer_size, d->trace, rec->file_index, etl_trace_raw_to_filetime};
        int rc = etl_walk_event_sized(&d->walk, ev->info, etl_decode_cache_plan(d->cache, ev->info), rec->user_data,
                                      rec->user_data ? rec->user_data_length : 0, &ctx);
        if (rc == ETL_WALK_NEEDS_RENDERING) return etl_decode_complete(d, out);
        if (rc < 0) return rc;
        ev->status = ETL_DECODE_OK;
        set_undecoded(ev, d->walk.consumed);
    }
    d->pending = PENDING_NONE;
    if (observe_processes(d, ev) != ETL_OK) return ETL_ERR_NOMEM;
    ev->process_id = UINT32_MAX;
    count_event(d, ev);
    return ETL_OK;
}

int etl_decode_event(etl_decoder *d, const etl_event_record *rec, const etl_decoded_event **out)
{
    int rc = etl_decode_begin(d, rec, out);
    return rc == ETL_OK ? etl_decode_complete(d, out) : rc;
}
