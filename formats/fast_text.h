/* Hot-path text primitives for the writers (issue 14): appends with known lengths (no strlen per fragment),
 * numbers and GUIDs written straight into the buffer without printf, and output flushed in large blocks.
 * Every writer and the ones to come (EVTX, pcapng) should build their text with these. */
#ifndef ETL_FORMATS_FAST_TEXT_H
#define ETL_FORMATS_FAST_TEXT_H

#include <stdint.h>
#include <string.h>

#include "format_util.h"

/* A string literal, its length known at compile time. */
#define FMT_PUT_LIT(buf, literal) etl_textbuf_append((buf), "" literal, sizeof(literal) - 1)

/* Writers hand their text to the sink in blocks of about this size (not per event): fewer write calls. */
#define FMT_FLUSH_BLOCK (256u * 1024u)

static inline void fmt_put_str(fmt_buf *b, const char *text)
{
    if (text) etl_textbuf_append(b, text, strlen(text));
}

/* Decimal digits of value, written directly at the end of b. */
static inline void fmt_put_u64(fmt_buf *b, uint64_t value)
{
    if (value < 10) {
        char c = (char)('0' + value);
        etl_textbuf_append(b, &c, 1);
        return;
    }
    char tmp[FMT_INT_CAP];
    char *p = tmp + sizeof tmp;
    do {
        *--p = (char)('0' + value % 10);
        value /= 10;
    } while (value);
    etl_textbuf_append(b, p, (size_t)(tmp + sizeof tmp - p));
}

/* "{xxxxxxxx-...}" (38 bytes, lower case) appended; the all-zero GUID (most activity ids) is one copy. */
void fmt_put_guid(fmt_buf *b, const etl_guid *g);

/* After an event: flushes b to the sink when it holds at least FMT_FLUSH_BLOCK bytes, or at once with
 * options->flush_every_event; 0 or -1 as fmt_buf_flush. */
static inline int fmt_flush_event(fmt_buf *b, const etl_sink *sink, const etl_writer_options *options)
{
    if (b->length < FMT_FLUSH_BLOCK && !b->failed && !options->flush_every_event) return 0;
    return fmt_buf_flush(b, sink);
}

#endif
