/* Schema amplification (issue 11): a manifest under the 64 MiB size bound can hold 16.7 M empty elements and
 * build a 1-2 GB DOM. Built here from a real manifest (testdata/schemas ClrEtwAll.man, 5,590 tags) with empty
 * elements added: up to ETL_MANIFEST_MAX_ELEMENTS it still loads; past it the parse stops and the manifest is
 * refused with a message. Peak RSS of the refused load is measured with getrusage in a child process. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "schema/manifest_model.h"
#include "support/corpus.h"
#include "support/damage.h"

const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "quarantine_size_mb=4"; }

typedef struct padded {
    char *xml;
    size_t length;
    int rc;
    char message[600];
} padded;

/* ClrEtwAll.man with `extra` empty <x/> elements inside its <instrumentation> element. */
static padded pad_manifest(size_t extra)
{
    size_t size;
    uint8_t *man = corpus_load("testdata/schemas/real-man/perfview/ClrEtwAll.man", &size);
    assert_non_null(man);
    const char *at = strstr((const char *)man, "</instrumentation>");
    assert_non_null(at);
    size_t head = (size_t)(at - (const char *)man);
    padded p = {malloc(size + 4 * extra + 1), size + 4 * extra, 0, ""};
    assert_non_null(p.xml);
    memcpy(p.xml, man, head);
    for (size_t i = 0; i < extra; i++) memcpy(p.xml + head + 4 * i, "<x/>", 4);
    memcpy(p.xml + head + 4 * extra, man + head, size - head);
    p.xml[p.length] = '\0';
    free(man);
    return p;
}

static int load(void *ctx)
{
    padded *p = ctx;
    etl_schema_registry *r = etl_schema_registry_new();
    etl_error err;
    memset(&err, 0, sizeof err);
    p->rc = etl_schema_load_manifest_memory(r, p->xml, p->length, "padded ClrEtwAll.man", ETL_SOURCE_USER_MANIFEST,
                                            &err);
    snprintf(p->message, sizeof p->message, "%s", err.message);
    etl_schema_registry_free(r);
    return p->rc == ETL_OK ? 0 : 1;
}

static int do_nothing(void *ctx)
{
    (void)ctx;
    return 0;
}

static void test_element_bound(void **state)
{
    (void)state;
    /* at the bound minus the manifest's own elements: loads */
    padded ok = pad_manifest(ETL_MANIFEST_MAX_ELEMENTS - 10000);
    assert_int_equal(load(&ok), 0);
    free(ok.xml);
    /* 16 M empty elements (64 MiB less the manifest): refused, naming the bound; memory stays near the bound's */
    padded bomb = pad_manifest((ETL_MANIFEST_MAX_BYTES - 600000) / 4);
    int status;
    long base = damage_child_peak_rss_kib(do_nothing, NULL, &status);
    long peak = damage_child_peak_rss_kib(load, &bomb, &status);
    print_message("%zu-byte manifest with %zu empty elements: exit %d, peak RSS growth %ld KiB\n", bomb.length,
                  (ETL_MANIFEST_MAX_BYTES - 600000) / 4, status, peak - base);
    assert_int_equal(status, 1);
    assert_true(peak - base < 600 * 1024);  /* a DOM of at most 1 M elements (~150 MB, more under ASan); 1-2 GB before */
    assert_int_equal(load(&bomb), 1);
    assert_non_null(strstr(bomb.message, "more than 1,000,000 XML elements"));
    free(bomb.xml);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_element_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
