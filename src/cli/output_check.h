/* Before converting: every output file can be written, none names an input or an -import manifest (even
 * with -y), none exists without -y, no two outputs share a name. A run that would fail at the end fails at
 * the start instead (exit 2, nothing written). */
#ifndef ETLCONV_OUTPUT_CHECK_H
#define ETLCONV_OUTPUT_CHECK_H

#include "cli/options.h"

/* 0, or -1 after a one-line error. */
int etlconv_check_outputs(const etlconv_options *opt);

#endif
