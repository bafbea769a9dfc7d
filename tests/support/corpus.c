/* Test helpers over testdata/ (see corpus.h). */
#include "support/corpus.h"

#include "etl/etl_schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

size_t corpus_traces(corpus_trace *out, size_t max)
{
    FILE *f = fopen("testdata/corpus-MANIFEST.tsv", "r");
    if (!f) return 0;
    char line[8192];
    size_t n = 0;
    while (fgets(line, sizeof line, f) && n < max) {
        char *cols[16] = {0};
        size_t c = 0;
        for (char *p = line, *tok; c < 16 && (tok = strsep(&p, "\t")) != NULL;) cols[c++] = tok;
        size_t l = strlen(cols[0]);
        int is_trace = (l > 7 && strcmp(cols[0] + l - 7, ".etl.gz") == 0) || (l > 4 && strcmp(cols[0] + l - 4, ".etl") == 0);
        if (c < 12 || !is_trace) continue;
        snprintf(out[n].file, sizeof out[n].file, "%s", cols[0]);
        snprintf(out[n].census, sizeof out[n].census, "%s", cols[11]);
        n++;
    }
    fclose(f);
    return n;
}

uint64_t corpus_census_count(const char *census, const char *kind)
{
    char key[64];
    if (strcmp(kind, "providers") == 0) {
        const char *p = strstr(census, "providers(by GUID)=");
        return p ? strtoull(p + strlen("providers(by GUID)="), NULL, 10) : 0;
    }
    snprintf(key, sizeof key, "%s:", kind);
    for (const char *p = census; (p = strstr(p, key)) != NULL; p++) {
        if (p == census || p[-1] == ',' || p[-1] == ' ') return strtoull(p + strlen(key), NULL, 10);
    }
    return 0;
}

uint8_t *corpus_load(const char *path, size_t *size)
{
    gzFile gz = gzopen(path, "rb");
    if (!gz) return NULL;
    size_t cap = 1 << 20, len = 0;
    uint8_t *buf = malloc(cap);
    for (;;) {
        if (!buf) break;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
        int got = gzread(gz, buf + len, (unsigned)(cap - len));
        if (got < 0) { free(buf); buf = NULL; break; }
        if (got == 0) break;
        len += (size_t)got;
    }
    gzclose(gz);
    if (buf) *size = len;
    return buf;
}

int corpus_write_temp(const uint8_t *data, size_t size, char *path)
{
    const char *dir = getenv("TMPDIR");
    snprintf(path, 64, "%s/etltestXXXXXX", dir && strlen(dir) < 40 ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(fd, data + off, size - off);
        if (w <= 0) { close(fd); unlink(path); return -1; }
        off += (size_t)w;
    }
    close(fd);
    return 0;
}

typedef struct decode_walk {
    etl_decoder *decoder;
    corpus_event_fn on_event;
    void *ctx;
} decode_walk;

static int on_record(const etl_event_record *record, void *ctx)
{
    decode_walk *w = ctx;
    const etl_decoded_event *ev;
    if (etl_decode_event(w->decoder, record, &ev) != ETL_OK) return 1;
    w->on_event(ev, w->ctx);
    return 0;
}

size_t corpus_decode_all(corpus_event_fn on_event, void *ctx)
{
    corpus_trace traces[128];
    size_t n = corpus_traces(traces, 128), opened = 0;
    etl_schema_registry *registry = etl_schema_registry_new();
    if (!registry) return 0;
    etl_error err;
    etl_schema_load_bundled(registry, &err);
    for (size_t i = 0; i < n; i++) {
        char path[400];
        snprintf(path, sizeof path, "testdata/%.256s", traces[i].file);
        const char *paths[1] = {path};
        etl_trace *trace;
        if (etl_open(&trace, paths, 1, NULL, &err) != ETL_OK) continue; /* empty.etl and the like */
        decode_walk w = {etl_decoder_new(registry, trace), on_event, ctx};
        if (w.decoder) {
            opened++;
            etl_process(trace, on_record, &w);
            etl_decoder_free(w.decoder);
        }
        etl_close(trace);
    }
    etl_schema_registry_free(registry);
    return opened;
}

void corpus_short_strings(corpus_string_fn on_string, void *ctx)
{
    char s[3] = {0, 0, 0};
    for (int a = 1; a < 256; a++) {
        s[0] = (char)a, s[1] = 0;
        on_string(s, ctx);
        for (int b = 1; b < 256; b++) {
            s[1] = (char)b;
            on_string(s, ctx);
        }
    }
}

size_t corpus_page_end_strings(corpus_string_fn on_string, void *ctx)
{
    static const char specials[] = "<>&\",\\\t\r\n\x01\x7F\xC3\xFF";
    long page = sysconf(_SC_PAGESIZE);
    char *map = mmap(NULL, (size_t)page * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (map == MAP_FAILED) return 0;
    if (mprotect(map + page, (size_t)page, PROT_NONE) != 0) {
        munmap(map, (size_t)page * 2);
        return 0;
    }
    size_t count = 0;
    for (size_t len = 0; len <= 48; len++) {
        char *text = map + page - 1 - len;
        for (size_t v = 0; v <= 3 * (sizeof specials - 1); v++) {
            for (size_t k = 0; k < len; k++) text[k] = (char)('a' + k % 26);
            text[len] = '\0';
            if (v > 0 && len == 0) break;
            if (v > 0) {
                size_t at = (v - 1) % 3 == 0 ? 0 : (v - 1) % 3 == 1 ? len / 2 : len - 1;
                text[at] = specials[(v - 1) / 3];
            }
            on_string(text, ctx);
            count++;
        }
    }
    munmap(map, (size_t)page * 2);
    return count;
}

void corpus_event_strings(const etl_decoded_event *ev, corpus_string_fn on_string, void *ctx)
{
    const char *const names[] = {ev->provider_name, ev->event_name,   ev->task_name,    ev->opcode_name,
                                 ev->level_name,    ev->channel_name, ev->message,      ev->process_name,
                                 ev->error,         ev->info ? ev->info->provider_name : NULL,
                                 ev->info ? ev->info->event_name : NULL};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) on_string(names[i], ctx);
    for (uint32_t i = 0; ev->keyword_names && i < ev->keyword_name_count; i++) on_string(ev->keyword_names[i], ctx);
    for (size_t i = 0; i < ev->field_count; i++) {
        on_string(ev->fields[i].name, ctx);
        on_string(ev->fields[i].value, ctx);
    }
}
