/* Event names: PerfView/TraceEvent's "<provider>/<event>" for kernel and KernelTraceControl events and ours
 * ("<provider>/<event name>" as the decoder names them). Shared by the PerfView baseline comparison and the
 * diaghub merged-order test. */
#ifndef ETL_TESTS_PERFVIEW_NAMES_H
#define ETL_TESTS_PERFVIEW_NAMES_H

#include <stddef.h>

/* Our name for PerfView's `provider`/`event` (e.g. "Windows Kernel", "Process/Stop" →
 * "MSNT_SystemTrace/Process/End"); names without a rename are returned as "<provider>/<event>". */
void perfview_our_name(const char *provider, const char *event, char *out, size_t cap);

/* The reverse: PerfView's "<provider>/<event>" for our full name ("MSNT_SystemTrace/Image/DCEnd" →
 * "Windows Kernel/Image/DCStop"). Returns 1 when a rename applied, 0 when `ours` was copied unchanged. */
int perfview_name_of(const char *ours, char *out, size_t cap);

#endif
