/* Message template substitution (src/decode/message.c). Expected behaviour: the FormatMessage escape
 * sequences as documented by Microsoft (restated in docs/schemas.md §1.7). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The compiled form (etl_message_compile + etl_message_apply, what the decoder uses) against the interpreter
 * above for one template and `n` inserts. */
static etl_textbuf compiled_text;

static void check_compiled(const char *tmpl, const char *const *inserts, size_t n)
{
    size_t lengths[16];
    for (size_t i = 0; i < n; i++) lengths[i] = strlen(inserts[i]);
    etl_message_plan plan;
    assert_int_equal(etl_message_compile(&plan, tmpl, n), 0);
    etl_textbuf_reset(&compiled_text);
    etl_message_apply(&compiled_text, &plan, inserts, lengths);
    etl_message_plan_free(&plan);
    const char *want = fmt(tmpl, inserts, n);
    assert_false(compiled_text.failed);
    if (compiled_text.length != buf.length || memcmp(etl_textbuf_at(&compiled_text, 0), want, buf.length) != 0)
        fail_msg("template '%s' with %zu inserts: compiled '%s', interpreted '%s'", tmpl, n,
                 etl_textbuf_at(&compiled_text, 0), want);
}

static const char *const sample_inserts[16] = {"one", "", "three", "a longer insert of more than sixteen bytes",
                                               "%2", "6", "seven!", "8", "9", "ten", "eleven", "12",
                                               "0x1234ABCD", "-14", "fifteen", "16"};

static void test_compiled_equals_interpreted(void **state)
{
    (void)state;
    static const char *const fixed[] = {"Process %1 started by %2.", "%2%1", "%10/%11", "a=%1!s! b=%2!08x!.",
                                        "x %3 y", "x %3!d! y", "%1", "a%nb", "a%tb%rc", "100%% sure%. really%!",
                                        "a% b", "stop%0 here", "end%", "", "%1!s", "%12!u!%13%14!", "no inserts",
                                        "MethodID=%1;%r%nReJITID=%2;%r%nMethodExtent=%3%r%n"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        for (size_t n = 0; n <= 16; n++) check_compiled(fixed[i], sample_inserts, n);
    /* random templates from every kind of token, 20,000 of them */
    static const char *const tokens[] = {"%1", "%2", "%9", "%10", "%16", "%17", "%99", "%1!s!", "%2!x", "%3!",
                                         "%%", "%n", "%r", "%t", "%0", "% ", "%.", "%!", "%q", "abc", " ",
                                         "0123456789abcdefghij", "!", "x%", "\xC3\xA9"};
    uint64_t x = 0x9E3779B97F4A7C15ull;
    char tmpl[256];
    for (int round = 0; round < 20000; round++) {
        size_t len = 0;
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        int count = (int)(x % 12);
        for (int t = 0; t < count; t++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const char *tok = tokens[x % (sizeof tokens / sizeof tokens[0])];
            size_t n = strlen(tok);
            memcpy(tmpl + len, tok, n);
            len += n;
        }
        /* a trailing lone '%' only at the very end: cut a token in half sometimes */
        if (len && x % 7 == 0) len--;
        tmpl[len] = '\0';
        check_compiled(tmpl, sample_inserts, (size_t)(x >> 20) % 17);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_inserts), cmocka_unit_test(test_escapes),
                                       cmocka_unit_test(test_compiled_equals_interpreted)};
    int rc = cmocka_run_group_tests(tests, NULL, NULL);
    etl_textbuf_free(&buf);
    etl_textbuf_free(&compiled_text);
    return rc;
}
