/* TRACE_LOGFILE_HEADER in its 32- and 64-bit layouts (etl-format.md §1.7.1). The layout follows the pointer
 * size of the record that carries it. */
#include "reader/logfile_header.h"

#include <string.h>

#include "util/le.h"
#include "util/utf.h"

enum {
    LFH_BUFFER_SIZE = 0x00, LFH_VERSION = 0x04, LFH_PROVIDER_VERSION = 0x08, LFH_NUMBER_OF_PROCESSORS = 0x0C,
    LFH_END_TIME = 0x10, LFH_TIMER_RESOLUTION = 0x18, LFH_MAXIMUM_FILE_SIZE = 0x1C, LFH_LOG_FILE_MODE = 0x20,
    LFH_BUFFERS_WRITTEN = 0x24, LFH_START_BUFFERS = 0x28, LFH_POINTER_SIZE = 0x2C, LFH_EVENTS_LOST = 0x30,
    LFH_CPU_SPEED = 0x34, LFH_LOGGER_NAME_PTR = 0x38,
    /* offsets that depend on the pointer size: (32-bit, 64-bit) */
    LFH32_TIME_ZONE = 0x40, LFH64_TIME_ZONE = 0x48,
    LFH32_BOOT_TIME = 0xF0, LFH64_BOOT_TIME = 0xF8,
    LFH32_SIZE = 0x110, LFH64_SIZE = 0x118,
    TZ_SIZE = 172, TZ_STANDARD_NAME = 0x04, TZ_STANDARD_DATE = 0x44, TZ_STANDARD_BIAS = 0x54,
    TZ_DAYLIGHT_NAME = 0x58, TZ_DAYLIGHT_DATE = 0x98, TZ_DAYLIGHT_BIAS = 0xA8, TZ_NAME_UNITS = 32
};

int etl_is_logfile_header_record(const etl_event_record *rec)
{
    return (rec->kind == ETL_KIND_SYSTEM32 || rec->kind == ETL_KIND_SYSTEM64) && rec->kernel_group == 0 &&
           rec->header.descriptor.opcode == 0;
}

static void read_time_zone(const uint8_t *p, etl_time_zone *tz)
{
    tz->bias = (int32_t)etl_le32(p);
    etl_utf16le_to_utf8(p + TZ_STANDARD_NAME, TZ_NAME_UNITS, tz->standard_name, sizeof tz->standard_name);
    for (int i = 0; i < 8; i++) tz->standard_date[i] = etl_le16(p + TZ_STANDARD_DATE + 2 * i);
    tz->standard_bias = (int32_t)etl_le32(p + TZ_STANDARD_BIAS);
    etl_utf16le_to_utf8(p + TZ_DAYLIGHT_NAME, TZ_NAME_UNITS, tz->daylight_name, sizeof tz->daylight_name);
    for (int i = 0; i < 8; i++) tz->daylight_date[i] = etl_le16(p + TZ_DAYLIGHT_DATE + 2 * i);
    tz->daylight_bias = (int32_t)etl_le32(p + TZ_DAYLIGHT_BIAS);
}

int etl_logfile_header_parse(const etl_event_record *rec, etl_logfile_header *h, const char **why)
{
    const uint8_t *p = rec->user_data;
    size_t len = rec->user_data_length;
    int wide = rec->pointer_size == 8;
    size_t fixed = wide ? LFH64_SIZE : LFH32_SIZE;
    memset(h, 0, sizeof *h);
    if (len < fixed) {
        *why = "log-file header record is shorter than TRACE_LOGFILE_HEADER";
        return ETL_ERR_FORMAT;
    }
    h->buffer_size = etl_le32(p + LFH_BUFFER_SIZE);
    h->version = etl_le32(p + LFH_VERSION);
    h->provider_version = etl_le32(p + LFH_PROVIDER_VERSION);
    h->number_of_processors = etl_le32(p + LFH_NUMBER_OF_PROCESSORS);
    h->end_time = etl_les64(p + LFH_END_TIME);
    h->timer_resolution = etl_le32(p + LFH_TIMER_RESOLUTION);
    h->maximum_file_size = etl_le32(p + LFH_MAXIMUM_FILE_SIZE);
    h->log_file_mode = etl_le32(p + LFH_LOG_FILE_MODE);
    h->buffers_written = etl_le32(p + LFH_BUFFERS_WRITTEN);
    h->start_buffers = etl_le32(p + LFH_START_BUFFERS);
    h->pointer_size = etl_le32(p + LFH_POINTER_SIZE);
    h->events_lost = etl_le32(p + LFH_EVENTS_LOST);
    h->cpu_speed_mhz = etl_le32(p + LFH_CPU_SPEED);
    read_time_zone(p + (wide ? LFH64_TIME_ZONE : LFH32_TIME_ZONE), &h->time_zone);
    const uint8_t *t = p + (wide ? LFH64_BOOT_TIME : LFH32_BOOT_TIME);
    h->boot_time = etl_les64(t);
    h->perf_freq = etl_les64(t + 8);
    h->start_time = etl_les64(t + 16);
    h->reserved_flags = etl_le32(t + 24);
    h->buffers_lost = etl_le32(t + 28);
    size_t units = (len - fixed) / 2;
    size_t used = etl_utf16le_to_utf8(p + fixed, units, h->session_name, sizeof h->session_name);
    if (used < units)
        etl_utf16le_to_utf8(p + fixed + 2 * used, units - used, h->log_file_name, sizeof h->log_file_name);
    h->header_raw_timestamp = rec->raw_timestamp;
    h->thread_id = rec->header.thread_id;
    h->process_id = rec->header.process_id;
    return ETL_OK;
}

int32_t etl_logfile_utc_offset_minutes(const etl_logfile_header *h)
{
    return h->time_zone.bias;
}
