/* -j default (see threads.h). */
#include "threads.h"

#include <unistd.h>

unsigned etlconv_threads(const etlconv_options *opt)
{
    if (opt->threads) return opt->threads;
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 256 ? 256 : (unsigned)n;
}
