/* The first diagnostic a test is after (see first_diagnostic.h). */
#include "first_diagnostic.h"

#include <stdio.h>
#include <string.h>

void first_diagnostic_catch(const etl_diagnostic *d, void *ctx)
{
    first_diagnostic *f = ctx;
    const char *message = d->message ? d->message : "";
    if (f->containing && !strstr(message, f->containing)) return;
    if (!f->count++) {
        f->offset = d->offset;
        snprintf(f->message, sizeof f->message, "%s", message);
    }
}
