/* CSV cells (see csv_cell.h). */
#include "csv_cell.h"

#include <string.h>

#include <csv.h>

#include "fast_text.h"

static int needs_quotes(const char *s, size_t n)
{
    if (n == 0) return 0;
    if (s[0] == ' ' || s[0] == '\t' || s[n - 1] == ' ' || s[n - 1] == '\t') return 1;
    return strpbrk(s, ",\"\r\n") != NULL;
}

static void separator(fmt_line_writer *st)
{
    if (st->cells++ > 0) {
        if (st->options.csv_compat)
            FMT_PUT_LIT(&st->line, ", ");
        else
            etl_textbuf_putc(&st->line, ',');
    }
}

void fmt_csv_cell_general(fmt_line_writer *st, const char *value, int width)
{
    value = fmt_valid_utf8(value ? value : "", &st->scratch);  /* the file stays valid UTF-8 */
    size_t n = strlen(value);
    separator(st);
    if (st->options.csv_compat) {
        for (int pad = width - (int)n; pad > 0; pad--) etl_textbuf_putc(&st->line, ' ');
        size_t start = st->line.length;
        etl_textbuf_append(&st->line, value, n);
        for (size_t i = start; i < st->line.length && !st->line.failed; i++)
            if (st->line.data[i] == '\r' || st->line.data[i] == '\n') st->line.data[i] = ' ';
        return;
    }
    if (!needs_quotes(value, n)) {
        etl_textbuf_append(&st->line, value, n);
        return;
    }
    char *dst = fmt_buf_grow(&st->line, 2 * n + 2);
    if (dst) st->line.length += csv_write(dst, 2 * n + 2, value, n);
}

/* Non-ASCII (may need U+FFFD), controls (CR/LF among them), comma and quote: the general path decides. */
static uint64_t special(uint64_t x)
{
    return fmt_swar_nonprint(x) | fmt_swar_byte(x, ',') | fmt_swar_byte(x, '"');
}

void fmt_csv_cell(fmt_line_writer *st, const char *value, int width)
{
    if (!value) value = "";
    size_t n = strlen(value);
    /* plain ASCII without controls, commas or quotes is valid UTF-8, is never quoted unless it starts or ends
     * with a space (RFC 4180 mode), and has no CR/LF to replace (compat mode): copied as is */
    if (!fmt_swar_clean(value, n, special) ||
        (!st->options.csv_compat && n && (value[0] == ' ' || value[n - 1] == ' '))) {
        fmt_csv_cell_general(st, value, width);
        return;
    }
    size_t pad = st->options.csv_compat && width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    char *p = fmt_put_begin(&st->line, n + pad + 2);
    if (!p) return;
    if (st->cells++ > 0) {
        *p++ = ',';
        if (st->options.csv_compat) *p++ = ' ';
    }
    memset(p, ' ', pad);
    p = fmt_w_mem(p + pad, value, n);
    fmt_put_end(&st->line, p);
}
