/* The record parser itself (etl_record_parse in reader/record.h), inline: the reader's hot loop (stream.c,
 * once per record of each pass) includes it to save the call; everything else calls etl_record_parse.
 * Record headers (etl-format.md §2): marker dispatch, every header kind, extended data items, and the
 * ProcessTrace-style mapping of classic and kernel headers onto EVENT_HEADER fields. */
#ifndef ETL_READER_RECORD_PARSE_H
#define ETL_READER_RECORD_PARSE_H

#include <stddef.h>
#include <string.h>

#include "reader/record.h"
#include "util/clear.h"
#include "util/le.h"

enum {
    MARKER_TRACE_HEADER = 0x80000000u,
    MARKER_EVENT_TRACE = 0x40000000u,
    MARKER_TRACE_MESSAGE = 0x10000000u,

    HT_SYSTEM32 = 0x01, HT_SYSTEM64 = 0x02, HT_COMPACT32 = 0x03, HT_COMPACT64 = 0x04,
    HT_FULL32 = 0x0A, HT_INSTANCE32 = 0x0B, HT_ERROR = 0x0D, HT_MESSAGE = 0x0F,
    HT_PERFINFO32 = 0x10, HT_PERFINFO64 = 0x11, HT_EVENT32 = 0x12, HT_EVENT64 = 0x13,
    HT_FULL64 = 0x14, HT_INSTANCE64 = 0x15,

    SYSTEM_HEADER_SIZE = 0x20, COMPACT_HEADER_SIZE = 0x18, PERFINFO_HEADER_SIZE = 0x10,
    FULL_HEADER_SIZE = 0x30, INSTANCE_HEADER_SIZE = 0x48, EVENT_HEADER_SIZE = 0x50, MESSAGE_HEADER_SIZE = 8,
    EXT_ITEM_HEADER_SIZE = 8,

    KERNEL_EXT_PEBS = 0x8000, KERNEL_EXT_PMC_MASK = 0x0700, KERNEL_EXT_PMC_SHIFT = 8,

    WPP_SEQUENCE = 0x0001, WPP_GUID = 0x0002, WPP_COMPONENTID = 0x0004, WPP_TIMESTAMP = 0x0008,
    WPP_SYSTEMINFO = 0x0020, WPP_POINTER32 = 0x0040, WPP_POINTER64 = 0x0080
};

static const uint32_t NO_ID = 0xFFFFFFFFu;

static size_t align8(size_t x) { return (x + 7) & ~(size_t)7; }

/* On little-endian hosts a GUID and an EVENT_DESCRIPTOR on disk have exactly the layout of etl_guid and
 * etl_event_descriptor: one 16-byte copy each instead of field by field. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define RECORD_HOST_LAYOUT 1
_Static_assert(sizeof(etl_guid) == 16 && offsetof(etl_guid, data2) == 4 && offsetof(etl_guid, data3) == 6 &&
                   offsetof(etl_guid, data4) == 8, "etl_guid is the on-disk GUID layout");
_Static_assert(sizeof(etl_event_descriptor) == 16 && offsetof(etl_event_descriptor, version) == 2 &&
                   offsetof(etl_event_descriptor, channel) == 3 && offsetof(etl_event_descriptor, level) == 4 &&
                   offsetof(etl_event_descriptor, opcode) == 5 && offsetof(etl_event_descriptor, task) == 6 &&
                   offsetof(etl_event_descriptor, keyword) == 8,
               "etl_event_descriptor is the on-disk EVENT_DESCRIPTOR layout");
#else
#define RECORD_HOST_LAYOUT 0
#endif

static inline etl_guid read_guid(const uint8_t *p)
{
#if RECORD_HOST_LAYOUT
    etl_guid g;
    memcpy(&g, p, sizeof g);
    return g;
#else
    return etl_guid_read(p);
#endif
}

static inline void read_descriptor(const uint8_t *p, etl_event_descriptor *d)
{
#if RECORD_HOST_LAYOUT
    memcpy(d, p, sizeof *d);
#else
    d->id = etl_le16(p);
    d->version = p[2];
    d->channel = p[3];
    d->level = p[4];
    d->opcode = p[5];
    d->task = etl_le16(p + 6);
    d->keyword = etl_le64(p + 8);
#endif
}

/* SYSTEM, COMPACT and PERFINFO headers: kernel events keyed by the HookId. */
static etl_record_result parse_kernel(const uint8_t *r, size_t size, uint8_t ht, etl_event_record *rec,
                                      etl_extended_item *items, size_t max_items, const char **why)
{
    size_t fixed;
    uint16_t marker_low = etl_le16(r);
    uint16_t hook = etl_le16(r + 6);
    uint8_t group = (uint8_t)(hook >> 8), type = (uint8_t)hook;
    switch (ht) {
    case HT_SYSTEM32: rec->kind = ETL_KIND_SYSTEM32; fixed = SYSTEM_HEADER_SIZE; rec->pointer_size = 4; break;
    case HT_SYSTEM64: rec->kind = ETL_KIND_SYSTEM64; fixed = SYSTEM_HEADER_SIZE; rec->pointer_size = 8; break;
    case HT_COMPACT32: rec->kind = ETL_KIND_COMPACT32; fixed = COMPACT_HEADER_SIZE; rec->pointer_size = 4; break;
    case HT_COMPACT64: rec->kind = ETL_KIND_COMPACT64; fixed = COMPACT_HEADER_SIZE; rec->pointer_size = 8; break;
    case HT_PERFINFO32: rec->kind = ETL_KIND_PERFINFO32; fixed = PERFINFO_HEADER_SIZE; rec->pointer_size = 4; break;
    default: rec->kind = ETL_KIND_PERFINFO64; fixed = PERFINFO_HEADER_SIZE; rec->pointer_size = 8; break;
    }
    if (size < fixed) { *why = "kernel record smaller than its header"; return ETL_RECORD_BAD; }
    etl_event_header *h = &rec->header;
    if (fixed == PERFINFO_HEADER_SIZE) {
        h->thread_id = NO_ID;
        h->process_id = NO_ID;
        rec->raw_timestamp = etl_les64(r + 8);
    } else {
        h->thread_id = etl_le32(r + 8);
        h->process_id = etl_le32(r + 12);
        rec->raw_timestamp = etl_les64(r + 16);
        if (fixed == SYSTEM_HEADER_SIZE) {
            h->kernel_time = etl_le32(r + 24);
            h->user_time = etl_le32(r + 28);
        }
    }
    /* PEBS index and PMC counters sit between the fixed header and the payload (§2.7). */
    size_t ext = fixed;
    uint16_t n = 0;
    if (marker_low & KERNEL_EXT_PEBS) {
        if (ext + 8 > size) { *why = "kernel record too small for its PEBS index"; return ETL_RECORD_BAD; }
        if (n < max_items) items[n++] = (etl_extended_item){ETL_EXT_PEBS_INDEX, 8, r + ext};
        ext += 8;
    }
    unsigned pmc = (marker_low & KERNEL_EXT_PMC_MASK) >> KERNEL_EXT_PMC_SHIFT;
    if (pmc) {
        if (ext + 8u * pmc > size) { *why = "kernel record too small for its PMC counters"; return ETL_RECORD_BAD; }
        if (n < max_items) items[n++] = (etl_extended_item){ETL_EXT_PMC_COUNTERS, (uint16_t)(8u * pmc), r + ext};
        ext += 8u * pmc;
    }
    rec->extended_data_count = n;
    if (n) h->flags |= ETL_EVENT_FLAG_EXTENDED_INFO;
    rec->kernel_group = group;
    if (etl_kernel_group_guid(group, type, &h->provider_id) != 0) memset(&h->provider_id, 0, sizeof h->provider_id);
    h->descriptor.opcode = type;
    h->descriptor.version = (uint8_t)marker_low;
    h->flags |= ETL_EVENT_FLAG_CLASSIC_HEADER;
    rec->user_data = r + ext;
    rec->user_data_length = (uint16_t)(size - ext);
    return ETL_RECORD_OK;
}

/* FULL_HEADER (EVENT_TRACE_HEADER) and INSTANCE headers: classic providers, keyed by the class GUID. */
static etl_record_result parse_classic(const uint8_t *r, size_t size, uint8_t ht, etl_event_record *rec,
                                       etl_extended_item *items, size_t max_items, const char **why)
{
    int instance = (ht == HT_INSTANCE32 || ht == HT_INSTANCE64);
    size_t fixed = instance ? INSTANCE_HEADER_SIZE : FULL_HEADER_SIZE;
    if (size < fixed) { *why = "classic record smaller than its header"; return ETL_RECORD_BAD; }
    switch (ht) {
    case HT_FULL32: rec->kind = ETL_KIND_FULL32; rec->pointer_size = 4; break;
    case HT_FULL64: rec->kind = ETL_KIND_FULL64; rec->pointer_size = 8; break;
    case HT_INSTANCE32: rec->kind = ETL_KIND_INSTANCE32; rec->pointer_size = 4; break;
    default: rec->kind = ETL_KIND_INSTANCE64; rec->pointer_size = 8; break;
    }
    etl_event_header *h = &rec->header;
    h->descriptor.opcode = r[4];
    h->descriptor.level = r[5];
    h->descriptor.version = (uint8_t)etl_le16(r + 6);
    h->thread_id = etl_le32(r + 8);
    h->process_id = etl_le32(r + 12);
    rec->raw_timestamp = etl_les64(r + 16);
    h->provider_id = read_guid(r + 24);
    h->kernel_time = etl_le32(r + 40);
    h->user_time = etl_le32(r + 44);
    h->flags |= ETL_EVENT_FLAG_CLASSIC_HEADER;
    if (instance && max_items > 0) {
        /* InstanceId, ParentInstanceId, ParentGuid: exactly the INSTANCE_INFO item layout. */
        items[0] = (etl_extended_item){ETL_EXT_INSTANCE_INFO, 24, r + FULL_HEADER_SIZE};
        rec->extended_data_count = 1;
        h->flags |= ETL_EVENT_FLAG_EXTENDED_INFO;
    }
    rec->user_data = r + fixed;
    rec->user_data_length = (uint16_t)(size - fixed);
    return ETL_RECORD_OK;
}

/* EVENT_HEADER (manifest, EventSource, TraceLogging) with on-disk extended data items (§2.9, §2.10). */
static etl_record_result parse_event(const uint8_t *r, size_t size, uint8_t ht, etl_event_record *rec,
                                     etl_extended_item *items, size_t max_items, const char **why)
{
    if (size < EVENT_HEADER_SIZE) { *why = "event record smaller than EVENT_HEADER"; return ETL_RECORD_BAD; }
    rec->kind = ht == HT_EVENT32 ? ETL_KIND_EVENT32 : ht == HT_EVENT64 ? ETL_KIND_EVENT64 : ETL_KIND_ERROR;
    rec->pointer_size = ht == HT_EVENT32 ? 4 : 8;
    etl_event_header *h = &rec->header;
    h->flags = etl_le16(r + 4) & (uint16_t) ~(ETL_EVENT_FLAG_32_BIT_HEADER | ETL_EVENT_FLAG_64_BIT_HEADER);
    h->event_property = etl_le16(r + 6);
    h->thread_id = etl_le32(r + 8);
    h->process_id = etl_le32(r + 12);
    rec->raw_timestamp = etl_les64(r + 16);
    h->provider_id = read_guid(r + 24);
    read_descriptor(r + 40, &h->descriptor);
    h->kernel_time = etl_le32(r + 56);
    h->user_time = etl_le32(r + 60);
    h->activity_id = read_guid(r + 64);
    size_t p = EVENT_HEADER_SIZE;
    uint16_t n = 0;
    if (h->flags & ETL_EVENT_FLAG_EXTENDED_INFO) {
        for (;;) {
            if (p + EXT_ITEM_HEADER_SIZE > size) { *why = "extended data item runs past the record"; return ETL_RECORD_BAD; }
            uint16_t item_size = etl_le16(r + p);
            uint16_t ext_type = etl_le16(r + p + 2);
            uint16_t linkage = etl_le16(r + p + 4);
            uint16_t data_size = etl_le16(r + p + 6);
            if (item_size < EXT_ITEM_HEADER_SIZE || p + item_size > size ||
                (size_t)data_size + EXT_ITEM_HEADER_SIZE > item_size) {
                *why = "malformed extended data item";
                return ETL_RECORD_BAD;
            }
            if (n >= max_items) { *why = "too many extended data items"; return ETL_RECORD_BAD; }
            items[n++] = (etl_extended_item){ext_type, data_size, r + p + EXT_ITEM_HEADER_SIZE};
            p += item_size;
            if (!(linkage & 1) || p >= size) break; /* a last item that still says "more" ends the list too */
        }
    }
    rec->extended_data_count = n;
    rec->user_data = r + p;
    rec->user_data_length = (uint16_t)(size - p);
    return ETL_RECORD_OK;
}

/* WPP / TraceMessage: optional items in a fixed order, then the packed arguments (§2.8). */
static etl_record_result parse_message(const uint8_t *r, size_t size, uint8_t file_pointer_size,
                                       etl_event_record *rec, int *has_timestamp, const char **why)
{
    if (size < MESSAGE_HEADER_SIZE) { *why = "message record smaller than its header"; return ETL_RECORD_BAD; }
    rec->kind = ETL_KIND_MESSAGE;
    etl_event_header *h = &rec->header;
    uint16_t options = etl_le16(r + 6);
    rec->wpp_option_flags = options;
    h->descriptor.id = etl_le16(r + 4);
    h->flags |= ETL_EVENT_FLAG_TRACE_MESSAGE;
    h->thread_id = NO_ID;
    h->process_id = NO_ID;
    size_t p = MESSAGE_HEADER_SIZE;
    size_t need = p + ((options & WPP_SEQUENCE) ? 4 : 0) + ((options & WPP_GUID) ? 16 : 0) +
                  ((options & WPP_COMPONENTID) && !(options & WPP_GUID) ? 4 : 0) +
                  ((options & WPP_TIMESTAMP) ? 8 : 0) + ((options & WPP_SYSTEMINFO) ? 8 : 0);
    if (need > size) { *why = "message record too small for its optional items"; return ETL_RECORD_BAD; }
    if (options & WPP_SEQUENCE) { rec->wpp_sequence = etl_le32(r + p); p += 4; }
    if (options & WPP_GUID) { h->provider_id = read_guid(r + p); p += 16; }
    else if (options & WPP_COMPONENTID) { h->provider_id.data1 = etl_le32(r + p); p += 4; }
    *has_timestamp = 0;
    if (options & WPP_TIMESTAMP) { rec->raw_timestamp = etl_les64(r + p); p += 8; *has_timestamp = 1; }
    if (options & WPP_SYSTEMINFO) { h->thread_id = etl_le32(r + p); h->process_id = etl_le32(r + p + 4); p += 8; }
    rec->pointer_size = (options & WPP_POINTER32) ? 4 : (options & WPP_POINTER64) ? 8 : file_pointer_size;
    rec->user_data = r + p;
    rec->user_data_length = (uint16_t)(size - p);
    return ETL_RECORD_OK;
}

/* Clears *rec (util/clear.h: vector stores, not `rep stos`). */
static inline void clear_record(etl_event_record *rec)
{
    _Static_assert(sizeof *rec > 128 && sizeof *rec <= 192, "clear_record covers the record in three steps");
    etl_clear_blocks(rec, sizeof *rec);
}

static inline etl_record_result etl_record_parse_inline(const uint8_t *payload, size_t end, size_t off,
                                                        uint8_t file_pointer_size, etl_event_record *rec,
                                                        etl_extended_item *items, size_t max_items, size_t *advance,
                                                        int *has_timestamp, const char **why)
{
    if (off + 4 > end) return ETL_RECORD_END;
    const uint8_t *r = payload + off;
    uint32_t m = etl_le32(r);
    if (m == 0xFFFFFFFFu) return ETL_RECORD_END;
    clear_record(rec);
    rec->extended_data = items;
    rec->kernel_group = 0xFFFF;
    *has_timestamp = 1;
    size_t avail = end - off;
    size_t size;
    uint8_t ht;
    /* One dispatch on the header type: its size field, then its parser. */
    enum { KERNEL, CLASSIC, EVENT, MESSAGE } family;
    int message = (m & (MARKER_TRACE_HEADER | MARKER_EVENT_TRACE)) == MARKER_TRACE_HEADER &&
                  (m & MARKER_TRACE_MESSAGE);
    if (message) {
        ht = HT_MESSAGE;
        size = etl_le16(r);
        family = MESSAGE;
    } else if ((m & (MARKER_TRACE_HEADER | MARKER_EVENT_TRACE)) == (MARKER_TRACE_HEADER | MARKER_EVENT_TRACE)) {
        ht = (uint8_t)(m >> 16);
        switch (ht) {
        case HT_SYSTEM32: case HT_SYSTEM64: case HT_COMPACT32: case HT_COMPACT64:
        case HT_PERFINFO32: case HT_PERFINFO64:
            if (avail < 8) { *why = "record header runs past the buffer"; return ETL_RECORD_BAD; }
            size = etl_le16(r + 4);
            family = KERNEL;
            break;
        case HT_FULL32: case HT_FULL64: case HT_INSTANCE32: case HT_INSTANCE64:
            size = etl_le16(r);
            family = CLASSIC;
            break;
        case HT_EVENT32: case HT_EVENT64: case HT_ERROR:
            size = etl_le16(r);
            family = EVENT;
            break;
        default:
            *why = "unknown record header type";
            return ETL_RECORD_BAD;
        }
    } else {
        *why = "invalid record marker";
        return ETL_RECORD_BAD;
    }
    if (size > avail) { *why = "record runs past the end of the buffer's valid data"; return ETL_RECORD_BAD; }
    if (size < 8) { *why = "record size too small"; return ETL_RECORD_BAD; }
    rec->header.size = (uint16_t)size;
    rec->header.header_type = ht;
    rec->raw = r;
    rec->raw_size = (uint32_t)size;
    rec->record_offset = (uint32_t)off;
    etl_record_result res;
    switch (family) {
    case MESSAGE: res = parse_message(r, size, file_pointer_size, rec, has_timestamp, why); break;
    case CLASSIC: res = parse_classic(r, size, ht, rec, items, max_items, why); break;
    case EVENT: res = parse_event(r, size, ht, rec, items, max_items, why); break;
    default: res = parse_kernel(r, size, ht, rec, items, max_items, why); break;
    }
    if (res != ETL_RECORD_OK) return res;
    rec->header.flags |= rec->pointer_size == 4 ? ETL_EVENT_FLAG_32_BIT_HEADER : ETL_EVENT_FLAG_64_BIT_HEADER;
    if (rec->header.flags & (ETL_EVENT_FLAG_PRIVATE_SESSION | ETL_EVENT_FLAG_NO_CPUTIME))
        rec->header.processor_time = (uint64_t)rec->header.kernel_time | (uint64_t)rec->header.user_time << 32;
    rec->header.timestamp = rec->raw_timestamp;
    *advance = align8(size);
    return ETL_RECORD_OK;
}

#endif
