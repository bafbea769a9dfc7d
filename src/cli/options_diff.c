/* Options of issue 13 (see options_diff.h): --stable, --mask and the options of `etlconv diff`. */
#include "options_diff.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "etl/etl_diff.h"
#include "util/textbuf.h"

#define TICKS_PER_SECOND 10000000.0

static int bad(etlconv_options *o, const char *what, const char *value)
{
    fprintf(stderr, "etlconv: %s '%s' (try 'etlconv --help')\n", what, value ? value : "");
    o->diff.failed = 1;
    return 1;
}

/* "--name", "--name=VALUE" or "--name VALUE": 1 when argv[*i] is --name; *value set for options with one. */
static int option(int argc, char **argv, int *i, const char *name, const char **value, etlconv_options *o)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0 || (a[n] != '\0' && a[n] != '=')) return 0;
    if (!value) {
        if (a[n] == '=') return bad(o, "option takes no value:", a), 1;
        return 1;
    }
    if (a[n] == '=') {
        *value = a + n + 1;
    } else if (*i + 1 < argc) {
        *value = argv[++*i];
    } else {
        bad(o, "option needs a value:", a);
        *value = NULL;
    }
    return 1;
}

static int push(char ***list, size_t *count, char *item)
{
    char **p = realloc(*list, (*count + 1) * sizeof **list);
    if (!p) return -1;
    p[(*count)++] = item;
    *list = p;
    return 0;
}

static int parse_double(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end || v < 0 || v != v) return -1;
    *out = v;
    return 0;
}

int etlconv_diff_option(int argc, char **argv, int *i, etlconv_options *o)
{
    struct etlconv_diff_options *d = &o->diff;
    const char *v = NULL;
    double x = 0;
    if (option(argc, argv, i, "--stable", NULL, o)) {
        o->writer.stable |= ETL_STABLE_ON;
    } else if (option(argc, argv, i, "--mask", &v, o)) {
        etl_stable *probe = etl_stable_new(0);  /* the spec is checked now, used when the run starts */
        int rc = probe && v ? etl_stable_add_mask(probe, v) : -1;
        etl_stable_free(probe);
        if (!d->failed && (rc != 0 || push(&d->masks, &d->mask_count, (char *)v) != 0))
            bad(o, "bad --mask (time, NAME or PROVIDER:EVENT:FIELD, comma-separated):", v);
        o->writer.stable |= ETL_STABLE_ON;  /* masks only make sense in the stable view */
    } else if (option(argc, argv, i, "--new", NULL, o)) {
        d->new_from = o->input_count ? o->input_count : (size_t)-1;
    } else if (option(argc, argv, i, "--by", &v, o)) {
        static const char *const names[] = {"thread", "process", "provider", "none"};
        size_t k = 0;
        while (v && k < 4 && strcasecmp(v, names[k]) != 0) k++;
        if (!d->failed && k == 4) return bad(o, "bad --by (provider, process, thread or none):", v);
        d->by = (int)k;
    } else if (option(argc, argv, i, "--compare-time", &v, o)) {
        if (!d->failed && parse_double(v, &x) != 0) return bad(o, "bad --compare-time (seconds, e.g. 0.001):", v);
        d->compare_time = 1;
        d->time_tolerance = (int64_t)(x * TICKS_PER_SECOND + 0.5);
    } else if (option(argc, argv, i, "--count-tolerance", &v, o)) {
        if (!d->failed && (parse_double(v, &x) != 0 || x > 100)) return bad(o, "bad --count-tolerance (percent, 0..100):", v);
        d->count_tolerance = x;
    } else if (option(argc, argv, i, "--context", &v, o)) {
        if (!d->failed && (parse_double(v, &x) != 0 || x > 1000 || x != (int)x)) return bad(o, "bad --context (0..1000):", v);
        d->context = (int)x;
        d->context_set = 1;
    } else if (option(argc, argv, i, "--counts-only", NULL, o)) {
        d->counts_only = 1;
    } else if (option(argc, argv, i, "--all-counts", NULL, o)) {
        d->all_counts = 1;
    } else if (option(argc, argv, i, "--json", NULL, o)) {
        d->json = 1;
    } else if (option(argc, argv, i, "--junit", &v, o)) {
        d->junit = v;
    } else if (strcmp(argv[*i], "--color") == 0) {
        d->color = 1;
    } else if (option(argc, argv, i, "--color", &v, o)) {
        if (!d->failed && strcmp(v, "auto") != 0 && strcmp(v, "always") != 0 && strcmp(v, "never") != 0)
            return bad(o, "bad --color (auto, always or never):", v);
        d->color = strcmp(v, "always") == 0 ? 1 : strcmp(v, "never") == 0 ? 2 : 0;
    } else if (option(argc, argv, i, "--ignore-field", &v, o)) {
        if (!d->failed && push(&d->ignore_fields, &d->ignore_field_count, (char *)v) != 0) return bad(o, "out of memory", v);
    } else if (option(argc, argv, i, "--ignore-event", &v, o)) {
        if (!d->failed && push(&d->ignore_events, &d->ignore_event_count, (char *)v) != 0) return bad(o, "out of memory", v);
    } else {
        return 0;
    }
    return 1;
}

void etlconv_diff_options_free(etlconv_options *o)
{
    free(o->diff.masks);
    free(o->diff.ignore_fields);
    free(o->diff.ignore_events);
    o->diff.masks = o->diff.ignore_fields = o->diff.ignore_events = NULL;
    o->diff.mask_count = o->diff.ignore_field_count = o->diff.ignore_event_count = 0;
}

/* ---- the baseline header's option words ------------------------------------------------------------------ */

static void word(etl_textbuf *t, const char *w)
{
    if (t->length) etl_textbuf_putc(t, ' ');
    for (; *w; w++) {
        if (*w == ' ')
            etl_textbuf_puts(t, "\\x20");
        else if (*w == '\\')
            etl_textbuf_puts(t, "\\\\");
        else if ((unsigned char)*w < 0x20)
            etl_textbuf_putc(t, '?');
        else
            etl_textbuf_putc(t, *w);
    }
}

static void id_list(etl_textbuf *t, const char *name, const uint32_t *ids, size_t n)
{
    if (!n) return;
    word(t, name);
    etl_textbuf_putc(t, ' ');
    for (size_t k = 0; k < n; k++) etl_textbuf_printf(t, "%s%u", k ? "," : "", (unsigned)ids[k]);
}

static void time_word(etl_textbuf *t, const char *name, int64_t value, int relative)
{
    char text[48];
    word(t, name);
    if (relative)
        snprintf(text, sizeof text, "%.7f", (double)value / TICKS_PER_SECOND);
    else
        etl_filetime_format(value, 7, text, sizeof text);
    word(t, text);
}

char *etlconv_stable_options_text(const etlconv_options *o)
{
    etl_textbuf t = {0};
    word(&t, "--stable");
    for (size_t k = 0; k < o->diff.mask_count; k++) {
        word(&t, "--mask");
        word(&t, o->diff.masks[k]);
    }
    const etlconv_filters *f = &o->filters;
    for (size_t k = 0; k < f->provider_count; k++) {
        word(&t, "--provider");
        word(&t, f->providers[k]);
    }
    id_list(&t, "--event", f->event_ids, f->event_id_count);
    id_list(&t, "--pid", f->pids, f->pid_count);
    id_list(&t, "--tid", f->tids, f->tid_count);
    if (f->level >= 0) etl_textbuf_printf(&t, " --level %d", f->level);
    if (f->keywords) etl_textbuf_printf(&t, " --keywords 0x%llX", (unsigned long long)f->keywords);
    if (f->has_from) time_word(&t, "--from", f->from, f->from_relative);
    if (f->has_to) time_word(&t, "--to", f->to, f->to_relative);
    if (t.failed) {
        etl_textbuf_free(&t);
        return NULL;
    }
    return t.data ? t.data : strdup("");
}

size_t etlconv_stable_options_split(char *text, char **words, size_t max)
{
    size_t n = 0;
    char *p = text;
    while (*p && n < max) {
        while (*p == ' ') p++;
        if (!*p) break;
        char *out = p;
        words[n++] = p;
        while (*p && *p != ' ') {
            if (p[0] == '\\' && p[1] == '\\') {
                *out++ = '\\';
                p += 2;
            } else if (strncmp(p, "\\x20", 4) == 0) {
                *out++ = ' ';
                p += 4;
            } else {
                *out++ = *p++;
            }
        }
        int end = *p == '\0';
        *out = '\0';
        if (!end) p++;
    }
    return n;
}
