/* Message template substitution (src/decode/message.c). Expected behaviour: the FormatMessage escape
 * sequences as documented by Microsoft (restated in docs/schemas.md §1.7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "decode/message.h"

static etl_textbuf buf;

static const char *fmt(const char *tmpl, const char *const *inserts, size_t n)
{
    etl_textbuf_reset(&buf);
    etl_message_format(&buf, tmpl, inserts, n);
    assert_false(buf.failed);
    return etl_textbuf_at(&buf, 0);
}

static void test_inserts(void **state)
{
    (void)state;
    const char *ins[] = {"one", "two", "three", "4", "5", "6", "7", "8", "9", "ten", "eleven"};
    assert_string_equal(fmt("Process %1 started by %2.", ins, 2), "Process one started by two.");
    assert_string_equal(fmt("%2%1", ins, 2), "twoone");
    /* two-digit inserts */
    assert_string_equal(fmt("%10/%11", ins, 11), "ten/eleven");
    /* %1!s! and %2!08x!: the printf spec is skipped, the inserts are text already */
    assert_string_equal(fmt("a=%1!s! b=%2!08x!.", ins, 2), "a=one b=two.");
    /* an insert that does not exist stays as written */
    assert_string_equal(fmt("x %3 y", ins, 2), "x %3 y");
    assert_string_equal(fmt("x %3!d! y", ins, 2), "x %3!d! y");
    /* the text of an insert is not scanned again */
    const char *pct[] = {"%2", "no"};
    assert_string_equal(fmt("%1", pct, 2), "%2");
}

static void test_escapes(void **state)
{
    (void)state;
    assert_string_equal(fmt("a%nb", NULL, 0), "a\nb");
    assert_string_equal(fmt("a%tb%rc", NULL, 0), "a\tb\rc");
    assert_string_equal(fmt("100%% sure%. really%!", NULL, 0), "100% sure. really!");
    assert_string_equal(fmt("a% b", NULL, 0), "a b");
    /* %0 ends the message */
    assert_string_equal(fmt("stop%0 here", NULL, 0), "stop");
    assert_string_equal(fmt("end%", NULL, 0), "end%");
    assert_string_equal(fmt("", NULL, 0), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inserts), cmocka_unit_test(test_escapes)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    etl_textbuf_free(&buf);
    return rc;
}
