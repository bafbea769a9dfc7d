/* The built-in kernel MOF table, generated at build time from src/schema/kernel_mof.tsv by
 * src/schema/kernel_mof_gen.awk (see that script for the row format). Events with the same field list share
 * one slice of etl_kernel_mof_properties. */
#ifndef ETL_SCHEMA_KERNEL_MOF_TABLE_H
#define ETL_SCHEMA_KERNEL_MOF_TABLE_H

#include <stddef.h>

#include "etl/etl_schema.h"

extern const etl_property_info etl_kernel_mof_properties[];
extern const size_t etl_kernel_mof_property_count;
/* One entry per (class GUID, version, event type); key fields: event_guid, descriptor.version,
 * descriptor.opcode. */
extern const etl_event_info etl_kernel_mof_events[];
extern const size_t etl_kernel_mof_event_count;

#endif
