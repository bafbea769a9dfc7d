/* --split DIR: one file per event type (provider, event name, version and its schema's top-level fields),
 * plus DIR/schema.sql with a CREATE TABLE per CSV file. Rows stream to the files as events come (no event is
 * held in memory); at most --split-max-open files are open at once (split_tables.c).
 *
 * CSV (RFC 4180, libcsv quoting): a header row of the common columns (COMMON below) and then the event's own
 * field names in schema order; a scalar cell holds the text the plain CSV writer prints (booleans as 1/0), a
 * struct or array
 * the typed JSON of it (json_value.c). Column names are unique: a field named like a common column, or twice,
 * gets "_2", "_3" (compared without regard to case, as SQL does). Events without a schema, or whose payload did not fit it, go to the table "_undecoded"
 * with their whole payload in hex — nothing is dropped. JSON Lines: the same files, each line the typed
 * JSON Lines object (jsonl.c); no schema.sql (JSON readers infer it).
 * Files are created in DIR directly; schema.sql is written last, when every table is complete, and a run
 * that fails removes the files it created. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <csv.h>

#include "decode/value_kind.h"
#include "json_value.h"
#include "split_tables.h"

#define UNDECODED_TABLE "_undecoded"

static const struct { const char *name; uint8_t type; } COMMON[] = {
    {"time", SPLIT_TEXT}, {"timestamp", SPLIT_BIGINT}, {"provider", SPLIT_TEXT}, {"provider_guid", SPLIT_TEXT},
    {"event", SPLIT_TEXT}, {"id", SPLIT_BIGINT}, {"version", SPLIT_BIGINT}, {"level", SPLIT_BIGINT},
    {"task", SPLIT_BIGINT}, {"opcode", SPLIT_BIGINT}, {"keywords", SPLIT_TEXT}, {"pid", SPLIT_BIGINT},
    {"tid", SPLIT_BIGINT}, {"cpu", SPLIT_BIGINT}, {"process", SPLIT_TEXT}, {"activity_id", SPLIT_TEXT},
    {"related_activity_id", SPLIT_TEXT},
};
#define COMMON_COUNT (sizeof COMMON / sizeof COMMON[0])

typedef struct split_writer {
    etl_writer_options options;
    int csv;                 /* else JSON Lines */
    int ok;                  /* split_tables_init succeeded */
    split_tables tables;
    fmt_clock clock;
    fmt_buf line, cell, key, scratch;
    /* per event, reused: column names/types being built, and where each column's fields start/end */
    const char **names;
    uint8_t *types;
    size_t *first, *end;
    size_t *column_of;       /* top-level property index → column index, SIZE_MAX when not a column */
    size_t capacity, prop_capacity;
    size_t cells;            /* cells written on the current CSV line */
    uint64_t overflow;       /* events sent to _undecoded because SPLIT_MAX_TABLES was reached */
} split_writer;

static void *split_create(const etl_sink *sink, const etl_writer_options *options, int csv)
{
    (void)sink;  /* the rows go to the files of options->split_dir */
    split_writer *w = calloc(1, sizeof *w);
    if (!w) return NULL;
    w->options = *options;
    w->csv = csv;
    w->clock.local = options->local_time;
    return w;
}

static void *csv_split_create(const etl_sink *sink, const etl_writer_options *options)
{
    return split_create(sink, options, 1);
}

static void *jsonl_split_create(const etl_sink *sink, const etl_writer_options *options)
{
    return split_create(sink, options, 0);
}

static int split_begin(void *state)
{
    split_writer *w = state;
    if (!w->options.split_dir) {
        fprintf(stderr, "etlconv: the split writers need --split DIR\n");
        return -1;
    }
    if (split_tables_init(&w->tables, w->options.split_dir, w->csv ? ".csv" : ".jsonl",
                          w->options.split_max_open) != 0)
        return -1;
    w->ok = 1;
    return 0;
}

static int reserve(split_writer *w, size_t columns, size_t props)
{
    if (columns > w->capacity) {
        size_t cap = columns + 16;
        const char **n = realloc(w->names, cap * sizeof *n);
        if (n) w->names = n;
        uint8_t *t = realloc(w->types, cap);
        if (t) w->types = t;
        size_t *f = realloc(w->first, cap * sizeof *f);
        if (f) w->first = f;
        size_t *e = realloc(w->end, cap * sizeof *e);
        if (e) w->end = e;
        if (!n || !t || !f || !e) return -1;
        w->capacity = cap;
    }
    if (props > w->prop_capacity) {
        size_t *c = realloc(w->column_of, (props + 16) * sizeof *c);
        if (!c) return -1;
        w->column_of = c;
        w->prop_capacity = props + 16;
    }
    return 0;
}

static int is_array_property(const etl_property_info *p)
{
    int array = (p->flags & (ETL_PROP_INLINE_COUNT | ETL_PROP_PARAM_COUNT | ETL_PROP_PARAM_FIXED_COUNT)) || p->count > 1;
    int chars = !(p->flags & ETL_PROP_STRUCT) && p->out_type == ETL_OUT_STRING &&
                (p->in_type == ETL_IN_INT8 || p->in_type == ETL_IN_UINT8 || p->in_type == ETL_IN_UINT16);
    return array && !chars;  /* a character array is one string (walk.c) */
}

static uint8_t sql_type(const etl_property_info *p)
{
    if ((p->flags & ETL_PROP_STRUCT) || is_array_property(p)) return SPLIT_TEXT;  /* JSON text */
    switch (etl_property_value_kind(p)) {
    case ETL_VALUE_INTEGER:
        return p->in_type == ETL_IN_UINT64 && p->out_type != ETL_OUT_LONG ? SPLIT_UBIGINT : SPLIT_BIGINT;
    case ETL_VALUE_FLOAT: return SPLIT_DOUBLE;
    case ETL_VALUE_BOOLEAN: return SPLIT_BOOLEAN;
    default: return SPLIT_TEXT;
    }
}

/* Column list of a decoded event into w->names/types (common columns first). Returns the count, 0 when out of
 * memory. */
static size_t event_columns(split_writer *w, const etl_decoded_event *ev, int undecoded)
{
    const etl_event_info *info = ev->info;
    uint32_t tops = info && !undecoded ? (info->top_level_count <= info->property_count ? info->top_level_count
                                                                                        : info->property_count)
                                       : 0;
    if (tops > SPLIT_MAX_COLUMNS) tops = SPLIT_MAX_COLUMNS;
    if (reserve(w, COMMON_COUNT + tops + 2, tops) != 0) return 0;
    size_t n = 0;
    for (size_t i = 0; i < COMMON_COUNT; i++) {
        w->names[n] = COMMON[i].name;
        w->types[n++] = COMMON[i].type;
    }
    if (undecoded) {
        w->names[n] = "status", w->types[n++] = SPLIT_TEXT;
        w->names[n] = "error", w->types[n++] = SPLIT_TEXT;
        w->names[n] = "payload", w->types[n++] = SPLIT_TEXT;
    } else if (ev->string_only) {
        w->names[n] = "string", w->types[n++] = SPLIT_TEXT;
    } else {
        for (uint32_t i = 0; i < tops; i++) {
            const etl_property_info *p = &info->properties[i];
            w->column_of[i] = SIZE_MAX;
            if (p->out_type == ETL_OUT_NOPRINT) continue;  /* the walker writes no field for it */
            w->column_of[i] = n;
            w->names[n] = p->name ? p->name : "";
            w->types[n++] = sql_type(p);
        }
    }
    return n;
}

/* Unique column names for a new table: a repeated name gets "_2", "_3"... (kept in w->scratch). */
static int unique_columns(split_writer *w, size_t n, const char **out)
{
    fmt_buf *b = &w->scratch;
    etl_textbuf_reset(b);
    size_t *offsets = malloc(n * sizeof *offsets);
    if (!offsets) return -1;
    for (size_t i = 0; i < n; i++) {
        offsets[i] = b->length;
        char unnamed[32];  /* PostgreSQL-style parsers (DuckDB) refuse an empty quoted identifier */
        const char *name = w->names[i];
        if (!*name) snprintf(unnamed, sizeof unnamed, "field_%zu", i + 1 - COMMON_COUNT), name = unnamed;
        etl_textbuf_puts(b, name);
        for (unsigned k = 2;; k++) {
            int clash = 0;
            for (size_t j = 0; j < i && !clash; j++) clash = strcasecmp(b->data + offsets[j], b->data + offsets[i]) == 0;
            if (!clash) break;
            b->length = offsets[i];
            etl_textbuf_printf(b, "%s_%u", name, k);
        }
        etl_textbuf_putc(b, '\0');
    }
    if (b->failed) {
        free(offsets);
        return -1;
    }
    for (size_t i = 0; i < n; i++) out[i] = b->data + offsets[i];
    free(offsets);
    return 0;
}

/* One RFC 4180 cell after a ',' unless it is the line's first (libcsv quotes it when needed). */
static void csv_cell(fmt_buf *line, const char *value, size_t n, int first)
{
    if (!first) etl_textbuf_putc(line, ',');
    if (n == 0) return;
    if (value[0] != ' ' && value[n - 1] != ' ' && !memchr(value, ',', n) && !memchr(value, '"', n) &&
        !memchr(value, '\n', n) && !memchr(value, '\r', n)) {
        etl_textbuf_append(line, value, n);
        return;
    }
    char *dst = fmt_buf_grow(line, 2 * n + 2);
    if (dst) line->length += csv_write(dst, 2 * n + 2, value, n);
}

static void csv_text(split_writer *w, const char *value)
{
    value = fmt_valid_utf8(value ? value : "", &w->scratch);
    csv_cell(&w->line, value, strlen(value), w->cells++ == 0);
}

static void csv_u64(split_writer *w, uint64_t v)
{
    char num[FMT_INT_CAP];
    csv_text(w, fmt_u64(v, num));
}

static void common_cells(split_writer *w, const etl_decoded_event *ev)
{
    const etl_event_record *r = ev->record;
    const etl_event_header *h = &r->header;
    char text[64], guid[40], num[FMT_INT_CAP];
    csv_text(w, fmt_event_time(&w->clock, h->timestamp, 7, text, sizeof text));
    csv_text(w, fmt_i64(r->raw_timestamp, num));
    csv_text(w, ev->provider_name);
    csv_text(w, fmt_guid(&h->provider_id, guid));
    csv_text(w, ev->event_name);
    csv_u64(w, h->descriptor.id);
    csv_u64(w, h->descriptor.version);
    csv_u64(w, h->descriptor.level);
    csv_u64(w, h->descriptor.task);
    csv_u64(w, h->descriptor.opcode);
    csv_text(w, fmt_hex64(h->descriptor.keyword, num));
    csv_u64(w, h->process_id);
    csv_u64(w, h->thread_id);
    csv_u64(w, r->buffer_context.processor_index);
    csv_text(w, ev->process_name);
    csv_text(w, fmt_guid(&h->activity_id, guid));
    etl_guid related;
    csv_text(w, fmt_related_activity(r, &related) ? fmt_guid(&related, guid) : "");
}

/* Where each column's fields are: [first, end) per column, SIZE_MAX when the event has no field for it. */
static void locate_fields(split_writer *w, const etl_decoded_event *ev, size_t columns)
{
    for (size_t c = 0; c < columns; c++) w->first[c] = SIZE_MAX;
    if (ev->string_only) {
        w->first[COMMON_COUNT] = 0, w->end[COMMON_COUNT] = ev->field_count;
        return;
    }
    const etl_event_info *info = ev->info;
    int depth = 0;
    size_t current = SIZE_MAX;
    for (size_t i = 0; i < ev->field_count; i++) {
        const etl_field *f = &ev->fields[i];
        if (depth == 0) {
            current = SIZE_MAX;
            if (f->property && info && f->property >= info->properties &&
                (size_t)(f->property - info->properties) < info->top_level_count &&
                (size_t)(f->property - info->properties) < w->prop_capacity) {
                size_t c = w->column_of[f->property - info->properties];
                if (c < columns && w->first[c] == SIZE_MAX) {
                    w->first[c] = i;
                    current = c;
                }
            }
        }
        if (f->kind == ETL_FIELD_STRUCT_BEGIN || f->kind == ETL_FIELD_ARRAY_BEGIN) depth++;
        else if ((f->kind == ETL_FIELD_STRUCT_END || f->kind == ETL_FIELD_ARRAY_END) && depth > 0) depth--;
        if (current != SIZE_MAX) w->end[current] = i + 1;
    }
}

static void field_cells(split_writer *w, const etl_decoded_event *ev, size_t columns)
{
    locate_fields(w, ev, columns);
    for (size_t c = COMMON_COUNT; c < columns; c++) {
        size_t i = w->first[c];
        if (i == SIZE_MAX) {
            csv_text(w, "");  /* absent (an optional tail) */
        } else if (ev->fields[i].kind == ETL_FIELD_VALUE && w->end[c] == i + 1) {
            const char *v = ev->fields[i].value;
            if (w->types[c] == SPLIT_BOOLEAN && v)  /* 1/0: what SQLite's BOOLEAN (numeric) keeps as a number */
                v = strcmp(v, "true") == 0 ? "1" : strcmp(v, "false") == 0 ? "0" : v;
            csv_text(w, v);
        } else {
            etl_textbuf_reset(&w->cell);
            fmt_json_value(&w->cell, ev, i, w->end[c], w->options.json_bigint_string ? FMT_JSON_WIDE_STRINGS : 0);
            csv_cell(&w->line, fmt_buf_cstr(&w->cell), w->cell.length, w->cells++ == 0);
        }
    }
}

/* The table of `ev` (created on first sight), or NULL when out of memory. */
static split_table *table_for(split_writer *w, const etl_decoded_event *ev, int undecoded, size_t *columns)
{
    size_t n = event_columns(w, ev, undecoded);
    if (!n) return NULL;
    *columns = n;
    fmt_buf *k = &w->key;
    etl_textbuf_reset(k);
    if (undecoded) {
        etl_textbuf_puts(k, UNDECODED_TABLE);
    } else {
        char guid[40];
        etl_textbuf_printf(k, "%s\x1f%s\x1f%u\x1f%u\x1f%u", fmt_guid(&ev->record->header.provider_id, guid),
                           ev->event_name ? ev->event_name : "", ev->record->header.descriptor.version,
                           ev->record->header.descriptor.id, ev->record->header.descriptor.opcode);
        for (size_t c = COMMON_COUNT; c < n; c++) {
            etl_textbuf_putc(k, '\x1f');
            etl_textbuf_puts(k, w->names[c]);
        }
    }
    if (k->failed) return NULL;
    split_table *t = split_tables_find(&w->tables, fmt_buf_cstr(k));
    if (t) return t;
    const char **unique = malloc(n * sizeof *unique);
    if (!unique || unique_columns(w, n, unique) != 0) {
        free(unique);
        return NULL;
    }
    etl_textbuf_reset(&w->cell);
    if (undecoded)
        etl_textbuf_puts(&w->cell, UNDECODED_TABLE);
    else
        etl_textbuf_printf(&w->cell, "%s.%s.v%u", ev->provider_name ? ev->provider_name : "",
                           ev->event_name ? ev->event_name : "", ev->record->header.descriptor.version);
    t = split_tables_add(&w->tables, fmt_buf_cstr(k), fmt_buf_cstr(&w->cell), unique, w->types, n);
    free(unique);
    return t;
}

static int split_event(void *state, const etl_decoded_event *ev)
{
    split_writer *w = state;
    if (!w->ok) return -1;
    int undecoded = ev->status != ETL_DECODE_OK;
    size_t columns = 0;
    split_table *t = table_for(w, ev, undecoded, &columns);
    if (!t && !undecoded && w->tables.count >= SPLIT_MAX_TABLES) {
        w->overflow++;  /* too many event types: this one keeps its raw payload in _undecoded */
        undecoded = 1;
        t = table_for(w, ev, 1, &columns);
    }
    if (!t) {
        fprintf(stderr, "etlconv: out of memory (--split)\n");
        return -1;
    }
    etl_textbuf_reset(&w->line);
    w->cells = 0;
    if (w->csv) {
        common_cells(w, ev);
        if (undecoded) {
            csv_text(w, ev->status == ETL_DECODE_NO_SCHEMA ? "no_schema" : ev->status == ETL_DECODE_OK ? "ok" : "error");
            csv_text(w, ev->status == ETL_DECODE_ERROR ? ev->error : ev->status == ETL_DECODE_OK ? "too many tables" : "");
            etl_textbuf_putc(&w->line, ',');
            if (ev->record->user_data_length) {
                etl_textbuf_puts(&w->line, "0x");
                fmt_buf_put_hex(&w->line, ev->record->user_data, ev->record->user_data_length, 1);
            }
        } else {
            field_cells(w, ev, columns);
        }
        etl_textbuf_putc(&w->line, '\n');
    } else {
        fmt_jsonl_line(&w->line, &w->clock, &w->options, ev);
    }
    if (w->line.failed) return -1;
    etl_textbuf_reset(&w->cell);
    if (w->csv && !t->created) {  /* the header row, written when the file is created */
        for (size_t c = 0; c < t->column_count; c++)
            csv_cell(&w->cell, t->columns[c], strlen(t->columns[c]), c == 0);
        etl_textbuf_putc(&w->cell, '\n');
        if (w->cell.failed) return -1;
    }
    FILE *fp = split_tables_stream(&w->tables, t, w->cell.length ? w->cell.data : NULL, w->cell.length);
    if (!fp) return -1;
    if (fwrite(w->line.data, 1, w->line.length, fp) != w->line.length) {
        fprintf(stderr, "etlconv: %s/%s%s: write failed: %s\n", w->tables.dir, t->name, w->tables.extension,
                strerror(errno));
        return -1;
    }
    t->rows++;
    return 0;
}

static void sql_identifier(FILE *out, const char *name)
{
    fputc('"', out);
    for (const char *s = name; *s; s++) {
        if (*s == '"') fputc('"', out);  /* SQL: a quote inside a quoted identifier is doubled */
        fputc(*s, out);
    }
    fputc('"', out);
}

/* schema.sql, written to a temporary name and renamed into place once complete. */
static int write_schema_sql(split_writer *w)
{
    static const char *const sql_names[] = {"TEXT", "BIGINT", "DECIMAL(20,0)", "DOUBLE", "BOOLEAN"};
    char *path = split_tables_path(&w->tables, "schema", ".sql");
    char *tmp = split_tables_path(&w->tables, ".schema", ".sql.tmp");
    FILE *out = tmp ? fopen(tmp, "wb") : NULL;
    if (!path || !out) {
        fprintf(stderr, "etlconv: %s: cannot write schema.sql: %s\n", w->tables.dir, strerror(errno));
        free(path);
        free(tmp);
        return -1;
    }
    fprintf(out, "-- Tables of `etlconv --split`: one per CSV file of this folder (NAME.csv holds table NAME, with a\n"
                 "-- header row). Accepted by SQLite, DuckDB and ClickHouse; see etlconv(1), SPLIT TABLES.\n");
    for (size_t k = 0; k < w->tables.count; k++) {
        const split_table *t = &w->tables.tables[k];
        fprintf(out, "\n-- %s.csv: %llu rows\nCREATE TABLE IF NOT EXISTS ", t->name, (unsigned long long)t->rows);
        sql_identifier(out, t->name);
        fputs(" (\n", out);
        for (size_t c = 0; c < t->column_count; c++) {
            fputs("  ", out);
            sql_identifier(out, t->columns[c]);
            fprintf(out, " %s%s\n", sql_names[t->types[c] < 5 ? t->types[c] : 0], c + 1 < t->column_count ? "," : "");
        }
        fputs(");\n", out);
    }
    int failed = ferror(out) | fclose(out);
    if (failed || rename(tmp, path) != 0) {
        fprintf(stderr, "etlconv: %s: cannot write: %s\n", path, strerror(errno));
        unlink(tmp);
        failed = 1;
    }
    free(path);
    free(tmp);
    return failed ? -1 : 0;
}

static int split_end(void *state, const etl_run_totals *totals)
{
    (void)totals;
    split_writer *w = state;
    if (!w->ok) return -1;
    if (split_tables_close_all(&w->tables) != 0) return -1;
    if (w->csv && write_schema_sql(w) != 0) return -1;
    if (w->overflow)
        fprintf(stderr, "etlconv: warning: --split: more than %u event types; %llu events of the others are in %s "
                        "with their raw payload\n", SPLIT_MAX_TABLES, (unsigned long long)w->overflow, UNDECODED_TABLE);
    w->ok = 2;  /* complete: keep the files */
    return 0;
}

static void split_destroy(void *state)
{
    split_writer *w = state;
    if (!w) return;
    if (w->ok == 1) split_tables_remove_files(&w->tables);  /* the run failed: no half folder of tables */
    split_tables_free(&w->tables);
    etl_textbuf_free(&w->line);
    etl_textbuf_free(&w->cell);
    etl_textbuf_free(&w->key);
    etl_textbuf_free(&w->scratch);
    free(w->names);
    free(w->types);
    free(w->first);
    free(w->end);
    free(w->column_of);
    free(w);
}

const etl_writer_format etl_writer_csv_split = {
    "csv-split", "", "", "CSV, one file per event type in --split DIR, with DIR/schema.sql",
    csv_split_create, split_begin, split_event, split_end, split_destroy,
    .header_ids_only = 0,  /* a process_name column */
};

const etl_writer_format etl_writer_jsonl_split = {
    "jsonl-split", "", "", "JSON Lines, one file per event type in --split DIR",
    jsonl_split_create, split_begin, split_event, split_end, split_destroy,
    .header_ids_only = 0,  /* a process_name column */
};
