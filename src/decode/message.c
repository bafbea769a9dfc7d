/* FormatMessage-style message substitution. */
#include "decode/message.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void etl_message_format(etl_textbuf *out, const char *tmpl, const char *const *inserts, size_t insert_count)
{
    etl_message_format_lengths(out, tmpl, inserts, NULL, insert_count);
}

void etl_message_format_lengths(etl_textbuf *out, const char *tmpl, const char *const *inserts,
                                const size_t *lengths, size_t insert_count)
{
    const char *p = tmpl;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            etl_textbuf_puts(out, p);
            return;
        }
        etl_textbuf_append(out, p, (size_t)(pct - p));
        p = pct + 1;
        char c = *p;
        if (c == '\0') { /* a lone trailing '%' is kept */
            etl_textbuf_putc(out, '%');
            return;
        }
        if (c >= '1' && c <= '9') {
            const char *start = pct;
            unsigned n = (unsigned)(c - '0');
            p++;
            if (*p >= '0' && *p <= '9') n = n * 10 + (unsigned)(*p++ - '0');
            if (*p == '!') { /* %1!s!: printf spec, ignored (values are text already) */
                const char *end = strchr(p + 1, '!');
                if (end) p = end + 1;
            }
            if (n <= insert_count && inserts[n - 1])
                etl_textbuf_append(out, inserts[n - 1], lengths ? lengths[n - 1] : strlen(inserts[n - 1]));
            else etl_textbuf_append(out, start, (size_t)(p - start));
            continue;
        }
        p++;
        switch (c) {
        case '0': return;
        case 'n': etl_textbuf_putc(out, '\n'); break;
        case 'r': etl_textbuf_putc(out, '\r'); break;
        case 't': etl_textbuf_putc(out, '\t'); break;
        default: etl_textbuf_putc(out, c); break; /* %% % . ! space, and any other character */
        }
    }
}

/* ---- compiled templates ---------------------------------------------------------------------------------- */

/* One step: `literal` bytes of the plan's text, then insert `insert` - 1 (0: none). */
struct etl_message_step {
    uint32_t literal;
    uint32_t insert;
};

static int add_step(etl_message_plan *plan, const etl_textbuf *text, size_t *literal_from, uint32_t insert,
                    size_t *cap)
{
    if (plan->step_count == *cap) {
        size_t n = *cap ? 2 * *cap : 8;
        etl_message_step *s = realloc(plan->steps, n * sizeof *s);
        if (!s) return -1;
        plan->steps = s;
        *cap = n;
    }
    plan->steps[plan->step_count++] = (etl_message_step){(uint32_t)(text->length - *literal_from), insert};
    *literal_from = text->length;
    return 0;
}

/* The same walk over the template as etl_message_format_lengths, with every insert present (the decoder's
 * are): literal text collected, inserts recorded by number. */
int etl_message_compile(etl_message_plan *plan, const char *tmpl, size_t insert_count)
{
    memset(plan, 0, sizeof *plan);
    etl_textbuf text = {0};
    size_t cap = 0, from = 0;
    const char *p = tmpl;
    int rc = 0;
    while (*p && rc == 0) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            etl_textbuf_puts(&text, p);
            break;
        }
        etl_textbuf_append(&text, p, (size_t)(pct - p));
        p = pct + 1;
        char c = *p;
        if (c == '\0') { /* a lone trailing '%' is kept */
            etl_textbuf_putc(&text, '%');
            break;
        }
        if (c >= '1' && c <= '9') {
            const char *start = pct;
            unsigned n = (unsigned)(c - '0');
            p++;
            if (*p >= '0' && *p <= '9') n = n * 10 + (unsigned)(*p++ - '0');
            if (*p == '!') {
                const char *end = strchr(p + 1, '!');
                if (end) p = end + 1;
            }
            if (n <= insert_count) rc = add_step(plan, &text, &from, n, &cap);
            else etl_textbuf_append(&text, start, (size_t)(p - start));
            continue;
        }
        p++;
        if (c == '0') break;
        etl_textbuf_putc(&text, c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c);
    }
    if (rc == 0 && text.length > from) rc = add_step(plan, &text, &from, 0, &cap);
    if (rc != 0 || text.failed || text.length > UINT32_MAX) {
        etl_textbuf_free(&text);
        etl_message_plan_free(plan);
        return -1;
    }
    plan->text = text.data; /* NULL when the template has no literal text */
    plan->insert_count = insert_count;
    return 0;
}

void etl_message_plan_free(etl_message_plan *plan)
{
    free(plan->text);
    free(plan->steps);
    memset(plan, 0, sizeof *plan);
}

/* Most pieces are a few bytes: two overlapping fixed-size copies instead of a memcpy call. */
static inline void copy_piece(char *d, const char *s, size_t n)
{
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        uint64_t a, b;
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, s, 4);
        memcpy(&b, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &b, 4);
    } else if (n) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    }
}

void etl_message_apply(etl_textbuf *out, const etl_message_plan *plan, const char *const *inserts,
                       const size_t *lengths)
{
    size_t total = 0;
    for (size_t i = 0; i < plan->step_count; i++)
        total += plan->steps[i].literal + (plan->steps[i].insert ? lengths[plan->steps[i].insert - 1] : 0);
    if (etl_textbuf_reserve(out, total) != 0) return;
    char *d = out->data + out->length;
    const char *literal = plan->text ? plan->text : ""; /* no literal text at all: no pointer arithmetic on NULL */
    for (size_t i = 0; i < plan->step_count; i++) {
        const etl_message_step *s = &plan->steps[i];
        copy_piece(d, literal, s->literal);
        d += s->literal;
        literal += s->literal;
        if (s->insert) {
            size_t n = lengths[s->insert - 1];
            copy_piece(d, inserts[s->insert - 1], n);
            d += n;
        }
    }
    out->length = (size_t)(d - out->data);
    out->data[out->length] = '\0';
}
