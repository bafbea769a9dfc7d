/* Parsing of the typed-output options; the writers do the work (formats/split.c, formats/ecs.c). */
#include "options_typed.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int fail(const char *what, const char *arg)
{
    fprintf(stderr, "etlconv: %s '%s' (try 'etlconv --help')\n", what, arg);
    return ETLCONV_EXIT_FAILURE;
}

/* "--name VALUE" or "--name=VALUE": the value, or NULL when the argument is another option. */
static const char *value_of(int argc, char **argv, int *i, const char *name, int *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return a;
    }
    return argv[++*i];
}

int etlconv_parse_typed_option(int argc, char **argv, int *i, etlconv_options *o, int *status)
{
    int missing = 0;
    const char *v;
    *status = 0;
    if ((v = value_of(argc, argv, i, "--json-bigint", &missing))) {
        if (missing) return *status = fail("option needs a value:", v), 1;
        if (strcasecmp(v, "string") == 0) o->writer.json_bigint_string = 1;
        else if (strcasecmp(v, "number") == 0) o->writer.json_bigint_string = 0;
        else *status = fail("bad --json-bigint (number or string):", v);
        return 1;
    }
    if ((v = value_of(argc, argv, i, "--split", &missing))) {
        if (missing) return *status = fail("option needs a value:", v), 1;
        o->writer.split_dir = v;
        return 1;
    }
    if ((v = value_of(argc, argv, i, "--split-max-open", &missing))) {
        if (missing) return *status = fail("option needs a value:", v), 1;
        char *end;
        unsigned long n = strtoul(v, &end, 10);
        if (*end || n < 1 || n > 4096 || v[0] == '-') *status = fail("bad --split-max-open (1..4096):", v);
        else o->writer.split_max_open = (unsigned)n;
        return 1;
    }
    if ((v = value_of(argc, argv, i, "--style", &missing))) {
        if (missing) return *status = fail("option needs a value:", v), 1;
        if (strcasecmp(v, "ecs") != 0 && strcasecmp(v, "plain") != 0) *status = fail("bad --style (ecs or plain):", v);
        else o->json_style = strcasecmp(v, "ecs") == 0 ? "ecs" : NULL;
        return 1;
    }
    return 0;
}

int etlconv_finish_typed_options(etlconv_options *o)
{
    const char *name = o->format ? o->format->name : "";
    if (o->json_style) {
        if (strcmp(name, "jsonl") != 0) return fail("--style ecs needs -of json, not", name);
        if (o->writer.split_dir) return fail("--style ecs cannot be split; drop", "--split");
        o->format = etl_writer_format_find("ecs");
    }
    if (!o->writer.split_dir) return 0;
    if (strcmp(name, "csv") != 0 && strcmp(name, "jsonl") != 0) return fail("--split needs -of csv or -of json, not", name);
    if (o->writer.csv_compat) return fail("--split writes RFC 4180 CSV; drop", "--csv-compat");
    if (o->output) return fail("--split DIR replaces -o; drop", o->output);
    if (o->each) return fail("--split takes one run per folder; use one etlconv per input instead of", "--each");
    if (o->summary_only) return fail("--split has no summary form:", "-of summary");
    o->format = etl_writer_format_find(strcmp(name, "csv") == 0 ? "csv-split" : "jsonl-split");
    return 0;
}
