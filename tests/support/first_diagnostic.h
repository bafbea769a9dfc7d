/* Catches the first diagnostic a test is after (an etl_diagnostic_fn), and counts them. */
#ifndef TESTS_SUPPORT_FIRST_DIAGNOSTIC_H
#define TESTS_SUPPORT_FIRST_DIAGNOSTIC_H

#include <stdint.h>

#include "etl/etl.h"

typedef struct first_diagnostic {
    const char *containing;  /* only messages that contain this count; NULL: every one */
    int count;
    uint64_t offset;         /* the first one's */
    char message[600];
} first_diagnostic;

/* ctx: a first_diagnostic. */
void first_diagnostic_catch(const etl_diagnostic *d, void *ctx);

#endif
