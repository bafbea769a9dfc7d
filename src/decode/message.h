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

/* A template compiled once per description: its literal text with the % escapes applied, and where each
 * insert goes. For inserts that are all present (never NULL) and measured, etl_message_apply appends exactly
 * what etl_message_format_lengths appends, in one reservation and without reading the template again. */
typedef struct etl_message_step etl_message_step;
typedef struct etl_message_plan {
    char *text;
    etl_message_step *steps;
    size_t step_count;
    size_t insert_count;
} etl_message_plan;

/* 0, or -1 when out of memory (the plan is then empty). */
int etl_message_compile(etl_message_plan *plan, const char *tmpl, size_t insert_count);
void etl_message_plan_free(etl_message_plan *plan);
/* inserts[i] and lengths[i] for i < the plan's insert_count. */
void etl_message_apply(etl_textbuf *out, const etl_message_plan *plan, const char *const *inserts,
                       const size_t *lengths);

#endif
