/* The decoder's message text (src/decode/decoder.c: inserts counted from the field layout, arrays joined 8
 * bytes a step, the template compiled per description) against a plain rebuild on every corpus event that has
 * a message: each top-level property's values joined by ", " from the fields, substituted by the message
 * interpreter (etl_message_format), trailing CR/LF removed as the decoder does. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "decode/message.h"
#include "support/corpus.h"

typedef struct message_ctx {
    etl_textbuf joined, expected;
    size_t *offsets;
    const char **inserts;
    size_t capacity;
    uint64_t messages, with_arrays, mismatches;
} message_ctx;

static void on_event(const etl_decoded_event *ev, void *ctx_)
{
    message_ctx *c = ctx_;
    const etl_event_info *info = ev->info;
    if (!info || !info->message || ev->wpp || ev->status != ETL_DECODE_OK) return;
    size_t count = info->top_level_count < info->property_count ? info->top_level_count : info->property_count;
    if (count > c->capacity) {
        c->offsets = realloc(c->offsets, count * sizeof *c->offsets);
        c->inserts = realloc(c->inserts, count * sizeof *c->inserts);
        assert_non_null(c->offsets);
        assert_non_null(c->inserts);
        c->capacity = count;
    }
    /* fields of top-level property i: from its depth-0 field up to the next depth-0 field */
    etl_textbuf_reset(&c->joined);
    int arrays = 0;
    for (size_t i = 0; i < count; i++) {
        c->offsets[i] = c->joined.length;
        const etl_property_info *prop = &info->properties[i];
        int joined = 0;
        for (size_t f = 0, mine = 0; f < ev->field_count; f++) {
            const etl_field *field = &ev->fields[f];
            if (field->depth == 0) mine = field->property == prop;
            if (!mine || field->kind != ETL_FIELD_VALUE) continue;
            if (joined++) etl_textbuf_append(&c->joined, ", ", 2), arrays = 1;
            etl_textbuf_puts(&c->joined, field->value);
        }
        etl_textbuf_putc(&c->joined, '\0');
    }
    assert_false(c->joined.failed);
    for (size_t i = 0; i < count; i++) c->inserts[i] = c->joined.data + c->offsets[i];
    etl_textbuf_reset(&c->expected);
    etl_message_format(&c->expected, info->message, c->inserts, count);
    while (c->expected.length &&
           (c->expected.data[c->expected.length - 1] == '\n' || c->expected.data[c->expected.length - 1] == '\r'))
        c->expected.data[--c->expected.length] = '\0';
    c->messages++;
    c->with_arrays += arrays;
    if (!ev->message || strcmp(ev->message, etl_textbuf_at(&c->expected, 0)) != 0) {
        if (c->mismatches++ < 5)
            print_error("%s/%s: message '%.200s', rebuilt '%.200s'\n", ev->provider_name, ev->event_name,
                        ev->message ? ev->message : "(none)", etl_textbuf_at(&c->expected, 0));
    }
}

static void test_decoder_messages_equal_plain_rebuild(void **state)
{
    (void)state;
    static message_ctx c;
    assert_true(corpus_decode_all(on_event, &c) >= 20);
    print_message("%llu messages compared, %llu with array inserts\n", (unsigned long long)c.messages,
                  (unsigned long long)c.with_arrays);
    etl_textbuf_free(&c.joined);
    etl_textbuf_free(&c.expected);
    free(c.offsets);
    free(c.inserts);
    assert_true(c.messages > 50000);
    assert_true(c.with_arrays > 10000);
    assert_int_equal(c.mismatches, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder_messages_equal_plain_rebuild),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
