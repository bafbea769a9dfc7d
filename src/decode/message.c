/* FormatMessage-style message substitution. */
#include "decode/message.h"

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
