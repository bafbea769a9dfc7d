/* Record headers the corpus does not contain (COMPACT, PERFINFO32, INSTANCE, kernel PEBS/PMC extensions,
 * ERROR, WPP without timestamp) built byte by byte from the layouts in etl-format.md §2.3–§2.11, plus the
 * ones it does, at their boundaries. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "reader/record.h"

static uint8_t rec[256];
static size_t len;
static etl_event_record r;
static etl_extended_item items[ETL_MAX_EXTENDED_ITEMS];
static size_t advance;
static int has_ts;
static const char *why;

static void put16(size_t at, uint16_t v) { rec[at] = (uint8_t)v; rec[at + 1] = (uint8_t)(v >> 8); }
static void put32(size_t at, uint32_t v) { put16(at, (uint16_t)v); put16(at + 2, (uint16_t)(v >> 16)); }
static void put64(size_t at, uint64_t v) { put32(at, (uint32_t)v); put32(at + 4, (uint32_t)(v >> 32)); }
static void put_guid(size_t at, const char *text)
{
    etl_guid g;
    assert_int_equal(etl_guid_parse(text, &g), 0);
    put32(at, g.data1);
    put16(at + 4, g.data2);
    put16(at + 6, g.data3);
    memcpy(rec + at + 8, g.data4, 8);
}
static void assert_guid(const etl_guid *g, const char *text)
{
    char buf[40];
    assert_string_equal(etl_guid_format(g, buf, 0), text);
}

static etl_record_result parse(size_t end) { return etl_record_parse(rec, end, 0, 8, &r, items, ETL_MAX_EXTENDED_ITEMS, &advance, &has_ts, &why); }

/* SYSTEM_TRACE_HEADER (§2.3): marker(version, type, 0xC0), size, hook(type, group), tid, pid, time, kt, ut. */
static void system_header(uint8_t header_type, uint16_t version_word, uint8_t group, uint8_t type, uint16_t size)
{
    memset(rec, 0xAA, sizeof rec);
    put16(0, version_word);
    rec[2] = header_type;
    rec[3] = 0xC0;
    put16(4, size);
    rec[6] = type;
    rec[7] = group;
    len = size;
}

static void test_system_and_compact(void **state)
{
    (void)state;
    system_header(0x01, 2, 0x03, 0x01, 0x20 + 6); /* SYSTEM32 Process/Start v2, 6 payload bytes */
    put32(8, 1234);
    put32(12, 5678);
    put64(16, 99999);
    put32(24, 7);
    put32(28, 9);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_SYSTEM32);
    assert_int_equal(r.pointer_size, 4);
    assert_guid(&r.header.provider_id, "{3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c}"); /* Process class, §2.12 */
    assert_int_equal(r.header.descriptor.opcode, 1);
    assert_int_equal(r.header.descriptor.version, 2);
    assert_int_equal(r.header.thread_id, 1234);
    assert_int_equal(r.header.process_id, 5678);
    assert_int_equal(r.raw_timestamp, 99999);
    assert_int_equal(r.header.kernel_time, 7);
    assert_int_equal(r.header.user_time, 9);
    assert_int_equal(r.user_data_length, 6);
    assert_ptr_equal(r.user_data, rec + 0x20);
    assert_int_equal(advance, 40); /* 38 aligned to 8 */
    assert_true(r.header.flags & ETL_EVENT_FLAG_CLASSIC_HEADER);
    assert_true(r.header.flags & ETL_EVENT_FLAG_32_BIT_HEADER);

    system_header(0x04, 3, 0x03, 0x0A, 0x18 + 8); /* COMPACT64, hook 0x030A = Image Load in the Process group */
    put32(8, 1);
    put32(12, 2);
    put64(16, 3);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_COMPACT64);
    assert_int_equal(r.pointer_size, 8);
    assert_guid(&r.header.provider_id, "{2cb15d1d-5fc1-11d2-abe1-00a0c911f518}"); /* Image class, §2.12 */
    assert_int_equal(r.header.kernel_time, 0);
    assert_int_equal(r.user_data_length, 8);
    assert_ptr_equal(r.user_data, rec + 0x18);

    system_header(0x03, 2, 0x05, 0x01, 0x17); /* COMPACT32 shorter than its 0x18 header */
    assert_int_equal(parse(len), ETL_RECORD_BAD);
}

static void test_perfinfo_and_kernel_extensions(void **state)
{
    (void)state;
    system_header(0x10, 2, 0x0F, 0x2E, 0x10 + 12); /* PERFINFO32 PerfInfo/SampleProf */
    put64(8, 4242);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_PERFINFO32);
    assert_int_equal(r.pointer_size, 4);
    assert_int_equal(r.header.thread_id, 0xFFFFFFFFu); /* no ids in the header (§2.4) */
    assert_int_equal(r.header.process_id, 0xFFFFFFFFu);
    assert_int_equal(r.raw_timestamp, 4242);
    assert_guid(&r.header.provider_id, "{ce1dbfb4-137e-4da6-87b0-3f59aa102cbc}");
    assert_int_equal(r.user_data_length, 12);

    /* §2.7: 0x8000 = PEBS index (8 bytes), bits 8-10 = PMC count (8 bytes each); version is the low byte. */
    system_header(0x11, 0x8000 | 0x0200 | 3, 0x0F, 0x2E, 0x10 + 8 + 16 + 4);
    put64(8, 1);
    put64(0x10, 0x1111);
    put64(0x18, 0x2222);
    put64(0x20, 0x3333);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_PERFINFO64);
    assert_int_equal(r.header.descriptor.version, 3);
    assert_int_equal(r.extended_data_count, 2);
    assert_int_equal(r.extended_data[0].ext_type, ETL_EXT_PEBS_INDEX);
    assert_int_equal(r.extended_data[0].data_size, 8);
    assert_ptr_equal(r.extended_data[0].data, rec + 0x10);
    assert_int_equal(r.extended_data[1].ext_type, ETL_EXT_PMC_COUNTERS);
    assert_int_equal(r.extended_data[1].data_size, 16);
    assert_int_equal(r.user_data_length, 4);
    assert_ptr_equal(r.user_data, rec + 0x28);

    system_header(0x11, 0x0700, 0x0F, 0x2E, 0x10 + 8); /* claims 7 PMC counters but has room for one */
    assert_int_equal(parse(len), ETL_RECORD_BAD);
}

/* EVENT_TRACE_HEADER (§2.5) and EVENT_INSTANCE_GUID_HEADER (§2.6). */
static void classic_header(uint8_t header_type, uint16_t size)
{
    memset(rec, 0xAA, sizeof rec);
    put16(0, size);
    rec[2] = header_type;
    rec[3] = 0xC0;
    rec[4] = 36;   /* type */
    rec[5] = 4;    /* level */
    put16(6, 2);   /* version */
    put32(8, 11);
    put32(12, 22);
    put64(16, 33);
    put_guid(24, "{b3e675d7-2554-4f18-830b-2762732560de}"); /* ImageID task GUID (§4.3) */
    put32(40, 44);
    put32(44, 55);
    len = size;
}

static void test_classic_and_instance(void **state)
{
    (void)state;
    classic_header(0x0A, 0x30 + 10);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_FULL32);
    assert_int_equal(r.pointer_size, 4);
    assert_guid(&r.header.provider_id, "{b3e675d7-2554-4f18-830b-2762732560de}");
    assert_int_equal(r.header.descriptor.opcode, 36);
    assert_int_equal(r.header.descriptor.level, 4);
    assert_int_equal(r.header.descriptor.version, 2);
    assert_int_equal(r.header.thread_id, 11);
    assert_int_equal(r.header.process_id, 22);
    assert_int_equal(r.raw_timestamp, 33);
    assert_int_equal(r.header.kernel_time, 44);
    assert_int_equal(r.header.user_time, 55);
    assert_int_equal(r.user_data_length, 10);
    assert_int_equal(r.extended_data_count, 0);

    classic_header(0x15, 0x48 + 4); /* INSTANCE64: InstanceId, ParentInstanceId, ParentGuid → INSTANCE_INFO */
    put32(0x30, 7);
    put32(0x34, 8);
    put_guid(0x38, "{01234567-89ab-cdef-0123-456789abcdef}");
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_INSTANCE64);
    assert_int_equal(r.pointer_size, 8);
    assert_int_equal(r.extended_data_count, 1);
    assert_int_equal(r.extended_data[0].ext_type, ETL_EXT_INSTANCE_INFO);
    assert_int_equal(r.extended_data[0].data_size, 24);
    assert_ptr_equal(r.extended_data[0].data, rec + 0x30);
    assert_int_equal(r.user_data_length, 4);
    assert_ptr_equal(r.user_data, rec + 0x48);

    classic_header(0x0B, 0x47); /* INSTANCE32 shorter than its header */
    assert_int_equal(parse(len), ETL_RECORD_BAD);
}

/* EVENT_HEADER (§2.9) with on-disk extended items (§2.10). */
static void test_event_header_and_items(void **state)
{
    (void)state;
    memset(rec, 0, sizeof rec);
    size_t size = 0x50 + 24 + 16 + 3;
    put16(0, (uint16_t)size);
    rec[2] = 0x12;
    rec[3] = 0xC0;
    put16(4, ETL_EVENT_FLAG_EXTENDED_INFO | ETL_EVENT_FLAG_64_BIT_HEADER); /* a stored 64-bit flag is ignored */
    put16(6, 0x8);
    put32(8, 100);
    put32(12, 200);
    put64(16, 300);
    put_guid(24, "{9906081d-e45a-4f41-a53f-2ac2e0225de1}");
    put16(40, 17); rec[42] = 1; rec[43] = 11; rec[44] = 4; rec[45] = 2; put16(46, 5); put64(48, 0x400000);
    put_guid(64, "{11111111-2222-3333-4444-555555555555}");
    put16(0x50, 24); put16(0x52, ETL_EXT_RELATED_ACTIVITYID); put16(0x54, 1); put16(0x56, 16); /* linked */
    put16(0x68, 16); put16(0x6A, ETL_EXT_TS_ID); put16(0x6C, 0); put16(0x6E, 4); put32(0x70, 3);
    len = size;
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_EVENT32);
    assert_int_equal(r.pointer_size, 4);
    assert_true(r.header.flags & ETL_EVENT_FLAG_32_BIT_HEADER);
    assert_false(r.header.flags & ETL_EVENT_FLAG_64_BIT_HEADER);
    assert_int_equal(r.header.descriptor.id, 17);
    assert_int_equal(r.header.descriptor.channel, 11);
    assert_int_equal(r.header.descriptor.keyword, 0x400000);
    assert_guid(&r.header.activity_id, "{11111111-2222-3333-4444-555555555555}");
    assert_int_equal(r.extended_data_count, 2);
    assert_int_equal(r.extended_data[1].ext_type, ETL_EXT_TS_ID);
    assert_int_equal(r.user_data_length, 3);
    assert_ptr_equal(r.user_data, rec + 0x50 + 40);

    put16(0x68, 200); /* second item runs past the record */
    assert_int_equal(parse(len), ETL_RECORD_BAD);
    put16(0x68, 4);   /* item smaller than its own header */
    assert_int_equal(parse(len), ETL_RECORD_BAD);

    rec[2] = 0x0D;    /* ERROR records are EVENT_HEADER-shaped (§2.2) */
    put16(4, 0);
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_ERROR);
}

/* MESSAGE_TRACE_HEADER (§2.8): optional items in a fixed order. */
static void test_wpp_message(void **state)
{
    (void)state;
    memset(rec, 0, sizeof rec);
    put16(0, 8 + 4 + 16 + 8 + 8 + 5);
    rec[3] = 0x90;
    put16(4, 10);
    put16(6, 0x0001 | 0x0002 | 0x0008 | 0x0020 | 0x0040);
    put32(8, 77);
    put_guid(12, "{400c1ae9-0bd1-369b-1fa7-27d9adbc8749}");
    put64(28, 123456);
    put32(36, 31);
    put32(40, 32);
    len = 8 + 4 + 16 + 8 + 8 + 5;
    assert_int_equal(parse(len), ETL_RECORD_OK);
    assert_int_equal(r.kind, ETL_KIND_MESSAGE);
    assert_int_equal(r.header.descriptor.id, 10);
    assert_int_equal(r.wpp_sequence, 77);
    assert_guid(&r.header.provider_id, "{400c1ae9-0bd1-369b-1fa7-27d9adbc8749}");
    assert_int_equal(has_ts, 1);
    assert_int_equal(r.raw_timestamp, 123456);
    assert_int_equal(r.header.thread_id, 31);
    assert_int_equal(r.header.process_id, 32);
    assert_int_equal(r.pointer_size, 4);
    assert_int_equal(r.user_data_length, 5);

    put16(6, 0x0002); /* GUID only: no timestamp, no ids */
    put16(0, 8 + 16 + 2);
    assert_int_equal(parse(8 + 16 + 2), ETL_RECORD_OK);
    assert_int_equal(has_ts, 0);
    assert_int_equal(r.header.process_id, 0xFFFFFFFFu);
    assert_int_equal(r.pointer_size, 8); /* the file's pointer size */
    assert_int_equal(r.user_data_length, 2);

    put16(6, 0x0002 | 0x0008 | 0x0020); /* options need 40 bytes, record has 26 */
    assert_int_equal(parse(8 + 16 + 2), ETL_RECORD_BAD);
}

static void test_walk_boundaries(void **state)
{
    (void)state;
    memset(rec, 0xFF, sizeof rec);
    assert_int_equal(parse(64), ETL_RECORD_END);   /* filler */
    assert_int_equal(parse(3), ETL_RECORD_END);    /* no room for a marker */
    system_header(0x02, 2, 0x03, 0x01, 0x40);
    assert_int_equal(parse(0x3F), ETL_RECORD_BAD); /* runs past the valid bytes */
    rec[2] = 0x0C;                                  /* TIMED: "not used" → unknown */
    assert_int_equal(parse(0x40), ETL_RECORD_BAD);
    put32(0, 0x12345678);                           /* no marker flags */
    assert_int_equal(parse(0x40), ETL_RECORD_BAD);
}

/* What a message names for a record (etl_record_place_*): its first byte in the file for a plain buffer (the
 * buffer, its 0x48-byte header, record_offset), the buffer and the record's place in its decompressed records
 * for a compressed one. */
static void test_place_in_file(void **state)
{
    (void)state;
    char text[128];
    etl_event_record plain = {0};
    plain.file_index = 2;
    plain.file_offset = 0x30000;
    plain.record_offset = 0x1F8;
    etl_record_place at = etl_record_place_of(&plain);
    assert_int_equal(at.file_index, 2);
    assert_int_equal(etl_record_place_offset(&at), 0x30240);
    assert_int_equal(etl_record_place_text(&at, text, sizeof text), (int)strlen("offset 0x30240"));
    assert_string_equal(text, "offset 0x30240");
    etl_event_record packed = plain;
    packed.buffer_compressed = 1;
    packed.file_offset = 0x5907A;
    packed.record_offset = 0x4F90;
    at = etl_record_place_of(&packed);
    assert_int_equal(etl_record_place_offset(&at), 0x5907A);
    etl_record_place_text(&at, text, sizeof text);
    assert_string_equal(text, "offset 0x5907a (compressed buffer, record 0x4f90 bytes into its decompressed records)");
    etl_record_place_text(&at, text, 12);  /* cut to the room given, terminated */
    assert_string_equal(text, "offset 0x59");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_system_and_compact),     cmocka_unit_test(test_perfinfo_and_kernel_extensions),
        cmocka_unit_test(test_classic_and_instance),   cmocka_unit_test(test_event_header_and_items),
        cmocka_unit_test(test_wpp_message),            cmocka_unit_test(test_walk_boundaries),
        cmocka_unit_test(test_place_in_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
