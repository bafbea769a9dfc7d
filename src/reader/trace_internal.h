/* Internal state of an open trace: files, their buffer index, per-processor streams and the merge heap. */
#ifndef ETL_READER_TRACE_INTERNAL_H
#define ETL_READER_TRACE_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include "etl/etl.h"
#include "reader/clock.h"
#include "reader/input.h"
#include "util/cache_line.h"

enum {
    ETL_BUFFER_HEADER_SIZE = 0x48,
    /* Largest buffer accepted, on disk or decompressed: Windows' own maximum (16 MiB since Windows 8). A
     * log-file header BufferSize above it is clamped to it (docs/robustness.md). */
    ETL_MAX_BUFFER_SIZE = 16 * 1024 * 1024,
    ETL_BUFFER_FLAG_EVENTS_LOST = 0x0002,
    ETL_BUFFER_FLAG_BUFFER_LOST = 0x0004,
    ETL_BUFFER_FLAG_PROC_INDEX = 0x0020,
    ETL_BUFFER_FLAG_COMPRESSED = 0x0040,
    ETL_BUFFER_TYPE_HEADER = 4
};

/* One buffer found by walking the file: ~40 bytes of index per buffer on disk (1/1600 of a 64 KiB buffer). */
typedef struct etl_buffer_ref {
    uint64_t offset;        /* file offset of the buffer header */
    uint32_t disk_size;     /* bytes available on disk (BufferSize, or less for a truncated last buffer) */
    uint32_t valid;         /* valid bytes of the uncompressed buffer, header included */
    uint32_t size;          /* the header's BufferSize field (on-disk size, compressed size if compressed) */
    int64_t sequence;
    int64_t timestamp;      /* flush time (raw), fallback for records without one */
    uint16_t processor;
    uint16_t flags;
    uint16_t type;
    uint16_t logger_id;
} etl_buffer_ref;

typedef struct etl_kept_payload {  /* a buffer's payload decompressed by a first pass (hand_over.c) */
    uint8_t *data;
    size_t cap;
} etl_kept_payload;

typedef struct etl_trace_file {
    char *path;
    etl_input input;
    int have_header;
    etl_logfile_header header;
    etl_clock clock;
    uint8_t pointer_size;
    uint32_t buffer_bound;       /* largest decompressed buffer accepted: header BufferSize, ≤ 16 MiB */
    etl_buffer_ref *buffers;
    size_t buffer_count;
    size_t damaged_buffers;      /* buffer slots the walk skipped with a report (zeroed or corrupt headers) */
    etl_kept_payload *kept;      /* per buffer, NULL when none was handed over (etl_trace_hand_over) */
} etl_trace_file;

/* A shared stream's record whose time was another handle's to know (stream.c, etl_process_stream). */
#define ETL_STREAM_TIME_UNKNOWN INT64_MIN

/* A cursor over one processor's buffers of one file, in SequenceNumber order. */
typedef struct etl_stream {
    uint32_t file_index;
    const etl_buffer_ref *buffers;
    size_t buffer_count;
    size_t next_buffer;          /* index of the buffer to load next */
    const etl_buffer_ref *current;
    const uint8_t *data;         /* records of the current buffer: in the file's mapping, or `payload` */
    int mapped;                  /* data lies in the mapping: give its pages back when leaving the buffer */
    uint32_t prefetched;         /* payload offset up to which etl_trace_read_ahead asked for the lines (a
                                  * payload is at most 16 MiB; in the padding, so the stream's size stays) */
    uint8_t *payload;            /* a decompressed (or, unmapped, read) copy of the current buffer */
    size_t payload_cap;
    size_t payload_len;
    size_t pos;                  /* offset of the current record in payload */
    size_t advance;              /* aligned size of the current record */
    int has_record;
    etl_event_record record;
    etl_extended_item items[ETL_MAX_EXTENDED_ITEMS];
    int64_t last_raw;            /* for records that carry no timestamp */
    int64_t key_filetime;        /* merge key */
    uint64_t order;              /* records delivered from this stream so far (tie-break) */
    int force_first;             /* the first file's log-file header record: delivered before anything */
    size_t share_run;            /* etl_trace_stream_share: this handle reads runs of share_run buffers, */
    unsigned share_which, share_of; /* those numbered share_which + k x share_of (share_of <= 1: every buffer) */
    int evicted;                 /* payload freed to stay in the memory budget: reload before use */
} etl_stream;

struct etl_trace {
    etl_open_options options;
    etl_trace_file *files;
    size_t file_count;
    etl_stream *streams;
    size_t stream_count;
    size_t *heap;                /* stream indices, min-heap by merge key */
    size_t heap_count;
    size_t *tie_stack;           /* scratch for pick_tie: at most one entry per stream */
    uint8_t *scratch;            /* compressed bytes of the buffer being loaded */
    size_t scratch_cap;
    size_t memory_budget;        /* bytes of payload held by all streams together (etl_trace_set_memory_budget) */
    size_t resident;             /* bytes of payload held now */
    uint64_t mapped_read;        /* bytes of mapped buffers read since the last sweep (stream.c) */
    uint64_t mapped_lo, mapped_hi; /* file range of the mapped buffers left since the last sweep (hi 0: none) */
    int defer_release;           /* etl_trace_defer_release: a sweep only marks release_due */
    int read_ahead;              /* etl_trace_read_ahead */
    etl_trace_stats stats;
    int processed;               /* 1: etl_process ran (or runs); 2: it paused (etl_process_pause) */
    int pause_requested;
    uint32_t merge_last_file;    /* etl_process's merge state kept across a pause */
    size_t merge_runner_up;
    int is_view;                 /* etl_trace_view: `files` belongs to another trace */
    int shares_files;            /* etl_trace_stream_reader: `files` belongs to another trace */
    struct etl_prefetch *prefetch;  /* decompress-ahead threads (reader/prefetch.h), NULL: none */
    struct etl_trace *hand_to;   /* a first pass: gives its decompressed buffers to this trace (hand_over.c) */
    /* a deferred sweep's state (stream.c), which other threads load after every batch: last, on a line of its
     * own (the struct is allocated by etl_calloc_lines), away from the reader's per-record counters */
    ETL_CACHE_LINE_ALIGNED _Atomic int release_due;
};

/* Reports a diagnostic through the callback and counts it. */
void etl_trace_diag(etl_trace *t, etl_severity severity, int code, uint32_t file_index, uint64_t offset,
                    const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/* Walks the buffer headers of file `file_index` (no payload read) and fills its buffer index. */
int etl_index_buffers(etl_trace *t, uint32_t file_index, etl_error *err);

/* Checks file `file_index`'s buffer index against its log-file header and drops (with a report) what must
 * not be read: buffers above the BufferSize bound, buffers of another trace, repeated buffers; reports
 * buffers missing at the end. Leaves the index sorted by processor, then SequenceNumber. */
int etl_check_buffers(etl_trace *t, uint32_t file_index);

/* Stream cursor: load the next buffer and position on its first record; advance to the next record.
 * Both set stream->has_record (0 when the stream is exhausted). */
int etl_stream_start(etl_trace *t, etl_stream *s);
int etl_stream_next(etl_trace *t, etl_stream *s);
/* hand_over.c. A first pass is done with buffer b of file `file_index`, decompressed to `len` bytes in `data`
 * (`cap` allocated): returns 1 when t->hand_to took the block, else 0 (the caller keeps it). */
int etl_hand_over_give(etl_trace *t, uint32_t file_index, const etl_buffer_ref *b, uint8_t *data, size_t len,
                       size_t cap);
/* The block handed over for buffer b (the caller owns it then, *cap bytes allocated), NULL if none. */
uint8_t *etl_hand_over_take(etl_trace *t, uint32_t file_index, const etl_buffer_ref *b, size_t *cap);
/* Whether buffer b was handed over and not taken yet (the decompress-ahead threads pass it over). */
int etl_hand_over_has(const etl_trace *t, uint32_t file_index, size_t buffer);
/* Frees what was handed over and not taken (etl_close). */
void etl_hand_over_free(etl_trace *t);

/* Reloads a stream whose payload was evicted (its record's pointers are valid again afterwards). */
int etl_stream_make_resident(etl_trace *t, etl_stream *s);

#endif
