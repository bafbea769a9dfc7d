/* -j: how many threads one conversion uses (issue 14). */
#ifndef ETLCONV_THREADS_H
#define ETLCONV_THREADS_H

#include "options.h"

/* -j N, or the number of online cores when -j was not given (at least 1). */
unsigned etlconv_threads(const etlconv_options *opt);

#endif
