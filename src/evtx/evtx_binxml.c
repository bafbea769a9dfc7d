/* BinXml encoding of one event with templates (see evtx_binxml.h).
 *
 * The layout is a byte string of ops:  'O' name   open element
 *                                      'o' NAME 0 open element with its name spelled out (UserData)
 *                                      'A' name   attribute (its value op follows)
 *                                      'a' NAME 0 attribute with its name spelled out
 *                                      'T' u16 n, n bytes of UTF-8   literal text
 *                                      'S' type optional             substitution (ids count up from 0)
 *                                      'E'        end element
 * Encoding it (once per chunk and layout) follows the libevtx documentation: open start element 0x01/0x41
 * (dependency id 0xFFFF, data size, name offset, attribute list size), attribute 0x06/0x46, value text
 * 0x05 (type 0x01, UTF-16 count + characters), substitutions 0x0D/0x0E (id, type), close start 0x02,
 * close empty 0x03, end element 0x04, end of fragment 0x00. */
#include "evtx_binxml.h"

#include <string.h>

#include "evtx_value.h"

#define MAX_DEPTH 128  /* the writer nests ComplexData at most 64 deep */

static const char *const names[EVTX_N_COUNT] = {
    "Event", "xmlns", "System", "Provider", "Name", "Guid", "EventID", "Version", "Level", "Task", "Opcode",
    "Keywords", "TimeCreated", "SystemTime", "EventRecordID", "Correlation", "ActivityID", "RelatedActivityID",
    "Execution", "ProcessID", "ThreadID", "ProcessorID", "KernelTime", "UserTime", "Channel", "Computer",
    "Security", "UserID", "EventData", "Data", "ComplexData", "Type", "BinaryEventData",
    "ProcessingErrorData", "ErrorCode", "DataItemName", "EventPayload", "DebugData", "SequenceNumber",
    "FlagsName", "LevelName", "Component", "SubComponent", "FileLine", "Function", "Message",
    "RenderingInfo", "Culture", "Keyword", "EventName", "ExtendedTracingInfo", "EventGuid", "UserData",
};

void evtx_event_reset(evtx_event *ev)
{
    etl_textbuf_reset(&ev->layout);
    etl_textbuf_reset(&ev->descriptors);
    etl_textbuf_reset(&ev->values);
    ev->value_count = 0;
    ev->too_large = 0;
}

void evtx_event_free(evtx_event *ev)
{
    etl_textbuf_free(&ev->layout);
    etl_textbuf_free(&ev->descriptors);
    etl_textbuf_free(&ev->values);
}

static void op(evtx_event *ev, char code, int name)
{
    char b[2] = {code, (char)name};
    etl_textbuf_append(&ev->layout, b, name < 0 ? 1 : 2);
}

void evtx_open(evtx_event *ev, evtx_name name)
{
    op(ev, 'O', (int)name);
}

void evtx_end(evtx_event *ev)
{
    op(ev, 'E', -1);
}

void evtx_text(evtx_event *ev, const char *text)
{
    size_t n = strlen(text);
    if (n > 0xFFFF) n = 0xFFFF;  /* literal texts are the writer's own short strings and field names */
    op(ev, 'T', -1);
    evtx_put_le16(&ev->layout, (uint16_t)n);
    etl_textbuf_append(&ev->layout, text, n);
}

void evtx_attr_text(evtx_event *ev, evtx_name name, const char *text)
{
    op(ev, 'A', (int)name);
    evtx_text(ev, text);
}

static void op_named(evtx_event *ev, char code, const char *name)
{
    etl_textbuf_putc(&ev->layout, code);
    etl_textbuf_append(&ev->layout, name, strlen(name) + 1);
}

void evtx_open_named(evtx_event *ev, const char *name)
{
    op_named(ev, 'o', name);
}

void evtx_attr_text_named(evtx_event *ev, const char *name, const char *text)
{
    op_named(ev, 'a', name);
    evtx_text(ev, text);
}

void evtx_element_text(evtx_event *ev, evtx_name name, const char *text)
{
    evtx_open(ev, name);
    evtx_text(ev, text);
    evtx_end(ev);
}

void evtx_subst(evtx_event *ev, uint8_t declared, int optional)
{
    char b[3] = {'S', (char)declared, (char)(optional ? 1 : 0)};
    etl_textbuf_append(&ev->layout, b, 3);
}

void evtx_attr_subst(evtx_event *ev, evtx_name name, uint8_t declared, int optional)
{
    op(ev, 'A', (int)name);
    evtx_subst(ev, declared, optional);
}

size_t evtx_value_begin(evtx_event *ev)
{
    return ev->values.length;
}

void evtx_value_end(evtx_event *ev, size_t begin, uint8_t type)
{
    size_t size = ev->values.length - begin;
    if (size > 0xFFFF) {
        ev->too_large = 1;
        size = 0xFFFF;
    }
    char d[4] = {(char)(size & 0xFF), (char)(size >> 8), (char)type, 0};  /* u16 size, u8 type, u8 0 */
    etl_textbuf_append(&ev->descriptors, d, 4);
    ev->value_count++;
}

/* ---- encoding -------------------------------------------------------------------------------------- */

typedef struct element {
    uint32_t start;      /* offset of the open start element token */
    uint32_t attr_size;  /* offset of the attribute list size, 0 when none */
    int start_open;      /* start tag not closed yet */
} element;

typedef struct encoder {
    evtx_chunk *chunk;
    const uint8_t *op, *end;
    element stack[MAX_DEPTH];
    int depth;
    uint16_t next_subst;
} encoder;

static void put_text(encoder *e, const uint8_t *text, size_t n)
{
    etl_textbuf tmp = {0};
    char *copy = NULL;
    etl_textbuf_append(&tmp, (const char *)text, n);
    copy = tmp.data;
    etl_textbuf wide = {0};
    size_t units = evtx_put_utf16(&wide, copy ? copy : "", 0xFFFF);
    evtx_put_u8(e->chunk, 0x05);
    evtx_put_u8(e->chunk, EVTX_STRING);
    evtx_put_u16(e->chunk, (uint16_t)units);
    evtx_put(e->chunk, wide.data, wide.length);
    etl_textbuf_free(&wide);
    etl_textbuf_free(&tmp);
}

/* A value op ('T' or 'S') at e->op; advances past it. */
static int put_value(encoder *e)
{
    if (e->op >= e->end) return -1;
    if (*e->op == 'T' && e->end - e->op >= 3) {
        size_t n = (size_t)e->op[1] | (size_t)e->op[2] << 8;
        if ((size_t)(e->end - e->op - 3) < n) return -1;
        put_text(e, e->op + 3, n);
        e->op += 3 + n;
        return 0;
    }
    if (*e->op == 'S' && e->end - e->op >= 3) {
        evtx_put_u8(e->chunk, e->op[2] ? 0x0E : 0x0D);
        evtx_put_u16(e->chunk, e->next_subst++);
        evtx_put_u8(e->chunk, e->op[1]);
        e->op += 3;
        return 0;
    }
    return -1;
}

/* Ends the start tag of the innermost element: "/>" (empty) or ">" (content follows). */
static void close_start(encoder *e, int empty)
{
    element *el = &e->stack[e->depth - 1];
    if (!el->start_open) return;
    if (el->attr_size) evtx_patch_u32(e->chunk, el->attr_size, evtx_pos(e->chunk) - el->attr_size - 4);
    evtx_put_u8(e->chunk, empty ? 0x03 : 0x02);
    el->start_open = 0;
}

/* The name of an 'o'/'a' op (NUL-terminated in the layout) and the op after it; NULL when malformed. */
static const char *inline_name(const encoder *e, const uint8_t **next)
{
    const uint8_t *nul = memchr(e->op + 1, 0, (size_t)(e->end - e->op - 1));
    if (!nul) return NULL;
    *next = nul + 1;
    return (const char *)e->op + 1;
}

static int encode_ops(encoder *e)
{
    while (e->op < e->end) {
        uint8_t code = *e->op;
        if (code == 'O' || code == 'o') {
            if (e->depth == MAX_DEPTH || e->end - e->op < 2) return -1;
            const uint8_t *next = e->op + 2;
            const char *name = code == 'O' ? names[e->op[1] % EVTX_N_COUNT] : inline_name(e, &next);
            if (!name) return -1;
            if (e->depth) close_start(e, 0);
            int attrs = next < e->end && (*next == 'A' || *next == 'a');
            element *el = &e->stack[e->depth++];
            el->start = evtx_pos(e->chunk);
            el->start_open = 1;
            evtx_put_u8(e->chunk, attrs ? 0x41 : 0x01);
            evtx_put_u16(e->chunk, 0xFFFF);  /* dependency identifier: none */
            evtx_put_u32(e->chunk, 0);       /* data size, patched at the end */
            evtx_put_name(e->chunk, name);
            el->attr_size = 0;
            if (attrs) {
                el->attr_size = evtx_pos(e->chunk);
                evtx_put_u32(e->chunk, 0);
            }
            e->op = next;
        } else if (code == 'A' || code == 'a') {
            if (e->depth == 0 || !e->stack[e->depth - 1].start_open || e->end - e->op < 2) return -1;
            const uint8_t *value = e->op + 2;
            const char *name = code == 'A' ? names[e->op[1] % EVTX_N_COUNT] : inline_name(e, &value);
            if (!name) return -1;
            /* another attribute after this one's value? (0x46) */
            size_t value_len = value < e->end && *value == 'T' && e->end - value >= 3
                                   ? 3 + ((size_t)value[1] | (size_t)value[2] << 8) : 3;
            int more = (size_t)(e->end - value) > value_len && (value[value_len] == 'A' || value[value_len] == 'a');
            evtx_put_u8(e->chunk, more ? 0x46 : 0x06);
            evtx_put_name(e->chunk, name);
            e->op = value;
            if (put_value(e) != 0) return -1;
        } else if (code == 'T' || code == 'S') {
            if (e->depth == 0) return -1;
            close_start(e, 0);
            if (put_value(e) != 0) return -1;
        } else if (code == 'E') {
            if (e->depth == 0) return -1;
            element *el = &e->stack[e->depth - 1];
            if (el->start_open) close_start(e, 1);
            else evtx_put_u8(e->chunk, 0x04);
            evtx_patch_u32(e->chunk, el->start + 3, evtx_pos(e->chunk) - el->start - 7);
            e->depth--;
            e->op++;
        } else {
            return -1;
        }
    }
    return e->depth == 0 ? 0 : -1;
}

/* A 64-bit hash of the layout, 8 bytes per step (the layout is hashed for every record: byte-wise FNV-1a
 * was the writer's largest single cost); two seeds give the 128-bit template GUID. */
static uint64_t layout_hash(const uint8_t *p, size_t n, uint64_t seed)
{
    uint64_t h = seed ^ (n * 0x9E3779B97F4A7C15ull);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        w *= 0xff51afd7ed558ccdull;
        h = (h ^ w ^ (w >> 32)) * 0x100000001b3ull;
    }
    uint64_t tail = 0;
    if (n > i) memcpy(&tail, p + i, n - i);
    h = (h ^ tail) * 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    return h ^ (h >> 33);
}

static void put_template_reference(evtx_chunk *chunk, uint32_t id, uint32_t offset)
{
    evtx_put_u8(chunk, 0x0C);  /* template instance */
    evtx_put_u8(chunk, 0x01);
    evtx_put_u32(chunk, id);
    evtx_put_u32(chunk, offset);
}

int evtx_event_write(const evtx_event *ev, evtx_chunk *chunk, int64_t filetime)
{
    if (ev->layout.failed || ev->values.failed || ev->descriptors.failed) return -1;
    if (ev->value_count > 0xFFFF) return 1;  /* substitution ids are 16 bits: cannot be one record */
    const uint8_t *layout = (const uint8_t *)ev->layout.data;
    size_t n = ev->layout.length;
    uint64_t hash = layout_hash(layout, n, 0xcbf29ce484222325ull);
    uint32_t template_id = (uint32_t)hash;
    static const uint8_t fragment[4] = {0x0F, 0x01, 0x01, 0x00};

    evtx_record_begin(chunk, filetime);
    evtx_put(chunk, fragment, 4);
    uint32_t offset = evtx_template_find(chunk, layout, n, hash);
    if (offset) {
        put_template_reference(chunk, template_id, offset);
    } else {
        offset = evtx_pos(chunk) + 10;  /* the definition follows the reference */
        put_template_reference(chunk, template_id, offset);
        evtx_put_u32(chunk, evtx_template_bucket_head(chunk, template_id));  /* next definition */
        uint8_t guid[16];
        evtx_store_u64(guid, hash);
        evtx_store_u64(guid + 8, layout_hash(layout, n, 0x84222325cbf29ce4ull));
        evtx_put(chunk, guid, 16);
        uint32_t size_at = evtx_pos(chunk);
        evtx_put_u32(chunk, 0);
        evtx_put(chunk, fragment, 4);
        encoder e = {chunk, layout, layout + n, {{0, 0, 0}}, 0, 0};
        if (encode_ops(&e) != 0 || e.next_subst != ev->value_count) {
            evtx_record_abort(chunk);  /* a writer bug, not an input problem: refuse the record */
            return -1;
        }
        evtx_put_u8(chunk, 0x00);  /* end of fragment */
        evtx_patch_u32(chunk, size_at, evtx_pos(chunk) - size_at - 4);
        if (evtx_template_add(chunk, layout, n, hash, template_id, offset) != 0) {
            evtx_record_abort(chunk);
            return -1;
        }
    }
    evtx_put_u32(chunk, ev->value_count);
    evtx_put(chunk, ev->descriptors.data, ev->descriptors.length);
    evtx_put(chunk, ev->values.data, ev->values.length);
    evtx_put_u8(chunk, 0x00);  /* end of the document */
    return evtx_record_end(chunk);
}
