/* Growable UTF-8 text buffer shared by the decoder and the writers, reused between events (no malloc per event in steady state).
 * Allocation failure is sticky: appends become no-ops and `failed` stays set until reset. */
#ifndef ETL_UTIL_TEXTBUF_H
#define ETL_UTIL_TEXTBUF_H

#include <stddef.h>
#include <string.h>

typedef struct etl_textbuf {
    char *data;
    size_t length;   /* bytes used, excluding the NUL kept after them */
    size_t capacity;
    int failed;      /* an allocation failed since the last reset */
} etl_textbuf;

void etl_textbuf_reset(etl_textbuf *b);
void etl_textbuf_free(etl_textbuf *b);
/* Makes room for `extra` more bytes (+ NUL); returns 0 or -1 (and sets failed). */
int etl_textbuf_reserve(etl_textbuf *b, size_t extra);
void etl_textbuf_append_slow(etl_textbuf *b, const char *text, size_t n);
void etl_textbuf_puts(etl_textbuf *b, const char *text);

/* Inline fast path: most appends fit in the capacity already reserved. */
static inline void etl_textbuf_append(etl_textbuf *b, const char *text, size_t n)
{
    if (n == 0) return; /* text may be NULL then */
    if (b->data && n < b->capacity - b->length && !b->failed) {
        memcpy(b->data + b->length, text, n);
        b->length += n;
        b->data[b->length] = '\0';
    } else {
        etl_textbuf_append_slow(b, text, n);
    }
}

static inline void etl_textbuf_putc(etl_textbuf *b, char c) { etl_textbuf_append(b, &c, 1); }
/* Exchanges the two buffers' memory and contents (no copy). */
static inline void etl_textbuf_swap(etl_textbuf *a, etl_textbuf *b)
{
    etl_textbuf t = *a;
    *a = *b;
    *b = t;
}
void etl_textbuf_printf(etl_textbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* NUL-terminated text that starts at byte `offset` (valid until the next append). */
static inline const char *etl_textbuf_at(const etl_textbuf *b, size_t offset)
{
    return b->data ? b->data + offset : "";
}

#endif
