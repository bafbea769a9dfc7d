/* TRACE_LOGFILE_HEADER (the payload of the first record of an ETL file). */
#ifndef ETL_READER_LOGFILE_HEADER_H
#define ETL_READER_LOGFILE_HEADER_H

#include "etl/etl.h"

/* 1 when the record is an EventTrace Header record (kernel group 0, type 0). */
int etl_is_logfile_header_record(const etl_event_record *rec);
/* Parses the record's payload; returns ETL_OK or ETL_ERR_FORMAT with *why set. */
int etl_logfile_header_parse(const etl_event_record *rec, etl_logfile_header *out, const char **why);

#endif
