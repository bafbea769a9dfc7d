/* FormatMessage-style substitution of an event's message template (docs/schemas.md §1.7). */
#ifndef ETL_DECODE_MESSAGE_H
#define ETL_DECODE_MESSAGE_H

#include "util/textbuf.h"

/* Appends `tmpl` with %1..%99 replaced by inserts[n-1] (an optional !printf-spec! after the number is
 * skipped: the inserts are already rendered text). %n → "\n" (FormatMessage writes CR LF; we write the Unix
 * newline), %r → "\r", %t → tab, %0 ends the message, %% %. %! and "% " give the character itself, any
 * other %x gives x. Inserts beyond insert_count stay as written ("%7"). Trailing CR/LF/spaces that mc
 * appends to compiled messages are not stripped here: callers strip what they want. */
void etl_message_format(etl_textbuf *out, const char *tmpl, const char *const *inserts, size_t insert_count);
/* The same with each insert's length known (lengths[i] = strlen(inserts[i]); NULL: measured here). */
void etl_message_format_lengths(etl_textbuf *out, const char *tmpl, const char *const *inserts,
                                const size_t *lengths, size_t insert_count);

#endif
