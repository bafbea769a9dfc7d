/* -export FILE: one instrumentation manifest describing every event the inputs were decoded with, whatever
 * the source (TraceLogging, EventSource, embedded metadata, user or bundled manifests), that -import (here
 * or on Windows) reads back. Kernel MOF classes (and other classic event-class layouts) have no manifest
 * form and are left out: they are built into etlconv anyway; classic layouts from the trace's own metadata
 * (KernelTraceControl) are left out too and counted. What a manifest cannot carry for TraceLogging events:
 * several shapes under one (provider, id, version) — the first is kept — and a non-zero opcode (a manifest
 * event is then named "Task/Opcode", a TraceLogging event by its name alone). */
#ifndef ETLCONV_EXPORT_H
#define ETLCONV_EXPORT_H

#include "etl/etl_schema.h"


/* Writes the collected descriptions. Returns 0, or -1 after printing a one-line error. Written
 * atomically like every output. */
int etlconv_export_schemas(const etl_schema_registry *exported, const char *path, int overwrite);

#endif
