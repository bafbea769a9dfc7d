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
#if defined(__SSE2__)
/* The same test, 16 aligned bytes at a time (signed: bytes from 0x80 are below 0x20); see fmt_scan16. */
__attribute__((no_sanitize_address)) static unsigned special16(const void *block)
{
    __m128i x = _mm_load_si128((const __m128i *)block);
    __m128i m = _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)), _mm_cmpeq_epi8(x, _mm_set1_epi8(',')));
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(m, _mm_cmpeq_epi8(x, _mm_set1_epi8('"'))));
}

/* The length of value, and whether special() flags none of its bytes. */
__attribute__((no_sanitize_address)) static inline size_t scan(const char *value, int *clean)
{
    return fmt_scan16(value, clean, special16);
}
#else
static uint64_t special(uint64_t x)
{
    return fmt_swar_nonprint(x) | fmt_swar_byte(x, ',') | fmt_swar_byte(x, '"');
}

static inline size_t scan(const char *value, int *clean)
{
    size_t n = strlen(value);
    *clean = fmt_swar_clean(value, n, special);
    return n;
}
#endif

void fmt_csv_cell(fmt_line_writer *st, const char *value, int width)
{
    if (!value) value = "";
    int clean;
    size_t n = scan(value, &clean);
    /* plain ASCII without controls, commas or quotes is valid UTF-8, is never quoted unless it starts or ends
     * with a space (RFC 4180 mode), and has no CR/LF to replace (compat mode): copied as is */
    if (!clean || (!st->options.csv_compat && n && (value[0] == ' ' || value[n - 1] == ' '))) {
        fmt_csv_cell_general(st, value, width);
        return;
    }
    size_t pad = st->options.csv_compat && width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    char *p = fmt_put_begin(&st->line, n + pad + 2 + 16); /* + 16: fmt_w_short writes a whole block */
    if (!p) return;
    if (st->cells++ > 0) {
        *p++ = ',';
        if (st->options.csv_compat) *p++ = ' ';
    }
    if (pad) memset(p, ' ', pad);
    p = fmt_w_short(p + pad, value, n);
    fmt_put_end(&st->line, p);
}
