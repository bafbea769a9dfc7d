/* The diff engine's input side (include/etl/etl_diff.h): traces and baselines become one baseline line per
 * event (spilled to a temporary file for traces), and 32 bytes per event in memory — the hash of what is
 * compared, the time, the line's offset, its stream and its event type. */
#include "diff/diff_internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "diff/ordinal_map.h"

#define MAX_LINE_BYTES (16u << 20)  /* a longer baseline line is refused */
#define PROGRESS_EVERY 4096
#define GROUP_SEP '\x1f'

etl_diff *etl_diff_new(const etl_diff_options *options, etl_stable *old_stable, etl_stable *new_stable)
{
    etl_diff *d = calloc(1, sizeof *d);
    if (!d) return NULL;
    d->opt = *options;
    d->stable[0] = old_stable;
    d->stable[1] = new_stable;
    return d;
}

void etl_diff_free(etl_diff *d)
{
    if (!d) return;
    for (int s = 0; s < 2; s++) {
        diff_side *side = &d->side[s];
        if (side->text) fclose(side->text);
        free(side->events);
        strmap_free(&side->members);
        strmap_free(&side->groups);
        free(side->member_index);
        free(side->group_size);
        free(d->type_count[s]);
    }
    for (uint32_t i = 0; i < d->streams.count; i++) free(d->stream_names[i]);
    free(d->stream_names);
    strmap_free(&d->streams);
    strmap_free(&d->types);
    etl_textbuf_free(&d->line);
    etl_textbuf_free(&d->key);
    etl_textbuf_free(&d->content);
    etl_textbuf_free(&d->json);
    etl_textbuf_free(&d->group);
    free(d);
}

size_t diff_split(const char *line, size_t length, diff_cell *cells, size_t max)
{
    size_t n = 0, start = 0;
    for (size_t i = 0; i <= length && n < max; i++) {
        if (i == length || line[i] == '\t') {
            cells[n].text = line + start;
            cells[n].length = i - start;
            n++;
            start = i + 1;
        }
    }
    return n;
}

static int set_error(etl_error *err, int code, const char *what, const char *path, uint64_t line)
{
    if (err) {
        err->code = code;
        err->offset = UINT64_MAX;
        if (line)
            snprintf(err->message, sizeof err->message, "%s: line %llu: %s", path, (unsigned long long)line, what);
        else
            snprintf(err->message, sizeof err->message, "%s: %s", path, what);
    }
    return code;
}

/* 1-based order of first appearance of `member` inside `group` on this side. */
static uint32_t local_index(diff_side *side, etl_textbuf *scratch, const char *group, size_t glen,
                            const char *member, size_t mlen)
{
    etl_textbuf_reset(scratch);
    etl_textbuf_append(scratch, group, glen);
    size_t group_len = scratch->length;
    etl_textbuf_putc(scratch, GROUP_SEP);
    etl_textbuf_append(scratch, member, mlen);
    if (scratch->failed) return 0;
    int added;
    uint32_t m = strmap_find(&side->members, scratch->data, scratch->length, &added);
    if (m == UINT32_MAX) return 0;
    if (!added) return side->member_index[m];
    uint32_t g = strmap_find(&side->groups, scratch->data, group_len, &added);
    if (g == UINT32_MAX) return 0;
    if (m >= side->member_capacity) {
        size_t cap = side->member_capacity ? side->member_capacity * 2 : 256;
        uint32_t *mi = realloc(side->member_index, cap * sizeof *mi);
        if (!mi) return 0;
        side->member_index = mi;
        side->member_capacity = cap;
    }
    if (g >= side->group_capacity) {
        size_t cap = side->group_capacity ? side->group_capacity * 2 : 256;
        uint32_t *gs = realloc(side->group_size, cap * sizeof *gs);
        if (!gs) return 0;
        side->group_size = gs;
        side->group_capacity = cap;
    }
    if (added) side->group_size[g] = 0;
    side->member_index[m] = ++side->group_size[g];
    return side->member_index[m];
}

static int64_t parse_time(const diff_cell *c)
{
    if (c->length < 2 || (c->text[0] != '+' && c->text[0] != '-')) return 0;
    int64_t secs = 0, frac = 0;
    size_t i = 1;
    for (; i < c->length && c->text[i] >= '0' && c->text[i] <= '9' && secs < INT64_MAX / 100; i++)
        secs = secs * 10 + (c->text[i] - '0');
    int digits = 0;
    if (i < c->length && c->text[i] == '.')
        for (i++; i < c->length && c->text[i] >= '0' && c->text[i] <= '9'; i++)
            if (digits < 7) frac = frac * 10 + (c->text[i] - '0'), digits++;
    for (; digits < 7; digits++) frac *= 10;
    int64_t t = secs * 10000000 + frac;
    return c->text[0] == '-' ? -t : t;
}

static int cell_is(const diff_cell *c, const char *text)
{
    size_t n = strlen(text);
    return n == c->length && strncasecmp(c->text, text, n) == 0;
}

static int event_ignored(const etl_diff *d, const diff_cell *provider, const diff_cell *event)
{
    for (size_t i = 0; i < d->opt.ignore_event_count; i++) {
        const char *spec = d->opt.ignore_events[i];
        const char *colon = strchr(spec, ':');
        const char *ename = colon ? colon + 1 : spec;
        if (colon) {
            diff_cell p = {spec, (size_t)(colon - spec)};
            if (!(p.length == 1 && spec[0] == '*') &&
                !(p.length == provider->length && strncasecmp(p.text, provider->text, p.length) == 0))
                continue;
        }
        if (strcmp(ename, "*") == 0 || cell_is(event, ename)) return 1;
    }
    return 0;
}

/* A field cell "Path=Value" whose name (whole path, or its last member without the array index) is an
 * --ignore-field name. */
static int field_ignored(const etl_diff *d, const diff_cell *c)
{
    if (!d->opt.ignore_field_count) return 0;
    const char *eq = memchr(c->text, '=', c->length);
    size_t n = eq ? (size_t)(eq - c->text) : c->length;
    const char *last = c->text;
    for (size_t i = 0; i < n; i++)
        if (c->text[i] == '.') last = c->text + i + 1;
    size_t ln = (size_t)(c->text + n - last);
    const char *bracket = memchr(last, '[', ln);
    if (bracket) ln = (size_t)(bracket - last);
    for (size_t i = 0; i < d->opt.ignore_field_count; i++) {
        const char *name = d->opt.ignore_fields[i];
        size_t k = strlen(name);
        if ((k == n && strncasecmp(name, c->text, n) == 0) || (k == ln && strncasecmp(name, last, ln) == 0)) return 1;
    }
    return 0;
}

static int ensure_type_room(etl_diff *d, uint32_t type)
{
    if (type < d->type_capacity) return 0;
    size_t cap = d->type_capacity ? d->type_capacity * 2 : 64;
    while (cap <= type) cap *= 2;
    for (int s = 0; s < 2; s++) {
        uint64_t *c = realloc(d->type_count[s], cap * sizeof *c);
        if (!c) return -1;
        memset(c + d->type_capacity, 0, (cap - d->type_capacity) * sizeof *c);
        d->type_count[s] = c;
    }
    d->type_capacity = cap;
    return 0;
}

int diff_ingest_line(etl_diff *d, int s, const char *line, size_t length, uint64_t offset)
{
    diff_side *side = &d->side[s];
    diff_cell c[COL_FIRST_FIELD];
    if (diff_split(line, length, c, COL_FIRST_FIELD) < COL_FIRST_FIELD) return -2;
    if (c[COL_PROCESS_ID].length < 2 || c[COL_PROCESS_ID].text[0] != 'P' || c[COL_THREAD_ID].length < 2 ||
        c[COL_THREAD_ID].text[0] != 'T' || (c[COL_TIME].text[0] != '+' && c[COL_TIME].text[0] != '-'))
        return -2;
    if (event_ignored(d, &c[COL_PROVIDER], &c[COL_EVENT])) return 1;
    if (side->count >= UINT32_MAX - 1) return -1;

    /* identity that survives other processes starting first: the process's name and its order among the
     * processes of that name this provider saw, the thread's order among that process's threads */
    etl_textbuf *k = &d->key, *g = &d->group;
    etl_textbuf_reset(g);
    etl_textbuf_append(g, c[COL_PROVIDER].text, c[COL_PROVIDER].length);
    etl_textbuf_putc(g, '\t');
    etl_textbuf_append(g, c[COL_PROCESS_NAME].text, c[COL_PROCESS_NAME].length);
    if (g->failed) return -1;
    const char *group = g->data;
    size_t group_len = g->length;
    uint32_t proc = local_index(side, &d->content, group, group_len, c[COL_PROCESS_ID].text, c[COL_PROCESS_ID].length);
    etl_textbuf_reset(k);
    etl_textbuf_append(k, c[COL_PROVIDER].text, c[COL_PROVIDER].length);
    etl_textbuf_putc(k, '\t');
    etl_textbuf_append(k, c[COL_PROCESS_ID].text, c[COL_PROCESS_ID].length);
    if (k->failed) return -1;
    uint32_t thread = local_index(side, &d->content, k->data, k->length, c[COL_THREAD_ID].text, c[COL_THREAD_ID].length);
    char identity[48];
    snprintf(identity, sizeof identity, "#%u/%u", (unsigned)proc, (unsigned)thread);
    size_t proc_part = strcspn(identity, "/");

    /* stream key = the part of (provider, process, thread) --by keeps; the rest goes into the hash */
    etl_textbuf_reset(k);
    uint64_t h = ETL_DIFF_HASH_SEED;
    switch (d->opt.by) {
    case ETL_DIFF_BY_THREAD:
        etl_textbuf_append(k, group, group_len);
        etl_textbuf_puts(k, identity);
        break;
    case ETL_DIFF_BY_PROCESS:
        etl_textbuf_append(k, group, group_len);
        etl_textbuf_append(k, identity, proc_part);
        h = etl_diff_hash_bytes(h, identity + proc_part, strlen(identity + proc_part));
        break;
    case ETL_DIFF_BY_PROVIDER:
        etl_textbuf_append(k, c[COL_PROVIDER].text, c[COL_PROVIDER].length);
        h = etl_diff_hash_bytes(h, group + c[COL_PROVIDER].length, group_len - c[COL_PROVIDER].length);
        h = etl_diff_hash_bytes(h, identity, strlen(identity));
        break;
    case ETL_DIFF_BY_NONE:
        h = etl_diff_hash_bytes(h, group, group_len);
        h = etl_diff_hash_bytes(h, identity, strlen(identity));
        break;
    }
    if (k->failed) return -1;
    int added;
    uint32_t stream = strmap_find(&d->streams, k->data ? k->data : "", k->length, &added);
    if (stream == UINT32_MAX) return -1;
    if (added) {
        char **names = realloc(d->stream_names, (size_t)d->streams.count * sizeof *names);
        if (!names) return -1;
        d->stream_names = names;
        etl_textbuf_reset(&d->content);
        if (d->opt.by == ETL_DIFF_BY_NONE) {
            etl_textbuf_puts(&d->content, "all events");
        } else {
            etl_textbuf_append(&d->content, c[COL_PROVIDER].text, c[COL_PROVIDER].length);
            if (d->opt.by != ETL_DIFF_BY_PROVIDER) {
                etl_textbuf_putc(&d->content, ' ');
                etl_textbuf_append(&d->content, c[COL_PROCESS_ID].text, c[COL_PROCESS_ID].length);
                if (d->opt.by == ETL_DIFF_BY_THREAD) {
                    etl_textbuf_putc(&d->content, ' ');
                    etl_textbuf_append(&d->content, c[COL_THREAD_ID].text, c[COL_THREAD_ID].length);
                }
                etl_textbuf_puts(&d->content, " (");
                etl_textbuf_append(&d->content, c[COL_PROCESS_NAME].text, c[COL_PROCESS_NAME].length);
                etl_textbuf_putc(&d->content, ')');
            }
        }
        d->stream_names[stream] = d->content.failed ? NULL : strdup(d->content.data);
        if (!d->stream_names[stream]) return -1;
    }

    /* event type and the compared content: provider, event, fields (without ignored ones) */
    etl_textbuf_reset(k);
    etl_textbuf_append(k, c[COL_PROVIDER].text, c[COL_PROVIDER].length);
    etl_textbuf_putc(k, '\t');
    etl_textbuf_append(k, c[COL_EVENT].text, c[COL_EVENT].length);
    if (k->failed) return -1;
    uint32_t type = strmap_find(&d->types, k->data, k->length, &added);
    if (type == UINT32_MAX || ensure_type_room(d, type) != 0) return -1;
    d->type_count[s][type]++;
    h = etl_diff_hash_bytes(h, k->data, k->length + 1);
    const char *p = c[COL_EVENT].text + c[COL_EVENT].length;
    const char *end = line + length;
    while (p < end) {
        const char *cell = p + 1;  /* p is at a tab */
        const char *tab = memchr(cell, '\t', (size_t)(end - cell));
        if (!tab) tab = end;
        diff_cell f = {cell, (size_t)(tab - cell)};
        if (!field_ignored(d, &f)) h = etl_diff_hash_bytes(etl_diff_hash_bytes(h, cell, f.length), "\t", 1);
        p = tab;
    }

    if (side->count == side->capacity) {
        size_t cap = side->capacity ? side->capacity * 2 : 1024;
        diff_event *e = realloc(side->events, cap * sizeof *e);
        if (!e) return -1;
        side->events = e;
        side->capacity = cap;
    }
    side->events[side->count++] = (diff_event){h, parse_time(&c[COL_TIME]), offset, stream, type};
    return 0;
}

/* ---- baselines -------------------------------------------------------------------------------------------- */

int etl_baseline_read_options(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    char first[4096];
    int rc = -1;
    if (!fgets(first, sizeof first, f)) {
        rc = -1;
    } else if (first[0] == '{') {
        etl_textbuf unused = {0};
        char *nl = strchr(first, '\n');
        rc = etl_baseline_from_json(first, nl ? (size_t)(nl - first) : strlen(first), &unused, buf, cap) == 1 ? 1 : -1;
        etl_textbuf_free(&unused);
    } else if (strncmp(first, ETL_BASELINE_MAGIC, strlen(ETL_BASELINE_MAGIC)) == 0) {
        const char *o = first + strlen(ETL_BASELINE_MAGIC);
        while (*o == ' ') o++;
        size_t n = strcspn(o, "\r\n");
        if (n >= cap) n = cap ? cap - 1 : 0;
        if (cap) {
            memcpy(buf, o, n);
            buf[n] = '\0';
        }
        rc = 0;
    }
    fclose(f);
    return rc;
}

/* One line of f without its '\n' (and '\r') into buf. Returns 1 for a line, 0 at the end, -1 when the line is
 * longer than MAX_LINE_BYTES or memory is short. */
static int read_line(FILE *f, etl_textbuf *buf)
{
    char chunk[8192];
    etl_textbuf_reset(buf);
    int any = 0;
    while (fgets(chunk, sizeof chunk, f)) {
        any = 1;
        size_t n = strlen(chunk);
        int end = n > 0 && chunk[n - 1] == '\n';
        etl_textbuf_append(buf, chunk, n - (size_t)end);
        if (buf->length > MAX_LINE_BYTES || buf->failed) return -1;
        if (end) break;
    }
    if (buf->length && buf->data[buf->length - 1] == '\r') buf->data[--buf->length] = '\0';
    return any;
}

int diff_read_line(diff_side *side, uint64_t offset, etl_textbuf *buf)
{
    if (fseeko(side->text, (off_t)offset, SEEK_SET) != 0) return -1;
    return read_line(side->text, buf) < 0 ? -1 : 0;
}

/* Reads lines of `f` from the current position; the side keeps `f`. A JSON Lines baseline is turned into
 * baseline text lines in a temporary file, which the side keeps instead. */
static int ingest_file(etl_diff *d, int s, FILE *f, int json, const char *path, etl_error *err)
{
    diff_side *side = &d->side[s];
    side->text = f;
    if (json && !(side->text = tmpfile())) {
        side->text = f;
        return set_error(err, ETL_ERR_IO, "cannot create a temporary file", path, 0);
    }
    uint64_t offset = (uint64_t)ftello(f), line_no = 0;
    for (;;) {
        int got = read_line(f, &d->line);
        if (got == 0) break;
        line_no++;
        if (got < 0)
            return set_error(err, d->line.failed ? ETL_ERR_NOMEM : ETL_ERR_FORMAT,
                             d->line.failed ? "out of memory" : "line too long", path, line_no);
        size_t len = d->line.length;
        const char *text = d->line.data;
        if (json && len) {
            uint64_t spilled = (uint64_t)ftello(side->text);
            etl_textbuf_reset(&d->json);
            int jr = etl_baseline_from_json(d->line.data, len, &d->json, NULL, 0);
            if (jr < 0) return set_error(err, ETL_ERR_FORMAT, "not an event of etlconv's JSON Lines", path, line_no);
            if (d->json.failed) return set_error(err, ETL_ERR_NOMEM, "out of memory", path, line_no);
            len = jr == 1 ? 0 : d->json.length - 1;
            if (len && fwrite(d->json.data, 1, d->json.length, side->text) != d->json.length)
                return set_error(err, ETL_ERR_IO, "cannot write the temporary file", path, line_no);
            text = d->json.data;
            offset = spilled;
        }
        if (len && text[0] != '#') {
            int rc = diff_ingest_line(d, s, text, len, offset);
            if (rc == -1) return set_error(err, ETL_ERR_NOMEM, "out of memory", path, line_no);
            if (rc == -2)
                return set_error(err, ETL_ERR_FORMAT,
                                 "not a baseline line (TIME, Pn, Tn, PROCESS, PROVIDER, EVENT, fields...)", path, line_no);
        }
        offset = (uint64_t)ftello(f);
        if (d->opt.progress && line_no % PROGRESS_EVERY == 0) d->opt.progress(d->opt.progress_ctx, offset, 0, line_no);
    }
    if (ferror(f)) return set_error(err, ETL_ERR_IO, strerror(errno), path, 0);
    if (json) {
        fclose(f);
        if (fflush(side->text) != 0) return set_error(err, ETL_ERR_IO, "cannot write the temporary file", path, 0);
    }
    return ETL_OK;
}

int etl_diff_read_baseline(etl_diff *d, int s, const char *path, etl_error *err)
{
    char options[8];
    int kind = etl_baseline_read_options(path, options, sizeof options);
    if (kind < 0)
        return set_error(err, ETL_ERR_FORMAT,
                         "not an etlconv baseline (no '" ETL_BASELINE_MAGIC "' or {\"etlconv_baseline\":1,...} line)", path, 1);
    FILE *f = fopen(path, "rb");
    if (!f) return set_error(err, ETL_ERR_IO, strerror(errno), path, 0);
    return ingest_file(d, s, f, kind == 1, path, err);
}

void diff_json_string(etl_textbuf *out, const char *text, size_t length)
{
    etl_textbuf_putc(out, '"');
    for (size_t i = 0; i < length; i++) {
        unsigned char ch = (unsigned char)text[i];
        if (ch == '"' || ch == '\\') {
            etl_textbuf_putc(out, '\\');
            etl_textbuf_putc(out, (char)ch);
        } else if (ch < 0x20) {
            etl_textbuf_printf(out, "\\u%04X", (unsigned)ch);
        } else {
            etl_textbuf_putc(out, (char)ch);
        }
    }
    etl_textbuf_putc(out, '"');
}
