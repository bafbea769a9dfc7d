/* etlconv — convert Windows ETW trace files (.etl) to XML, CSV, a text table, JSON Lines or a summary.
 * Exit status: 0 success, 1 written with warnings, 2 failure (see options.h and etlconv.1). */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/convert.h"
#include "cli/diff_cmd.h"
#include "cli/options_diff.h"
#include "cli/export.h"
#include "cli/info.h"
#include "cli/options.h"
#include "cli/output.h"

static void on_signal(int sig)
{
    etlconv_output_cleanup_on_signal();  /* no half files left behind */
    signal(sig, SIG_DFL);
    raise(sig);
}

static int has_suffix(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* "DIR/" + input base name without ".gz"/".etl" + extension. */
static char *each_output_name(const char *dir, const char *input, const char *extension)
{
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    size_t len = strlen(base);
    if (len > 3 && has_suffix(base, ".gz")) len -= 3;
    if (len > 4 && strncmp(base + len - 4, ".etl", 4) == 0) len -= 4;
    size_t dlen = strlen(dir);
    while (dlen > 1 && dir[dlen - 1] == '/') dlen--;
    size_t cap = dlen + 1 + len + strlen(extension) + 1;
    char *out = malloc(cap);
    if (out) snprintf(out, cap, "%.*s/%.*s%s", (int)dlen, dir, (int)len, base, extension);
    return out;
}

static int run_each(const etlconv_options *opt, etl_schema_registry *registry, etl_schema_registry *exported)
{
    if (mkdir(opt->output, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "etlconv: %s: cannot create directory: %s\n", opt->output, strerror(errno));
        return ETLCONV_EXIT_FAILURE;
    }
    int status = ETLCONV_EXIT_OK;
    for (size_t i = 0; i < opt->input_count; i++) {
        const char *input = opt->inputs[i];
        char *main_name = each_output_name(opt->output, input, opt->format->extension);
        char *summary_name = each_output_name(opt->output, input, ".summary.txt");
        if (!main_name || !summary_name) {
            free(main_name);
            free(summary_name);
            fprintf(stderr, "etlconv: out of memory\n");
            return ETLCONV_EXIT_FAILURE;
        }
        etlconv_job job = {(const char *const *)&opt->inputs[i], 1, main_name, !opt->summary_only,
                           opt->summary || opt->summary_only ? summary_name : NULL, exported};
        int rc = etlconv_convert(opt, registry, &job);
        if (rc > status) status = rc;
        free(main_name);
        free(summary_name);
    }
    return status;
}

static int run_merged(const etlconv_options *opt, etl_schema_registry *registry, etl_schema_registry *exported)
{
    etlconv_job job = {(const char *const *)opt->inputs, opt->input_count, opt->output, 1, NULL, exported};
    if (opt->summary_only) {
        job.write_main = 0;
        job.summary_output = opt->output ? opt->output : "-";
    } else if (opt->summary) {
        if (opt->summary_file) {
            job.summary_output = opt->summary_file;
        } else {
            job.summary_output = "-";
            job.write_main = opt->output != NULL;  /* "-summary" alone: only the summary, on stdout */
        }
    }
    return etlconv_convert(opt, registry, &job);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "diff") == 0) return etlconv_diff_main(argc - 1, argv + 1);
    etlconv_options opt;
    if (etlconv_parse_options(argc, argv, &opt) != 0) {
        etlconv_diff_options_free(&opt);
        etlconv_free_options(&opt);
        return ETLCONV_EXIT_FAILURE;
    }
    int status = ETLCONV_EXIT_OK;
    switch (opt.mode) {
    case MODE_HELP:
        etlconv_print_help(stdout);
        break;
    case MODE_VERSION:
        printf("etlconv %s\n", ETL_VERSION_STRING);
        break;
    case MODE_INFO:
        if (opt.input_count == 0) {
            fprintf(stderr, "etlconv: --info needs a file\n");
            status = ETLCONV_EXIT_FAILURE;
        } else {
            status = etlconv_info((int)opt.input_count, opt.inputs, stdout);
        }
        break;
    case MODE_CONVERT: {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        signal(SIGHUP, on_signal);
        signal(SIGPIPE, on_signal);  /* "| head" ends the run: remove a -summary FILE still being written */
        etl_schema_registry *registry = etl_schema_registry_new();
        etl_schema_registry *exported = opt.export_file ? etl_schema_registry_new() : NULL;
        if (!registry || (opt.export_file && !exported)) {
            fprintf(stderr, "etlconv: out of memory\n");
            etl_schema_registry_free(registry);
            etl_schema_registry_free(exported);
            status = ETLCONV_EXIT_FAILURE;
            break;
        }
        int schema_status = etlconv_load_schemas(&opt, registry);
        status = schema_status;
        if (schema_status != ETLCONV_EXIT_FAILURE) {
            status = opt.each ? run_each(&opt, registry, exported) : run_merged(&opt, registry, exported);
            if (status == ETLCONV_EXIT_OK) status = schema_status;  /* a partial schema load is a warning */
        }
        if (opt.export_file && status != ETLCONV_EXIT_FAILURE &&
            etlconv_export_schemas(exported, opt.export_file, opt.overwrite) != 0)
            status = ETLCONV_EXIT_FAILURE;
        etl_schema_registry_free(registry);
        etl_schema_registry_free(exported);
        break;
    }
    }
    etlconv_diff_options_free(&opt);
    etlconv_free_options(&opt);
    return status;
}
