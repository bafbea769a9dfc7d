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
#include "cli/each.h"
#include "cli/export.h"
#include "cli/info.h"
#include "cli/options.h"
#include "cli/options_tracerpt.h"
#include "cli/output.h"
#include "cli/output_check.h"
#include "cli/schemas_command.h"
#include "cli/spool.h"
#include "cli/threads.h"

static void on_signal(int sig)
{
    etlconv_output_cleanup_on_signal();  /* no half files left behind */
    etlconv_spool_cleanup();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* A mapped input that shrinks under the reader (another program truncates it between the reader's size check
 * and its access) faults with SIGBUS: say what happened in one line and leave no output file, instead of
 * dying with a bus error. Only async-signal-safe calls here. */
static void on_bus_error(int sig)
{
    static const char msg[] = "etlconv: error: an input file was truncated or replaced while it was being read "
                              "(bus error); the conversion stopped and its output files were removed\n";
    (void)sig;
    ssize_t written = write(STDERR_FILENO, msg, sizeof msg - 1);
    (void)written;
    etlconv_output_cleanup_on_signal();
    etlconv_spool_cleanup();
    _exit(ETLCONV_EXIT_FAILURE);
}

static int run_merged(const etlconv_options *opt, etl_schema_registry *registry, etl_schema_registry *exported)
{
    etlconv_job job = {(const char *const *)opt->inputs, opt->input_count, opt->output, 1, NULL, exported,
                       opt->report ? opt->report_file : NULL, opt->interpreted_file, NULL};
    if (opt->tracerpt && !opt->output) job.write_main = 0;  /* tracerpt mode: files only, never the console */
    if (opt->summary_only) {
        job.write_main = 0;
        job.summary_output = opt->output ? opt->output : "-";
    } else if (opt->summary) {
        if (opt->summary_file) {
            job.summary_output = opt->summary_file;
        } else {
            job.summary_output = "-";
            job.write_main = opt->output != NULL;  /* "-summary" alone: only the summary, on stdout */
            if (opt->report || opt->interpreted_file) job.write_main = opt->output != NULL;
        }
    }
    return etlconv_convert(opt, registry, &job);
}

/* Output files are named only when the run did not fail (output.h): all of them or none. */
static int finish_outputs(int status)
{
    if (status == ETLCONV_EXIT_FAILURE) etlconv_outputs_discard();
    else if (etlconv_outputs_publish() != 0) status = ETLCONV_EXIT_FAILURE;
    return status;
}

int main(int argc, char **argv)
{
    etlconv_outputs_begin();  /* every output is named at finish_outputs, all of them or none */
    signal(SIGBUS, on_bus_error);
    if (argc > 1 && strcmp(argv[1], "diff") == 0) return finish_outputs(etlconv_diff_main(argc - 1, argv + 1));
    if (argc > 1 && strcmp(argv[1], "schemas") == 0)
        return finish_outputs(etlconv_schemas_command(argc - 1, argv + 1));
    etlconv_options opt;
    if (etlconv_tracerpt_prepare(&argc, &argv) != 0) return ETLCONV_EXIT_FAILURE;  /* -config, tracerpt mode */
    if (etlconv_parse_options(argc, argv, &opt) != 0 || etlconv_tracerpt_finish(&opt) != 0) {
        etlconv_diff_options_free(&opt);
        etlconv_free_options(&opt);
        etlconv_tracerpt_release();
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
        etlconv_output_set_compression(opt.compress_level, (int)etlconv_threads(&opt));
        if (etlconv_check_outputs(&opt) != 0 || etlconv_spool_inputs(&opt) != 0) {
            status = ETLCONV_EXIT_FAILURE;
            break;
        }
        etl_schema_registry *registry = etl_schema_registry_new();
        etl_schema_registry *exported = opt.export_file ? etl_schema_registry_new() : NULL;
        if (!registry || (opt.export_file && !exported)) {
            fprintf(stderr, "etlconv: out of memory\n");
            etl_schema_registry_free(registry);
            etl_schema_registry_free(exported);
            status = ETLCONV_EXIT_FAILURE;
            break;
        }
        /* `registry` is the run's base (schemas parsed once); each conversion reads it through an overlay */
        int schema_status = etlconv_load_base_schemas(&opt, registry);
        status = schema_status;
        if (schema_status != ETLCONV_EXIT_FAILURE && opt.each) {
            status = etlconv_run_each(&opt, registry, schema_status, exported);  /* an overlay per input */
        } else if (schema_status != ETLCONV_EXIT_FAILURE) {
            etl_schema_registry *overlay = etl_schema_registry_new_overlay(registry);
            status = overlay ? run_merged(&opt, overlay, exported) : ETLCONV_EXIT_FAILURE;
            if (!overlay) fprintf(stderr, "etlconv: out of memory\n");
            if (status == ETLCONV_EXIT_OK) status = schema_status;  /* a partial schema load is a warning */
            etl_schema_registry_free(overlay);
        }
        if (opt.export_file && status != ETLCONV_EXIT_FAILURE &&
            etlconv_export_schemas(exported, opt.export_file, opt.overwrite) != 0)
            status = ETLCONV_EXIT_FAILURE;
        status = finish_outputs(status);
        etl_schema_registry_free(registry);
        etl_schema_registry_free(exported);
        break;
    }
    }
    etlconv_tracerpt_done(&opt, status);
    etlconv_spool_release();
    etlconv_diff_options_free(&opt);
    etlconv_free_options(&opt);
    etlconv_tracerpt_release();
    return status;
}
