/* libetl — read Windows ETW trace files (.etl) without any Windows API.
 *
 * The contract mirrors OpenTrace/ProcessTrace: open a trace over one or more log files, process it with a
 * per-event callback, close it. Every record, whatever its on-disk header kind, is delivered as an
 * etl_event_record shaped like EVENT_RECORD, merged across processors and files in timestamp order.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_H
#define ETL_ETL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ETL_VERSION_STRING "0.1.0"

/* ---- status codes ------------------------------------------------------------------------------------ */

typedef enum etl_status {
    ETL_OK = 0,
    ETL_ERR_ARG = -1,        /* bad argument from the caller */
    ETL_ERR_IO = -2,         /* open/read failed (errno text in the message) */
    ETL_ERR_NOMEM = -3,
    ETL_ERR_EMPTY = -4,      /* file has no bytes or no buffer at all */
    ETL_ERR_FORMAT = -5,     /* not an ETL file / structure out of bounds */
    ETL_ERR_TRUNCATED = -6,  /* data ends inside a structure */
    ETL_ERR_DECOMPRESS = -7, /* a compressed buffer did not decode to its stated length */
    ETL_ERR_SCHEMA = -8,     /* schema source could not be read */
    ETL_STOPPED = 1,         /* the callback asked to stop; not an error */
    ETL_PAUSED = 2           /* the callback called etl_process_pause: etl_process goes on from the next record */
} etl_status;

/* A one-line, human-readable error naming the file and byte offset where it applies. */
typedef struct etl_error {
    int code;              /* etl_status */
    uint64_t offset;       /* byte offset in the file, UINT64_MAX when not applicable */
    char message[512];     /* "FILE: offset 0x1234: what went wrong" */
} etl_error;

const char *etl_status_name(int code);

/* ---- basic types ------------------------------------------------------------------------------------- */

typedef struct etl_guid {
    uint32_t data1;
    uint16_t data2;
    uint16_t data3;
    uint8_t data4[8];
} etl_guid;

/* Read a GUID from 16 little-endian bytes. */
etl_guid etl_guid_read(const uint8_t *p);
int etl_guid_equal(const etl_guid *a, const etl_guid *b);
int etl_guid_is_zero(const etl_guid *g);
/* "{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}" (lower case; upper case when upper != 0); buf >= 39 bytes. */
char *etl_guid_format(const etl_guid *g, char *buf, int upper);
/* Parses with or without braces; returns 0 on success. */
int etl_guid_parse(const char *text, etl_guid *out);

/* FILETIME (100 ns since 1601-01-01 UTC) → "YYYY-MM-DDThh:mm:ss.fffffffZ" with `digits` fraction digits
 * (0..9; digits beyond 7 are zeros). buf >= 40 bytes. Returns buf. */
char *etl_filetime_format(int64_t filetime, int digits, char *buf, size_t cap);

/* ---- record header kinds (the on-disk header that carried the record) -------------------------------- */

typedef enum etl_header_kind {
    ETL_KIND_SYSTEM32 = 0,
    ETL_KIND_SYSTEM64,
    ETL_KIND_COMPACT32,
    ETL_KIND_COMPACT64,
    ETL_KIND_PERFINFO32,
    ETL_KIND_PERFINFO64,
    ETL_KIND_FULL32,
    ETL_KIND_FULL64,
    ETL_KIND_INSTANCE32,
    ETL_KIND_INSTANCE64,
    ETL_KIND_EVENT32,
    ETL_KIND_EVENT64,
    ETL_KIND_MESSAGE,  /* WPP / TraceMessage record */
    ETL_KIND_ERROR,    /* logger error placeholder (header type 0x0D) */
    ETL_KIND_COUNT
} etl_header_kind;

/* Census name used in corpus/MANIFEST.tsv: "SYSTEM64", "EVENT32", "MESSAGE(WPP)", ... */
const char *etl_header_kind_name(etl_header_kind kind);

/* ---- EVENT_RECORD-shaped record ---------------------------------------------------------------------- */

/* EVENT_HEADER.Flags values (same numbers as the Windows EVENT_HEADER_FLAG_* constants). */
enum {
    ETL_EVENT_FLAG_EXTENDED_INFO = 0x0001,
    ETL_EVENT_FLAG_PRIVATE_SESSION = 0x0002,
    ETL_EVENT_FLAG_STRING_ONLY = 0x0004,
    ETL_EVENT_FLAG_TRACE_MESSAGE = 0x0008,
    ETL_EVENT_FLAG_NO_CPUTIME = 0x0010,
    ETL_EVENT_FLAG_32_BIT_HEADER = 0x0020,
    ETL_EVENT_FLAG_64_BIT_HEADER = 0x0040,
    ETL_EVENT_FLAG_DECODE_GUID = 0x0080,
    ETL_EVENT_FLAG_CLASSIC_HEADER = 0x0100,
    ETL_EVENT_FLAG_PROCESSOR_INDEX = 0x0200
};

/* Extended data item types (EVENT_HEADER_EXT_TYPE_*). */
enum {
    ETL_EXT_RELATED_ACTIVITYID = 0x0001,
    ETL_EXT_SID = 0x0002,
    ETL_EXT_TS_ID = 0x0003,
    ETL_EXT_INSTANCE_INFO = 0x0004,
    ETL_EXT_STACK_TRACE32 = 0x0005,
    ETL_EXT_STACK_TRACE64 = 0x0006,
    ETL_EXT_PEBS_INDEX = 0x0007,
    ETL_EXT_PMC_COUNTERS = 0x0008,
    ETL_EXT_PSM_KEY = 0x0009,
    ETL_EXT_EVENT_KEY = 0x000A,
    ETL_EXT_EVENT_SCHEMA_TL = 0x000B,
    ETL_EXT_PROV_TRAITS = 0x000C,
    ETL_EXT_PROCESS_START_KEY = 0x000D,
    ETL_EXT_CONTROL_GUID = 0x000E,
    ETL_EXT_QPC_DELTA = 0x000F,
    ETL_EXT_CONTAINER_ID = 0x0010,
    ETL_EXT_STACK_KEY32 = 0x0011,
    ETL_EXT_STACK_KEY64 = 0x0012
};

typedef struct etl_event_descriptor {
    uint16_t id;
    uint8_t version;
    uint8_t channel;
    uint8_t level;
    uint8_t opcode;
    uint16_t task;
    uint64_t keyword;
} etl_event_descriptor;

typedef struct etl_event_header {
    uint16_t size;            /* total record size on disk */
    uint16_t header_type;     /* raw header-type byte (0x01..0x15; 0x0F for WPP messages) */
    uint16_t flags;           /* ETL_EVENT_FLAG_*; CLASSIC_HEADER and 32/64_BIT_HEADER are synthesised */
    uint16_t event_property;
    uint32_t thread_id;       /* 0xFFFFFFFF when the header has none (PERFINFO) */
    uint32_t process_id;      /* 0xFFFFFFFF when the header has none */
    int64_t timestamp;        /* FILETIME, or the raw clock value in raw-timestamp mode */
    etl_guid provider_id;     /* provider GUID; for classic/kernel records the event-class GUID */
    etl_event_descriptor descriptor; /* classic records: opcode = type, version = class version, id = 0 */
    uint32_t kernel_time;
    uint32_t user_time;
    uint64_t processor_time;  /* kernel_time | user_time << 32 when PRIVATE_SESSION/NO_CPUTIME */
    etl_guid activity_id;
} etl_event_header;

typedef struct etl_buffer_context {
    uint16_t processor_index;
    uint16_t logger_id;
} etl_buffer_context;

typedef struct etl_extended_item {
    uint16_t ext_type;
    uint16_t data_size;
    const uint8_t *data;
} etl_extended_item;

/* More than every defined item type once (18 types); more items than this means a corrupt record. */
#define ETL_MAX_EXTENDED_ITEMS 32

typedef struct etl_event_record {
    etl_event_header header;
    etl_buffer_context buffer_context;
    uint16_t extended_data_count;
    const etl_extended_item *extended_data;
    uint16_t user_data_length;
    const uint8_t *user_data;

    /* Beyond EVENT_RECORD: where the record came from and how to read it. */
    etl_header_kind kind;
    uint8_t pointer_size;        /* 4 or 8, from the header type */
    uint8_t buffer_compressed;   /* 1: the buffer is compressed in the file, record_offset counts in its payload */
    int64_t raw_timestamp;       /* timestamp as stored, whatever the mode */
    uint16_t kernel_group;       /* SYSTEM/COMPACT/PERFINFO: Group byte of the HookId; else 0xFFFF */
    uint32_t wpp_sequence;       /* MESSAGE: sequence number when present */
    uint16_t wpp_option_flags;   /* MESSAGE: OptionFlags */
    uint32_t file_index;         /* which input file (order given to etl_open) */
    uint64_t file_offset;        /* byte offset of the record's buffer in that file */
    uint32_t record_offset;      /* offset of the record in its (decompressed) buffer, after the 0x48-byte header */
    const uint8_t *raw;          /* the whole record as stored (header included) */
    uint32_t raw_size;
} etl_event_record;

/* The SID of the record's SID extended item (MS-DTYP 2.4.2.2: revision, sub-authority count <= 15, 6-byte
 * authority, the sub-authorities), with its exact size in *size; NULL when there is none or it is malformed. */
const uint8_t *etl_record_sid(const etl_event_record *record, size_t *size);

/* Where a record lies, kept to name it in a message (also after the record is gone). */
typedef struct etl_record_place {
    uint64_t file_offset;        /* its buffer's offset in the file */
    uint32_t file_index;
    uint32_t record_offset;      /* in the (decompressed) buffer, after the 0x48-byte header */
    uint8_t buffer_compressed;
} etl_record_place;

etl_record_place etl_record_place_of(const etl_event_record *record);
/* The byte offset in the file to name: where the record's bytes start for a plain buffer (the buffer, its
 * 0x48-byte header, then record_offset); the buffer's own offset for a compressed one, whose records exist only
 * once decompressed. */
uint64_t etl_record_place_offset(const etl_record_place *place);
/* "offset 0x..." naming that offset; for a compressed buffer followed by " (compressed buffer, record 0x...
 * bytes into its decompressed records)". Returns what snprintf returns. */
int etl_record_place_text(const etl_record_place *place, char *out, size_t size);

/* ---- log-file header ------------------------------------------------------------------------------- */

typedef struct etl_time_zone {
    int32_t bias;
    char standard_name[96];   /* UTF-8 */
    uint16_t standard_date[8];
    int32_t standard_bias;
    char daylight_name[96];
    uint16_t daylight_date[8];
    int32_t daylight_bias;
} etl_time_zone;

typedef struct etl_logfile_header {
    uint32_t buffer_size;
    uint32_t version;            /* the 4 version bytes as one little-endian u32 (PerfView's "Version") */
    uint32_t provider_version;   /* OS build */
    uint32_t number_of_processors;
    int64_t end_time;            /* FILETIME */
    uint32_t timer_resolution;
    uint32_t maximum_file_size;
    uint32_t log_file_mode;
    uint32_t buffers_written;
    uint32_t start_buffers;
    uint32_t pointer_size;
    uint32_t events_lost;
    uint32_t cpu_speed_mhz;
    int64_t boot_time;
    int64_t perf_freq;
    int64_t start_time;
    uint32_t reserved_flags;     /* clock type: 1 QPC, 2 system time, 3 CPU cycles */
    uint32_t buffers_lost;
    etl_time_zone time_zone;
    char session_name[256];      /* UTF-8 */
    char log_file_name[1024];    /* UTF-8 */
    int64_t header_raw_timestamp;  /* raw SystemTime of the header record: the anchor of conversion */
    uint32_t thread_id, process_id;  /* of the header record */
} etl_logfile_header;

/* The capturing machine's TIME_ZONE_INFORMATION Bias in minutes (UTC = local + Bias), which is what PerfView
 * prints as "UtcOffsetMinutes" (480 for US Pacific, -120 for UTC+2). */
int32_t etl_logfile_utc_offset_minutes(const etl_logfile_header *h);

/* ---- diagnostics --------------------------------------------------------------------------------- */

typedef enum etl_severity { ETL_WARNING = 1, ETL_ERROR = 2 } etl_severity;

typedef struct etl_diagnostic {
    etl_severity severity;
    int code;                /* etl_status */
    uint32_t file_index;
    uint64_t offset;         /* byte offset in the file */
    const char *message;     /* full one-line text: "FILE: offset 0x...: ..." */
} etl_diagnostic;

typedef void (*etl_diagnostic_fn)(const etl_diagnostic *d, void *ctx);

/* ---- trace API (OpenTrace / ProcessTrace / CloseTrace) --------------------------------------------- */

enum {
    ETL_OPEN_RAW_TIMESTAMP = 0x1,   /* deliver timestamps as stored (PROCESS_TRACE_MODE_RAW_TIMESTAMP) */
    ETL_OPEN_NO_HEADER_EVENT = 0x2  /* do not deliver the log-file header record as an event */
};

typedef struct etl_open_options {
    unsigned flags;                 /* ETL_OPEN_* */
    etl_diagnostic_fn on_diagnostic;/* optional: warnings and errors while reading */
    void *diagnostic_ctx;
} etl_open_options;

typedef struct etl_trace etl_trace;

/* Return 0 to continue, non-zero to stop processing (etl_process then returns ETL_STOPPED). */
typedef int (*etl_event_fn)(const etl_event_record *record, void *ctx);

/* Opens one or more log files as one trace. Reads only buffer headers up front. Memory: a small index per
 * buffer, plus the buffers being read, whose total stays within the memory budget (etl_trace_set_memory_budget,
 * default ETL_DEFAULT_MEMORY_BUDGET) whatever the number of files and processors; each buffer is bounded by the
 * file's log-file header BufferSize, at most 16 MiB (a buffer that claims more is reported and skipped). On failure returns an etl_status and fills *err (if not NULL). */
int etl_open(etl_trace **out, const char *const *paths, size_t path_count, const etl_open_options *options,
             etl_error *err);

/* Delivers every record of every file in timestamp order. Pointers in the record are valid only during the
 * callback. Problems inside the files are reported through on_diagnostic and counted; the rest of the
 * trace is still delivered. */
int etl_process(etl_trace *trace, etl_event_fn callback, void *ctx);
/* Called in the callback: etl_process returns ETL_PAUSED after this record, and the next etl_process on the
 * trace (with any callback, on any thread, one call at a time) goes on from the record after it. */
void etl_process_pause(etl_trace *trace);

void etl_close(etl_trace *trace);

/* Unmerged reading, for a pass that puts what it keeps in order itself (pipeline/learn.c): the trace's records
 * come in streams, one per processor of each file; etl_process merges them. etl_process_stream delivers the
 * records of stream `index` (< etl_trace_stream_count) in stream order, with `position` increasing along the
 * stream (the record's buffer's place in the stream << 32 | the record's offset in that buffer: records of
 * one stream compare in stream order, also across handles that share it), and `header_first` = 1 for the
 * first file's log-file header record (which etl_process delivers before anything). When the callback returns
 * non-zero, ETL_STOPPED and the stream stays at that record: the next call on the same stream starts with it.
 * No etl_process on the same trace afterwards. Returns as etl_process; on a shared stream (below) also
 * ETL_ERR_FORMAT when a run begins with a record that has no time of its own (WPP messages may have none: they
 * take the time of the record before, which another handle read): read that stream whole instead. */
typedef int (*etl_stream_record_fn)(const etl_event_record *record, uint64_t position, int header_first,
                                    void *ctx);
size_t etl_trace_stream_count(const etl_trace *trace);
/* Bytes of file stream `index` spans (its buffers on disk): to share streams out among threads. */
uint64_t etl_trace_stream_bytes(const etl_trace *trace, size_t index);
/* Buffers of stream `index`. */
size_t etl_trace_stream_buffer_count(const etl_trace *trace, size_t index);
/* The earliest and latest buffer flush times of the trace (FILETIME; from the buffer headers, no record
 * read; stamps a writer put there as FILETIMEs instead of raw clock values are read so); 0 when it has no
 * buffer. */
int etl_trace_time_range(const etl_trace *trace, int64_t *first, int64_t *last);
int etl_process_stream(etl_trace *trace, size_t index, etl_stream_record_fn callback, void *ctx);
/* Before the first etl_process_stream on stream `index` of this handle: it reads only the runs of `run`
 * buffers numbered which, which + of, which + 2 x of, ... (0 <= which < of): `of` handles on the same files
 * read one stream together, each its share. ETL_OK, or ETL_ERR_ARG. */
int etl_trace_stream_share(etl_trace *trace, size_t index, size_t run, unsigned which, unsigned of);
/* 1 when `record` (delivered by etl_process on `trace`) was read in place from a file's mapping: its bytes (raw,
 * user data, the extended items' data) stay readable at the same addresses after the callback, until
 * etl_close, as long as the file is not changed meanwhile (a pipeline can then pass the pointers on instead of
 * copying the bytes; the record's own struct and its extended item array are still the callback's only). */
int etl_trace_record_in_place(const etl_trace *trace, const etl_event_record *record);
/* File `file_index`'s mapping, the range etl_trace_record_in_place tests (for a caller that tests every record
 * and keeps it): 1 with *base and *size set, 0 when the file is not mapped or there is no such file. */
int etl_trace_file_mapping(const etl_trace *trace, size_t file_index, const uint8_t **base, uint64_t *size);
/* Another handle on the files of `trace` (no first pass handing buffers to it) for reading streams on another
 * thread: it shares the files and their buffer index (nothing is reopened or indexed again) and has stream
 * cursors, memory and counters of its own; it reads with the default options whatever `trace` was opened
 * with (FILETIME times, no diagnostics: `trace` reports the files' problems) and hands its decompressed
 * buffers to the handle `trace` hands them to (etl_trace_hand_over). Close it (etl_close) before `trace`.
 * NULL when out of memory or `trace` cannot be shared so. */
etl_trace *etl_trace_stream_reader(const etl_trace *trace);

/* A second handle on an open trace for threads that only ask it about its files (paths, log-file headers,
 * clocks: etl_trace_file_path, etl_trace_logfile_header, etl_trace_raw_to_filetime) while `trace` is being
 * processed elsewhere: it shares the files (nothing is reopened), has counters of its own that never change,
 * and cannot be processed (etl_process returns ETL_ERR_ARG). Close it (etl_close) before `trace`. NULL when
 * out of memory. */
etl_trace *etl_trace_view(const etl_trace *trace);

size_t etl_trace_file_count(const etl_trace *trace);
const char *etl_trace_file_path(const etl_trace *trace, size_t file_index);
/* NULL when that file has no readable log-file header. */
const etl_logfile_header *etl_trace_logfile_header(const etl_trace *trace, size_t file_index);

/* Converts a raw timestamp of file `file_index` to FILETIME with that file's clock (§1.9). */
int64_t etl_trace_raw_to_filetime(const etl_trace *trace, size_t file_index, int64_t raw);

typedef struct etl_trace_stats {
    uint64_t buffers;              /* buffers found by walking the files */
    uint64_t buffers_compressed;
    uint64_t events;               /* records delivered to the callback */
    uint64_t records_by_kind[ETL_KIND_COUNT];
    uint64_t events_lost;          /* header EventsLost (summed over files) */
    uint64_t buffers_lost;         /* header BuffersLost (summed over files) */
    uint64_t buffers_flag_events_lost;  /* buffers flagged EVENTS_LOST */
    uint64_t buffers_flag_buffer_lost;  /* buffers flagged BUFFER_LOST */
    uint64_t errors;               /* diagnostics of severity ERROR */
    uint64_t warnings;             /* diagnostics of severity WARNING */
    uint64_t bytes_total;          /* input bytes (for progress) */
    uint64_t bytes_done;           /* input bytes of buffers fully processed */
    uint64_t buffers_prefetched;   /* compressed buffers decompressed ahead (etl_trace_set_prefetch) */
    uint64_t buffers_handed_over;  /* compressed buffers a first pass decompressed for this one (etl_trace_hand_over) */
    uint64_t releases_deferred;    /* releases of mapped pages done by etl_trace_release_due (etl_trace_defer_release) */
} etl_trace_stats;

const etl_trace_stats *etl_trace_get_stats(const etl_trace *trace);

/* Bytes of buffer payload all streams of the trace may hold at once (0: the default). Past it, the buffers
 * whose events come last are freed and read again when needed: a hostile trace costs time, never memory.
 * Call before etl_process. */
#define ETL_DEFAULT_MEMORY_BUDGET ((size_t)256 << 20)
void etl_trace_set_memory_budget(etl_trace *trace, size_t bytes);

/* Decompress-ahead: `threads` helper threads decompress the trace's compressed buffers before etl_process
 * needs them (for a spare core); with 0, only threads the caller lends with etl_trace_prefetch_help do.
 * Records, order and diagnostics stay those of a run without it. Memory: 4 MiB of payloads decompressed ahead
 * (or one buffer, if larger). Call before etl_process; the threads end in etl_close. ETL_OK (also when there
 * is nothing to decompress ahead), or ETL_ERR_ARG. */
int etl_trace_set_prefetch(etl_trace *trace, unsigned threads);
/* With decompress-ahead set: the calling thread (any thread, also while another runs etl_process)
 * decompresses the next compressed buffer due, when the 4 MiB leave room. 1 when it took a buffer (also one
 * that then could not be read or decompressed: etl_process reports it when it gets there), 0 when there was
 * nothing to do (no decompress-ahead, every buffer taken, or no room). Call it between etl_trace_set_prefetch
 * and etl_close only, ordered with both (threads started after the one and joined before the other).
 * etl_trace_set_prefetch on a trace that has decompress-ahead set already changes nothing (its threads stay
 * as many as the first call gave). */
int etl_trace_prefetch_help(etl_trace *trace);

/* Mapped input read so far goes back to the system (madvise) inside etl_process, every 4 MiB of reading or
 * when the file range read since the last time spans 4 MiB. With `on`, etl_process only marks that as due, and
 * etl_trace_release_due gives the pages back: a caller that reads in turns on several threads (the -j
 * pipeline) does it outside the reader's turn, which the 0.2-0.3 ms of a release would hold up. A release that
 * comes due while the last is still due or being done is done at once, inside etl_process, so what is resident
 * stays about 8 MiB of reading plus the current buffer's pages per stream (against 4 MiB without), whether or
 * not the caller calls etl_trace_release_due. Records, order and diagnostics do not change. Call before
 * etl_process. */
void etl_trace_defer_release(etl_trace *trace, int on);
/* With `on`, etl_process asks the CPU cache for the lines of the records ahead (1 KiB past the current one) as it
 * parses them. For a caller whose callback only copies records out and looks at them later, e.g. on another
 * turn (the -j pipeline): it otherwise waits for each record's first line from memory. A callback that decodes
 * each record gives the hardware prefetcher that time already, and the requests cost about 25 instructions a
 * record. Records, order and diagnostics do not change. Call before etl_process. */
void etl_trace_read_ahead(etl_trace *trace, int on);
/* Does a release etl_process marked as due (etl_trace_defer_release); 1 when this call did one (counted in
 * etl_trace_stats.releases_deferred). Any thread, any number of them, also while another runs etl_process
 * (pages still in use are read again from the page cache), until etl_close. */
int etl_trace_release_due(etl_trace *trace);

/* Two passes over one trace (a first pass, then the decoding pass): `first`, opened on the same files as
 * `second` and read before it, hands each compressed buffer it decompressed over to `second`, whose pass then
 * takes it instead of decompressing it again. Only when the decompressed payloads of all of the trace's
 * compressed buffers fit ETL_HAND_OVER_BYTES: memory stays bounded whatever the trace (a larger one is
 * decompressed twice, as without this). Records, order and diagnostics stay those of a run without it (a
 * buffer the first pass could not decompress is not handed over: the second pass reads and reports it).
 * Call before reading either; several handles (one per thread) may hand over to one `second`, which must not
 * be read before they are done. Returns 1 when buffers will be handed over, 0 when not (other files, too
 * large, nothing compressed, `second` already read), or ETL_ERR_NOMEM. */
#define ETL_HAND_OVER_BYTES ((size_t)32 << 20)
int etl_trace_hand_over(etl_trace *first, etl_trace *second);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_H */
