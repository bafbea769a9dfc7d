/* FormatMessage-style message substitution. */
#include "decode/message.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The template grammar, once for both forms: literal text (escapes applied) goes to `text`; for %N,
 * on_insert(ctx, N) returns 1 when it took the insert, 0 when the insert is absent (then "%N" and its printf
 * spec stay as written), -1 to stop (out of memory). */
typedef int (*insert_fn)(void *ctx, unsigned n);

static void walk_template(etl_textbuf *text, const char *tmpl, insert_fn on_insert, void *ctx)
{
    const char *p = tmpl;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            etl_textbuf_puts(text, p);
            return;
        }
        etl_textbuf_append(text, p, (size_t)(pct - p));
        p = pct + 1;
        char c = *p;
        if (c == '\0') { /* a lone trailing '%' is kept */
            etl_textbuf_putc(text, '%');
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
            int took = on_insert(ctx, n);
            if (took < 0) return;
            if (!took) etl_textbuf_append(text, start, (size_t)(p - start));
            continue;
        }
        p++;
        switch (c) {
        case '0': return;
        case 'n': etl_textbuf_putc(text, '\n'); break;
        case 'r': etl_textbuf_putc(text, '\r'); break;
        case 't': etl_textbuf_putc(text, '\t'); break;
        default: etl_textbuf_putc(text, c); break; /* %% % . ! space, and any other character */
        }
    }
}

typedef struct direct_inserts {
    etl_textbuf *out;
    const char *const *inserts;
    const size_t *lengths;
    size_t count;
} direct_inserts;

static int put_insert(void *ctx, unsigned n)
{
    direct_inserts *d = ctx;
    if (n > d->count || !d->inserts[n - 1]) return 0;
    etl_textbuf_append(d->out, d->inserts[n - 1], d->lengths ? d->lengths[n - 1] : strlen(d->inserts[n - 1]));
    return 1;
}

void etl_message_format(etl_textbuf *out, const char *tmpl, const char *const *inserts, size_t insert_count)
{
    etl_message_format_lengths(out, tmpl, inserts, NULL, insert_count);
}

void etl_message_format_lengths(etl_textbuf *out, const char *tmpl, const char *const *inserts,
                                const size_t *lengths, size_t insert_count)
{
    direct_inserts d = {out, inserts, lengths, insert_count};
    walk_template(out, tmpl, put_insert, &d);
}

/* ---- compiled templates ---------------------------------------------------------------------------------- */

/* One step: `literal` bytes of the plan's text, then insert `insert` - 1 (0: none). */
struct etl_message_step {
    uint32_t literal;
    uint32_t insert;
};

typedef struct compiling {
    etl_message_plan *plan;
    const etl_textbuf *text;
    size_t capacity, literal_from;
    int failed;
} compiling;

/* An insert step: the literal text since the last step, then insert n. */
static int add_step(compiling *c, uint32_t insert)
{
    etl_message_plan *plan = c->plan;
    if (plan->step_count == c->capacity) {
        size_t n = c->capacity ? 2 * c->capacity : 8;
        etl_message_step *s = realloc(plan->steps, n * sizeof *s);
        if (!s) return c->failed = -1;
        plan->steps = s;
        c->capacity = n;
    }
    plan->steps[plan->step_count++] = (etl_message_step){(uint32_t)(c->text->length - c->literal_from), insert};
    c->literal_from = c->text->length;
    return 0;
}

/* Every insert of the decoder is present: the number alone decides. */
static int record_insert(void *ctx, unsigned n)
{
    compiling *c = ctx;
    if (n > c->plan->insert_count) return 0;
    return add_step(c, n) == 0 ? 1 : -1;
}

int etl_message_compile(etl_message_plan *plan, const char *tmpl, size_t insert_count)
{
    memset(plan, 0, sizeof *plan);
    plan->insert_count = insert_count;
    etl_textbuf text = {0};
    compiling c = {plan, &text, 0, 0, 0};
    walk_template(&text, tmpl, record_insert, &c);
    if (!c.failed && text.length > c.literal_from) add_step(&c, 0);
    if (c.failed || text.failed || text.length > UINT32_MAX) {
        etl_textbuf_free(&text);
        etl_message_plan_free(plan);
        return -1;
    }
    plan->text = text.data; /* NULL when the template has no literal text */
    return 0;
}

void etl_message_plan_free(etl_message_plan *plan)
{
    free(plan->text);
    free(plan->steps);
    memset(plan, 0, sizeof *plan);
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
        if (s->literal) memcpy(d, literal, s->literal);
        d += s->literal;
        literal += s->literal;
        if (s->insert) {
            size_t n = lengths[s->insert - 1];
            if (n) memcpy(d, inserts[s->insert - 1], n);
            d += n;
        }
    }
    out->length = (size_t)(d - out->data);
    out->data[out->length] = '\0';
}
