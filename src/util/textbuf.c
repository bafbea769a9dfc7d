/* Growable UTF-8 text buffer. */
#include "util/textbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void etl_textbuf_reset(etl_textbuf *b)
{
    b->length = 0;
    b->failed = 0;
    if (b->data) b->data[0] = '\0';
}

void etl_textbuf_free(etl_textbuf *b)
{
    free(b->data);
    b->data = NULL;
    b->length = b->capacity = 0;
    b->failed = 0;
}

int etl_textbuf_reserve(etl_textbuf *b, size_t extra)
{
    if (b->failed) return -1;
    if (extra >= SIZE_MAX / 2 - b->length) {
        b->failed = 1;
        return -1;
    }
    size_t need = b->length + extra + 1;
    if (need <= b->capacity) return 0;
    size_t cap = b->capacity ? b->capacity : 256;
    while (cap < need) cap *= 2;
    char *p = realloc(b->data, cap);
    if (!p) {
        b->failed = 1;
        return -1;
    }
    b->data = p;
    b->capacity = cap;
    return 0;
}

void etl_textbuf_append_slow(etl_textbuf *b, const char *text, size_t n)
{
    if (etl_textbuf_reserve(b, n) != 0) return;
    if (n) memcpy(b->data + b->length, text, n);
    b->length += n;
    b->data[b->length] = '\0';
}

void etl_textbuf_puts(etl_textbuf *b, const char *text) { etl_textbuf_append(b, text, strlen(text)); }


void etl_textbuf_printf(etl_textbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if ((size_t)n < sizeof small) {
        etl_textbuf_append(b, small, (size_t)n);
        return;
    }
    if (etl_textbuf_reserve(b, (size_t)n) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->length, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->length += (size_t)n;
}
