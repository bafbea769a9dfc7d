/* The report's bounded tables (src/report/report_table.c) and the report built from hand-made kernel
 * DiskIo/FileIo events whose counts are known: a name that arrives after the I/O (as in a rundown) still
 * names it, and a full table counts what it drops instead of growing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/mem_sink.h"
#include "report/report.h"
#include "report/report_table.h"

static void test_table_bounded(void **state)
{
    (void)state;
    rt_table t;
    rt_init(&t, 100);
    int nomem = 0;
    for (uint64_t k = 0; k < 1000; k++) {
        rt_row *r = rt_get(&t, k, NULL, &nomem);
        if (r) r->value[0] += k;
    }
    assert_int_equal(nomem, 0);
    assert_int_equal(t.count, 100);
    assert_int_equal(t.dropped, 900);
    for (uint64_t k = 0; k < 100; k++) assert_int_equal(rt_find(&t, k, NULL)->value[0], k);
    assert_null(rt_find(&t, 100, NULL));
    /* an existing row is still found and counted when the table is full */
    assert_non_null(rt_get(&t, 7, NULL, &nomem));
    assert_int_equal(t.dropped, 900);
    rt_free(&t);
}

static void test_table_text_keys(void **state)
{
    (void)state;
    rt_table t;
    rt_init(&t, 10);
    int nomem = 0;
    rt_row *a = rt_get(&t, 1, "a", &nomem);
    rt_row *b = rt_get(&t, 1, "b", &nomem);  /* same hash, other text: another row */
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(t.count, 2);
    assert_ptr_equal(rt_find(&t, 1, "b"), &t.rows[1]);
    assert_int_equal(rt_set_text(&t.rows[0], 1, "first"), 0);
    assert_int_equal(rt_set_text(&t.rows[0], 1, "second"), 0);  /* the first text stays */
    assert_string_equal(t.rows[0].text[1], "first");
    rt_free(&t);
}

/* ---- a report from hand-made kernel events ---------------------------------------------------------- */

static const etl_guid DISKIO = {0x3d6fa8d4, 0xfe05, 0x11d0, {0x9d, 0xda, 0x00, 0xc0, 0x4f, 0xd7, 0xba, 0x7c}};
static const etl_guid FILEIO = {0x90cbdc39, 0x4a3e, 0x11d1, {0x84, 0xf4, 0x00, 0x00, 0xf8, 0x04, 0x64, 0xe3}};

static void add(etl_report *r, const etl_guid *cls, uint8_t opcode, uint32_t pid, const char *const *kv, size_t n)
{
    etl_event_record rec;
    memset(&rec, 0, sizeof rec);
    rec.header.provider_id = *cls;
    rec.header.descriptor.opcode = opcode;
    rec.header.process_id = pid;
    rec.header.thread_id = 10;
    rec.header.timestamp = 132000000000000000LL + opcode;
    etl_field fields[8];
    memset(fields, 0, sizeof fields);
    for (size_t i = 0; i < n; i++) {
        fields[i].kind = ETL_FIELD_VALUE;
        fields[i].name = kv[2 * i];
        fields[i].value = kv[2 * i + 1];
        fields[i].array_index = -1;
    }
    etl_decoded_event ev;
    memset(&ev, 0, sizeof ev);
    ev.record = &rec;
    ev.status = ETL_DECODE_OK;
    ev.provider_name = "MSNT_SystemTrace";
    ev.event_name = opcode == 10 ? "DiskIo/Read" : "FileIo/Name";
    ev.process_id = pid;
    ev.process_name = pid == 42 ? "app" : NULL;
    ev.field_count = n;
    ev.fields = fields;
    assert_int_equal(etl_report_add(r, &ev), 0);
}

static void test_report_names_io_after_the_fact(void **state)
{
    (void)state;
    etl_report *r = etl_report_new(5);
    static const char *const read1[] = {"DiskNumber", "0", "TransferSize", "4096", "FileObject", "0xFFFF0001"};
    static const char *const read2[] = {"DiskNumber", "1", "TransferSize", "512", "FileObject", "0xFFFF0002"};
    static const char *const name1[] = {"FileObject", "0xFFFF0001", "FileName", "\\Device\\A<&>.dll"};
    add(r, &DISKIO, 10, 42, read1, 3);
    add(r, &DISKIO, 10, 42, read1, 3);
    add(r, &DISKIO, 10, 7, read2, 3);  /* never named */
    add(r, &FILEIO, 36, 4, name1, 2);  /* FileRundown at the end of the trace */
    mem_sink ms;
    memset(&ms, 0, sizeof ms);
    etl_sink sink = {mem_sink_write, &ms};
    etl_run_totals totals;
    memset(&totals, 0, sizeof totals);
    assert_int_equal(etl_report_write(r, &totals, 0, &sink), 0);
    const char *xml = ms.data;
    assert_non_null(xml);
    assert_non_null(strstr(xml, "<data name=\"Disk\">0</data><data name=\"Reads\">2</data><data name=\"ReadBytes\">8192</data>"));
    assert_non_null(strstr(xml, "<data name=\"Disk\">1</data><data name=\"Reads\">1</data><data name=\"ReadBytes\">512</data>"));
    assert_non_null(strstr(xml, "<data name=\"File\">\\Device\\A&lt;&amp;&gt;.dll</data><data name=\"Reads\">0</data>"));
    assert_non_null(strstr(xml, "<data name=\"DiskReads\">2</data><data name=\"DiskReadBytes\">8192</data>"));
    assert_non_null(strstr(xml, "<data name=\"IoWithoutFileName\">1</data>"));
    assert_non_null(strstr(xml, "<data name=\"PID\">42</data><data name=\"Image\">app</data><data name=\"Events\">2</data>"
                                "<data name=\"DiskReads\">2</data><data name=\"DiskReadBytes\">8192</data>"));
    assert_non_null(strstr(xml, "<data name=\"Events\">4</data>"));
    free(ms.data);
    etl_report_free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_bounded),
        cmocka_unit_test(test_table_text_keys),
        cmocka_unit_test(test_report_names_io_after_the_fact),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
