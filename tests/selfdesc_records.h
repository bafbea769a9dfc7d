/* Test-only helper for the self-describing schema tests: reads a gzipped .etl and hands EVENT_HEADER
 * (0x12/0x13) and FULL_HEADER (0x0A/0x14) records to a callback as etl_event_records, walking the 0x48-byte
 * buffer headers and records as docs/etl-format.md §1.2/§2.9/§2.10/§2.11 describe. Compressed buffers are
 * skipped (counted), so it only serves uncompressed traces; it stands in for the reader until that is on
 * main. */
#ifndef TESTS_SELFDESC_RECORDS_H
#define TESTS_SELFDESC_RECORDS_H

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "etl/etl.h"
#include "util/le.h"

typedef int (*sd_record_fn)(const etl_event_record *record, void *ctx);

static unsigned char *sd_gunzip(const char *path, size_t *length)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) return NULL;
    size_t cap = 1 << 20, len = 0;
    unsigned char *buf = malloc(cap);
    int n;
    while (buf && (n = gzread(gz, buf + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)n;
        if (len == cap) {
            unsigned char *b = realloc(buf, cap * 2);
            if (!b) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
    }
    gzclose(gz);
    *length = len;
    return buf;
}

static void sd_fill_event_header(etl_event_record *r, const unsigned char *rec, size_t size,
                                 etl_extended_item *items)
{
    r->header.flags = etl_le16(rec + 4);
    r->header.thread_id = etl_le32(rec + 8);
    r->header.process_id = etl_le32(rec + 12);
    r->header.timestamp = etl_les64(rec + 16);
    r->header.provider_id = etl_guid_read(rec + 0x18);
    r->header.descriptor.id = etl_le16(rec + 0x28);
    r->header.descriptor.version = rec[0x2A];
    r->header.descriptor.channel = rec[0x2B];
    r->header.descriptor.level = rec[0x2C];
    r->header.descriptor.opcode = rec[0x2D];
    r->header.descriptor.task = etl_le16(rec + 0x2E);
    r->header.descriptor.keyword = etl_le64(rec + 0x30);
    r->header.activity_id = etl_guid_read(rec + 0x40);
    size_t p = 0x50;
    uint16_t n = 0;
    if (r->header.flags & ETL_EVENT_FLAG_EXTENDED_INFO) {
        while (p + 8 <= size && n < ETL_MAX_EXTENDED_ITEMS) {
            uint16_t item_size = etl_le16(rec + p), linkage = etl_le16(rec + p + 4);
            uint16_t data_size = etl_le16(rec + p + 6);
            if (item_size < 8 || p + item_size > size || 8u + data_size > item_size) break;
            items[n].ext_type = etl_le16(rec + p + 2);
            items[n].data_size = data_size;
            items[n].data = rec + p + 8;
            n++;
            p += item_size;
            if (!(linkage & 1)) break;
        }
    }
    r->extended_data_count = n;
    r->extended_data = items;
    r->user_data = rec + p;
    r->user_data_length = (uint16_t)(size - p);
}

/* Returns the number of records delivered, or -1 if the file could not be read. *compressed counts the
 * buffers skipped because they are compressed. */
static long sd_for_each_record(const char *path, sd_record_fn fn, void *ctx, long *compressed)
{
    size_t len = 0;
    unsigned char *d = sd_gunzip(path, &len);
    if (!d) return -1;
    long delivered = 0, skipped = 0;
    size_t off = 0;
    int stop = 0;
    while (!stop && off + 0x48 <= len) {
        uint32_t bsize = etl_le32(d + off), filled = etl_le32(d + off + 0x30);
        if (bsize < 0x48 || off + bsize > len) break;
        if (etl_le16(d + off + 0x34) & 0x40) {
            skipped++;
            off += bsize;
            continue;
        }
        size_t end = off + (filled <= bsize ? filled : bsize);
        size_t p = off + 0x48;
        while (!stop && p + 4 <= end) {
            uint32_t m = etl_le32(d + p);
            if (m == 0xFFFFFFFFu || (m & 0xC0000000u) != 0xC0000000u) break;
            unsigned t = (m >> 16) & 0xFF;
            size_t size;
            if (t == 1 || t == 2 || t == 3 || t == 4 || t == 0x10 || t == 0x11) size = etl_le16(d + p + 4);
            else if (t == 0x0A || t == 0x0B || t == 0x0D || t == 0x12 || t == 0x13 || t == 0x14 || t == 0x15)
                size = etl_le16(d + p);
            else break;
            if (size < 0x10 || p + size > end) break;
            const unsigned char *rec = d + p;
            etl_event_record r;
            etl_extended_item items[ETL_MAX_EXTENDED_ITEMS];
            memset(&r, 0, sizeof r);
            r.header.size = (uint16_t)size;
            r.header.header_type = (uint16_t)t;
            r.raw = rec;
            r.raw_size = (uint32_t)size;
            if ((t == 0x12 || t == 0x13) && size >= 0x50) {
                r.kind = t == 0x12 ? ETL_KIND_EVENT32 : ETL_KIND_EVENT64;
                r.pointer_size = t == 0x12 ? 4 : 8;
                sd_fill_event_header(&r, rec, size, items);
                stop = fn(&r, ctx) != 0;
                delivered++;
            } else if ((t == 0x0A || t == 0x14) && size >= 0x30) {
                r.kind = t == 0x0A ? ETL_KIND_FULL32 : ETL_KIND_FULL64;
                r.pointer_size = t == 0x0A ? 4 : 8;
                r.header.flags = ETL_EVENT_FLAG_CLASSIC_HEADER;
                r.header.descriptor.opcode = rec[4];
                r.header.descriptor.level = rec[5];
                r.header.descriptor.version = (uint8_t)etl_le16(rec + 6);
                r.header.thread_id = etl_le32(rec + 8);
                r.header.process_id = etl_le32(rec + 12);
                r.header.timestamp = etl_les64(rec + 16);
                r.header.provider_id = etl_guid_read(rec + 0x18);
                r.user_data = rec + 0x30;
                r.user_data_length = (uint16_t)(size - 0x30);
                stop = fn(&r, ctx) != 0;
                delivered++;
            }
            p += (size + 7) & ~(size_t)7;
        }
        off += bsize;
    }
    free(d);
    if (compressed) *compressed = skipped;
    return delivered;
}

#endif
