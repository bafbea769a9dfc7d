/* -export: event descriptions (from any source) → one instrumentation manifest, written with libxml2's
 * xmlTextWriter. The manifest is built so that manifest.c reads back the same descriptions: display names
 * become string-table messages of generated levels/tasks/opcodes/keywords/channels (winmeta names are
 * reused where the display string matches), properties keep their order, flags, counts and lengths. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "schema/manifest_model.h"
#include "util/xml_text.h"

#define EVENTS_NS "http://schemas.microsoft.com/win/2004/08/events"

typedef struct xstr { const char *text; char id[22]; } xstr;  /* "s" and up to 20 digits */

struct provider_tables;

typedef struct exporter {
    xmlTextWriterPtr w;
    struct provider_tables *cur;     /* tables of the provider being written */
    xstr *strings;
    size_t string_count, string_cap;
    int failed;
    unsigned approximated;           /* properties whose type a manifest cannot express */
    etl_textbuf clean;               /* a value with characters XML cannot carry, made readable */
} exporter;

/* string-table id for a text (deduplicated); NULL text → NULL */
static const char *string_ref(exporter *x, const char *text, char *ref, size_t ref_size)
{
    if (!text) return NULL;
    size_t i;
    for (i = 0; i < x->string_count; i++)
        if (strcmp(x->strings[i].text, text) == 0) break;
    if (i == x->string_count) {
        if (x->string_count == x->string_cap) {
            size_t ncap = x->string_cap ? 2 * x->string_cap : 256;
            xstr *p = realloc(x->strings, ncap * sizeof(*p));
            if (!p) { x->failed = 1; return NULL; }
            x->strings = p;
            x->string_cap = ncap;
        }
        x->strings[i].text = text;
        snprintf(x->strings[i].id, sizeof(x->strings[i].id), "s%zu", i);
        x->string_count++;
    }
    snprintf(ref, ref_size, "$(string.%s)", x->strings[i].id);
    return ref;
}

static void attr(exporter *x, const char *name, const char *value)
{
    if (!value) return;
    /* names from binaries (UTF-16 in a CRIM blob) may hold control characters: U+FFFD, or nothing reads it */
    if (!etl_xml_text_is_clean(value)) {
        etl_textbuf_reset(&x->clean);
        etl_xml_text_clean(&x->clean, value);
        if (x->clean.failed) x->failed = 1;
        value = etl_textbuf_at(&x->clean, 0);
    }
    if (xmlTextWriterWriteAttribute(x->w, BAD_CAST name, BAD_CAST value) < 0) x->failed = 1;
}

static void attr_u64(exporter *x, const char *name, unsigned long long v, int hex)
{
    char buf[32];
    snprintf(buf, sizeof(buf), hex ? "0x%llX" : "%llu", v);
    attr(x, name, buf);
}

static void start(exporter *x, const char *element)
{
    if (xmlTextWriterStartElement(x->w, BAD_CAST element) < 0) x->failed = 1;
}

static void end(exporter *x)
{
    if (xmlTextWriterEndElement(x->w) < 0) x->failed = 1;
}

static void message_attr(exporter *x, const char *text)
{
    char ref[32];
    attr(x, "message", string_ref(x, text, ref, sizeof(ref)));
}

/* ---- per-provider tables ------------------------------------------------------------------------------ */

typedef struct item { uint64_t value; uint16_t task; const char *display; char name[48]; } item;
typedef struct items { item *v; size_t n, cap; } items;

static item *items_find_or_add(exporter *x, items *t, uint64_t value, uint16_t task, const char *display,
                               const char *prefix)
{
    for (size_t i = 0; i < t->n; i++)
        if (t->v[i].value == value && t->v[i].task == task) return &t->v[i];
    if (t->n == t->cap) {
        size_t ncap = t->cap ? 2 * t->cap : 16;
        item *p = realloc(t->v, ncap * sizeof(*p));
        if (!p) { x->failed = 1; return NULL; }
        t->v = p;
        t->cap = ncap;
    }
    item *it = &t->v[t->n++];
    it->value = value;
    it->task = task;
    it->display = display;
    if (task) snprintf(it->name, sizeof(it->name), "%s%u_%llu", prefix, task, (unsigned long long)value);
    else snprintf(it->name, sizeof(it->name), "%s%llu", prefix, (unsigned long long)value);
    return it;
}

/* winmeta name whose value and display match, so the manifest stays idiomatic (win:Informational …) */
static const char *winmeta_name(enum etl_winmeta_kind kind, uint64_t value, const char *display)
{
    const etl_winmeta_entry *w = etl_winmeta_find_value(kind, value);
    if (!w || !display) return NULL;
    const char *wd = w->display ? w->display : w->name;
    return strcmp(wd, display) == 0 ? w->name : NULL;
}

typedef struct provider_tables {
    items levels, tasks, opcodes, keywords, channels;
    const etl_map_info **maps;
    size_t map_count;
} provider_tables;

static void tables_free(provider_tables *t)
{
    free(t->levels.v); free(t->tasks.v); free(t->opcodes.v); free(t->keywords.v); free(t->channels.v);
    free(t->maps);
}

/* The bit each keyword name stands for. Names come in ascending mask order (what the parsers emit): a winmeta
 * name takes its own bit, the others take the lowest set bits still free. Returns the bits used. */
static uint64_t keyword_bits(const etl_event_info *e, uint64_t *bits)
{
    uint64_t mask = e->descriptor.keyword, used = 0;
    for (uint32_t k = 0; k < e->keyword_name_count; k++) {
        bits[k] = 0;
        for (int bit = 48; bit < 56; bit++) {
            const etl_winmeta_entry *w = etl_winmeta_find_value(ETL_WINMETA_KEYWORD, 1ull << bit);
            if (w && w->display && e->keyword_names[k] && strcmp(w->display, e->keyword_names[k]) == 0 &&
                (mask >> bit & 1) && !(used >> bit & 1))
                bits[k] = 1ull << bit;
        }
        if (!bits[k]) {
            uint64_t free_bits = mask & ~used;
            if (!free_bits) continue;
            bits[k] = free_bits & (~free_bits + 1);   /* lowest free bit */
        }
        used |= bits[k];
    }
    return used;
}

static uint64_t event_keywords(exporter *x, provider_tables *t, const etl_event_info *e, char *out, size_t size)
{
    out[0] = '\0';
    uint64_t bits[64];
    if (e->keyword_name_count > 64) return 0;
    uint64_t used = keyword_bits(e, bits);
    size_t len = 0;
    for (uint32_t k = 0; k < e->keyword_name_count; k++) {
        if (!bits[k]) continue;
        item *it = items_find_or_add(x, &t->keywords, bits[k], 0, e->keyword_names[k], "kw");
        if (!it) return used;
        const char *name = winmeta_name(ETL_WINMETA_KEYWORD, it->value, it->display);
        int w = snprintf(out + len, size - len, "%s%s", len ? " " : "", name ? name : it->name);
        if (w < 0 || (size_t)w >= size - len) { out[len] = '\0'; return used; }
        len += (size_t)w;
    }
    return used;
}

/* Registries copy maps per event, so the same map arrives as many pointers: compare by content. */
static int map_equal(const etl_map_info *a, const etl_map_info *b)
{
    if (a == b) return 1;
    if (a->flags != b->flags || a->entry_count != b->entry_count) return 0;
    if ((a->name == NULL) != (b->name == NULL) || (a->name && strcmp(a->name, b->name) != 0)) return 0;
    for (uint32_t i = 0; i < a->entry_count; i++)
        if (a->entries[i].value != b->entries[i].value || strcmp(a->entries[i].name, b->entries[i].name) != 0)
            return 0;
    return 1;
}

static void collect_maps(exporter *x, provider_tables *t, const etl_event_info *e)
{
    for (uint32_t i = 0; i < e->property_count; i++) {
        const etl_map_info *m = e->properties[i].map;
        if (!m) continue;
        size_t k;
        for (k = 0; k < t->map_count; k++) if (map_equal(t->maps[k], m)) break;
        if (k < t->map_count) continue;
        const etl_map_info **p = realloc(t->maps, (t->map_count + 1) * sizeof(*p));
        if (!p) { x->failed = 1; return; }
        t->maps = p;
        t->maps[t->map_count++] = m;
    }
}

static void map_name(const provider_tables *t, const etl_map_info *m, char *out, size_t size)
{
    for (size_t k = 0; k < t->map_count; k++)
        if (map_equal(t->maps[k], m)) {
            /* two different maps with one name (from different sources): the later ones are renamed */
            size_t first = k;
            for (size_t j = 0; j < k; j++)
                if (m->name && t->maps[j]->name && strcmp(t->maps[j]->name, m->name) == 0) { first = j; break; }
            if (m->name && first == k) snprintf(out, size, "%s", m->name);
            else snprintf(out, size, "map%zu", k);
            return;
        }
    snprintf(out, size, "map?");
}

/* ---- templates and events ------------------------------------------------------------------------------ */

static void write_fields(exporter *x, const etl_event_info *e, uint32_t first, uint32_t count, int depth)
{
    for (uint32_t i = first; i < first + count && i < e->property_count; i++) {
        const etl_property_info *p = &e->properties[i];
        char fallback[32], num[32];
        snprintf(fallback, sizeof(fallback), "Field%u", i);
        int is_struct = (p->flags & ETL_PROP_STRUCT) != 0;
        start(x, is_struct ? "struct" : "data");
        attr(x, "name", p->name ? p->name : fallback);
        if (!is_struct) {
            const char *in = etl_manifest_in_type_name(p->in_type);
            const char *out = etl_manifest_out_type_name(p->out_type);
            /* types without a manifest name (WBEM/TraceLogging-only) cannot be expressed: count them */
            /* WBEM-only types (>= 300) have no manifest name: written as the nearest manifest type */
            if (!in) { x->approximated++; in = p->in_type == ETL_IN_WBEMSID ? "win:SID" : "win:Binary"; }
            attr(x, "inType", in);
            if (out) attr(x, "outType", out);
            if (p->map) {
                char name[64];
                map_name(x->cur, p->map, name, sizeof(name));
                attr(x, "map", name);
            }
        }
        if ((p->flags & ETL_PROP_PARAM_COUNT) && p->count < e->property_count && e->properties[p->count].name)
            attr(x, "count", e->properties[p->count].name);
        else if ((p->flags & ETL_PROP_PARAM_FIXED_COUNT) || (!(p->flags & ETL_PROP_PARAM_COUNT) && p->count > 1)) {
            /* TDH's older form: count > 1 without a flag is a fixed-size array too */
            snprintf(num, sizeof(num), "%u", p->count);
            attr(x, "count", num);
        }
        if ((p->flags & ETL_PROP_PARAM_LENGTH) && p->length < e->property_count && e->properties[p->length].name)
            attr(x, "length", e->properties[p->length].name);
        else if ((p->flags & ETL_PROP_PARAM_FIXED_LENGTH) || (!(p->flags & ETL_PROP_PARAM_LENGTH) && p->length)) {
            snprintf(num, sizeof(num), "%u", p->length);
            attr(x, "length", num);
        }
        uint32_t inline_flags = p->flags & (ETL_PROP_INLINE_COUNT | ETL_PROP_INLINE_LENGTH | ETL_PROP_HAS_CUSTOM_SCHEMA);
        if (inline_flags) attr_u64(x, "etl:flags", inline_flags, 1);  /* TraceLogging forms, read back by -import */
        if (is_struct && depth < 8) write_fields(x, e, p->struct_start, p->struct_count, depth + 1);
        end(x);
    }
}

static void write_maps(exporter *x, const provider_tables *t)
{
    if (!t->map_count) return;
    start(x, "maps");
    for (size_t k = 0; k < t->map_count; k++) {
        const etl_map_info *m = t->maps[k];
        char name[64];
        map_name(t, m, name, sizeof(name));
        start(x, (m->flags & ETL_MAP_BITMAP) ? "bitMap" : "valueMap");
        attr(x, "name", name);
        for (uint32_t i = 0; i < m->entry_count; i++) {
            start(x, "map");
            attr_u64(x, "value", m->entries[i].value, 1);
            message_attr(x, m->entries[i].name);
            end(x);
        }
        end(x);
    }
    end(x);
}

static void write_items(exporter *x, const char *section, const char *element, const items *t, const char *value_attr,
                        int hex, enum etl_winmeta_kind kind)
{
    int opened = 0;
    for (size_t i = 0; i < t->n; i++) {
        const item *it = &t->v[i];
        if (winmeta_name(kind, it->value, it->display)) continue;   /* referenced by its win: name */
        if (!opened) { start(x, section); opened = 1; }
        start(x, element);
        attr(x, "name", it->name);
        attr_u64(x, value_attr, it->value, hex);
        message_attr(x, it->display);
        end(x);
    }
    if (opened) end(x);
}

static void write_tasks(exporter *x, const provider_tables *t)
{
    int opened = 0;
    for (size_t i = 0; i < t->tasks.n; i++) {
        const item *it = &t->tasks.v[i];
        int has_opcodes = 0;
        for (size_t k = 0; k < t->opcodes.n; k++) has_opcodes |= t->opcodes.v[k].task == it->value;
        if (winmeta_name(ETL_WINMETA_TASK, it->value, it->display) && !has_opcodes) continue;
        if (!opened) { start(x, "tasks"); opened = 1; }
        start(x, "task");
        attr(x, "name", it->name);
        attr_u64(x, "value", it->value, 0);
        message_attr(x, it->display);
        if (has_opcodes) {
            start(x, "opcodes");
            for (size_t k = 0; k < t->opcodes.n; k++) {
                const item *op = &t->opcodes.v[k];
                if (op->task != it->value) continue;
                start(x, "opcode");
                attr(x, "name", op->name);
                attr_u64(x, "value", op->value, 0);
                message_attr(x, op->display);
                end(x);
            }
            end(x);
        }
        end(x);
    }
    if (opened) end(x);
}

/* Names for an event's level/task/opcode/channel, registering table entries as needed. */
static int event_channel_slot(const etl_event_info *e);

/* copies, not pointers: the tables grow (and move) while later events are visited */
typedef struct event_refs {
    char level[64], task[64], opcode[64], channel[64], keywords[1024];
    int raw_task, raw_opcode, raw_level, raw_channel;   /* values without a name: etl: attributes */
    uint64_t raw_keywords;
} event_refs;

static void set_ref(char *dst, const char *name) { snprintf(dst, 64, "%s", name); }

static void event_references(exporter *x, provider_tables *t, const etl_event_info *e, event_refs *r)
{
    memset(r, 0, sizeof(*r));
    const etl_event_descriptor *d = &e->descriptor;
    item *it;
    const char *w;
    r->raw_level = d->level && !e->level_name;
    r->raw_task = d->task && !e->task_name;
    r->raw_opcode = d->opcode && !e->opcode_name;
    r->raw_channel = d->channel && !e->channel_name;
    if (e->level_name) {
        if ((w = winmeta_name(ETL_WINMETA_LEVEL, d->level, e->level_name))) set_ref(r->level, w);
        else if ((it = items_find_or_add(x, &t->levels, d->level, 0, e->level_name, "level"))) set_ref(r->level, it->name);
    }
    if (e->task_name) {
        if ((w = winmeta_name(ETL_WINMETA_TASK, d->task, e->task_name))) set_ref(r->task, w);
        else if ((it = items_find_or_add(x, &t->tasks, d->task, 0, e->task_name, "task"))) set_ref(r->task, it->name);
    }
    if (e->opcode_name) {
        if ((w = winmeta_name(ETL_WINMETA_OPCODE, d->opcode, e->opcode_name))) set_ref(r->opcode, w);
        else if ((it = items_find_or_add(x, &t->opcodes, d->opcode, d->task, e->opcode_name, "opcode")))
            set_ref(r->opcode, it->name);
    }
    const etl_winmeta_entry *wc = etl_winmeta_find(ETL_WINMETA_CHANNEL, e->channel_name);
    if (wc && wc->value == d->channel && event_channel_slot(e) == 8) {
        set_ref(r->channel, wc->name);   /* a winmeta channel outside the list: no keyword bit */
    } else if (e->channel_name) {
        if ((it = items_find_or_add(x, &t->channels, d->channel, 0, e->channel_name, "channel")))
            set_ref(r->channel, it->name);
    }
    uint64_t used = event_keywords(x, t, e, r->keywords, sizeof(r->keywords));
    /* bits neither a keyword name nor the channel explains */
    uint64_t left = d->keyword & ~used;
    int slot = e->channel_name ? event_channel_slot(e) : 8;
    if (slot < 8) left &= ~(1ull << (63 - slot));   /* the channel list position gives it back */
    r->raw_keywords = left;
}

/* Channels: an event of the n-th listed channel gets keyword bit 63-n on reading, so order the channels by
 * the bit their events carry (the bit left in the mask once the keyword names took the low bits). */
static int event_channel_slot(const etl_event_info *e)
{
    uint64_t bits[64];
    if (e->keyword_name_count > 64) return 8;
    uint64_t mask = e->descriptor.keyword & ~keyword_bits(e, bits);
    for (int bit = 63; bit >= 56; bit--)
        if (mask >> bit & 1) return 63 - bit;
    return 8;
}

static int channel_slot(const etl_event_info *const *ev, size_t n, uint8_t channel)
{
    for (size_t i = 0; i < n; i++)
        if (ev[i]->descriptor.channel == channel && ev[i]->channel_name) return event_channel_slot(ev[i]);
    return 8;
}

static void write_channels(exporter *x, const provider_tables *t, const etl_event_info *const *ev, size_t n)
{
    if (!t->channels.n) return;
    int last_slot = -1;
    for (size_t i = 0; i < t->channels.n; i++) {
        int s = channel_slot(ev, n, (uint8_t)t->channels.v[i].value);
        if (s < 8 && s > last_slot) last_slot = s;
    }
    start(x, "channels");
    for (int slot = 0; slot <= 8; slot++) {
        int used = 0;
        for (size_t i = 0; i < t->channels.n; i++) {
            const item *it = &t->channels.v[i];
            if (channel_slot(ev, n, (uint8_t)it->value) != slot) continue;
            used = 1;
            start(x, "channel");
            attr(x, "name", it->display ? it->display : it->name);
            attr(x, "chid", it->name);
            attr_u64(x, "value", it->value, 0);
            attr(x, "type", "Analytic");
            end(x);
        }
        if (!used && slot < last_slot) {
            /* keeps the later channels at the list position their keyword bit needs */
            char name[48];
            snprintf(name, sizeof(name), "etlconv-unused-channel-%d", slot);
            start(x, "importChannel");
            attr(x, "name", name);
            attr(x, "chid", name);
            end(x);
        }
    }
    end(x);
}

static void write_provider(exporter *x, const etl_event_info *const *ev, size_t n)
{
    provider_tables t;
    memset(&t, 0, sizeof(t));
    x->cur = &t;
    event_refs *refs = calloc(n ? n : 1, sizeof(*refs));
    if (!refs) { x->failed = 1; return; }
    for (size_t i = 0; i < n; i++) {
        event_references(x, &t, ev[i], &refs[i]);
        collect_maps(x, &t, ev[i]);
    }
    char guid[40];
    start(x, "provider");
    attr(x, "name", ev[0]->provider_name);
    attr(x, "guid", etl_guid_format(&ev[0]->provider_guid, guid, 1));
    message_attr(x, ev[0]->provider_message);
    write_channels(x, &t, ev, n);
    write_items(x, "levels", "level", &t.levels, "value", 0, ETL_WINMETA_LEVEL);
    write_tasks(x, &t);
    /* opcodes of task 0 at provider level; the others were written inside their task */
    items provider_opcodes = {0};
    for (size_t k = 0; k < t.opcodes.n; k++)
        if (t.opcodes.v[k].task == 0)
            items_find_or_add(x, &provider_opcodes, t.opcodes.v[k].value, 0, t.opcodes.v[k].display, "opcode");
    write_items(x, "opcodes", "opcode", &provider_opcodes, "value", 0, ETL_WINMETA_OPCODE);
    free(provider_opcodes.v);
    write_items(x, "keywords", "keyword", &t.keywords, "mask", 1, ETL_WINMETA_KEYWORD);
    write_maps(x, &t);
    int any_template = 0;
    for (size_t i = 0; i < n; i++) any_template |= ev[i]->property_count > 0;
    if (any_template) {
        start(x, "templates");
        for (size_t i = 0; i < n; i++) {
            if (!ev[i]->property_count) continue;
            char tid[32];
            snprintf(tid, sizeof(tid), "T%u_%u", ev[i]->descriptor.id, ev[i]->descriptor.version);
            start(x, "template");
            attr(x, "tid", tid);
            write_fields(x, ev[i], 0, ev[i]->top_level_count, 0);
            end(x);
        }
        end(x);
    }
    start(x, "events");
    for (size_t i = 0; i < n; i++) {
        const etl_event_info *e = ev[i];
        start(x, "event");
        attr_u64(x, "value", e->descriptor.id, 0);
        attr_u64(x, "version", e->descriptor.version, 0);
        attr(x, "name", e->event_name);
        if (refs[i].level[0]) attr(x, "level", refs[i].level);
        if (refs[i].task[0]) attr(x, "task", refs[i].task);
        if (refs[i].opcode[0]) attr(x, "opcode", refs[i].opcode);
        if (refs[i].channel[0]) attr(x, "channel", refs[i].channel);
        if (refs[i].raw_level) attr_u64(x, "etl:level", e->descriptor.level, 0);
        if (refs[i].raw_task) attr_u64(x, "etl:task", e->descriptor.task, 0);
        if (refs[i].raw_opcode) attr_u64(x, "etl:opcode", e->descriptor.opcode, 0);
        if (refs[i].raw_channel) attr_u64(x, "etl:channel", e->descriptor.channel, 0);
        if (refs[i].raw_keywords) attr_u64(x, "etl:keywords", refs[i].raw_keywords, 1);
        if (refs[i].keywords[0]) attr(x, "keywords", refs[i].keywords);
        if (e->property_count) {
            char tid[32];
            snprintf(tid, sizeof(tid), "T%u_%u", e->descriptor.id, e->descriptor.version);
            attr(x, "template", tid);
        }
        message_attr(x, e->message);
        end(x);
    }
    end(x);
    end(x);   /* provider */
    free(refs);
    tables_free(&t);
    x->cur = NULL;
}

static int event_ptr_cmp(const void *pa, const void *pb)
{
    const etl_event_info *a = *(const etl_event_info *const *)pa, *b = *(const etl_event_info *const *)pb;
    int c = memcmp(&a->provider_guid, &b->provider_guid, sizeof(a->provider_guid));
    if (c) return c;
    if (a->descriptor.id != b->descriptor.id) return a->descriptor.id < b->descriptor.id ? -1 : 1;
    return (a->descriptor.version > b->descriptor.version) - (a->descriptor.version < b->descriptor.version);
}

int etl_manifest_write(const etl_event_info *const *events, size_t n, FILE *out, etl_error *err)
{
    const etl_event_info **ev = malloc((n ? n : 1) * sizeof(*ev));
    if (!ev) return etl_schema_fail(err, ETL_ERR_NOMEM, "-export", UINT64_MAX, "out of memory");
    if (n) memcpy(ev, events, n * sizeof(*ev)); /* events may be NULL when there are none */
    qsort(ev, n, sizeof(*ev), event_ptr_cmp);
    /* one description per (provider, id, version): TraceLogging events share id 0, the first shape stays.
     * Classic (MOF/TMF) layouts are keyed by event-class GUID and have no manifest form. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (!etl_guid_is_zero(&ev[i]->event_guid) || ev[i]->source == ETL_SOURCE_KERNEL_MOF ||
            ev[i]->source == ETL_SOURCE_TMF)
            continue;
        if (m == 0 || event_ptr_cmp(&ev[m - 1], &ev[i]) != 0) ev[m++] = ev[i];
    }
    exporter x;
    memset(&x, 0, sizeof(x));
    xmlOutputBufferPtr buf = xmlOutputBufferCreateFile(out, NULL);
    x.w = buf ? xmlNewTextWriter(buf) : NULL;
    if (!x.w) {
        if (buf) xmlOutputBufferClose(buf);
        free(ev);
        return etl_schema_fail(err, ETL_ERR_NOMEM, "-export", UINT64_MAX, "cannot create the XML writer");
    }
    xmlTextWriterSetIndent(x.w, 1);
    xmlTextWriterSetIndentString(x.w, BAD_CAST "  ");
    if (xmlTextWriterStartDocument(x.w, "1.0", "UTF-8", NULL) < 0) x.failed = 1;
    start(&x, "instrumentationManifest");
    attr(&x, "xmlns", EVENTS_NS);
    attr(&x, "xmlns:win", "http://manifests.microsoft.com/win/2004/08/windows/events");
    attr(&x, "xmlns:xs", "http://www.w3.org/2001/XMLSchema");
    attr(&x, "xmlns:etl", ETL_MANIFEST_EXT_NS);
    start(&x, "instrumentation");
    start(&x, "events");
    for (size_t i = 0; i < m;) {
        size_t j = i;
        while (j < m && memcmp(&ev[j]->provider_guid, &ev[i]->provider_guid, sizeof(etl_guid)) == 0) j++;
        write_provider(&x, ev + i, j - i);
        i = j;
    }
    end(&x);
    end(&x);
    start(&x, "localization");
    start(&x, "resources");
    attr(&x, "culture", "en-US");
    start(&x, "stringTable");
    for (size_t i = 0; i < x.string_count; i++) {
        start(&x, "string");
        attr(&x, "id", x.strings[i].id);
        attr(&x, "value", x.strings[i].text);
        end(&x);
    }
    end(&x);
    end(&x);
    end(&x);
    end(&x);
    if (xmlTextWriterEndDocument(x.w) < 0) x.failed = 1;
    xmlFreeTextWriter(x.w);   /* flushes and closes the output buffer (not the FILE) */
    free(x.strings);
    etl_textbuf_free(&x.clean);
    free(ev);
    if (x.failed) return etl_schema_fail(err, ETL_ERR_IO, "-export", UINT64_MAX, "writing the manifest failed");
    if (err && x.approximated)   /* not an error: reported in err->message with code ETL_OK */
        snprintf(err->message, sizeof(err->message), "-export: %u properties with WBEM-only types written as the "
                 "nearest manifest type", x.approximated);
    return ETL_OK;
}
