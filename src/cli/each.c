/* --each: one conversion per input into -o DIR (see each.h). */
#include "each.h"
#include "output.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "convert.h"
#include "pipeline/workers.h"
#include "spool.h"

/* The input's base name without ".gz" and ".etl" ("-" is "stdin"). */
static void base_name(const char *input, const char **base, size_t *len)
{
    if (strcmp(input, "-") == 0) input = "stdin";
    const char *b = strrchr(input, '/');
    b = b ? b + 1 : input;
    size_t n = strlen(b);
    if (n > 3 && strcmp(b + n - 3, ".gz") == 0) n -= 3;
    if (n > 4 && strncmp(b + n - 4, ".etl", 4) == 0) n -= 4;
    *base = b;
    *len = n;
}

/* The input's folder as a relative path below DIR: "/", "." and ".." components dropped, so nothing lands
 * outside DIR ("../x/a/PktMon.etl" → "x/a"). */
static void mirrored_dir(const char *input, char *out, size_t cap)
{
    out[0] = '\0';
    const char *end = strrchr(input, '/');
    size_t used = 0;
    for (const char *p = input; end && p < end;) {
        const char *slash = memchr(p, '/', (size_t)(end - p));
        const char *stop = slash ? slash : end;
        size_t n = (size_t)(stop - p);
        int skip = n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.');
        if (!skip && used + n + 2 < cap) {
            if (used) out[used++] = '/';
            memcpy(out + used, p, n);
            used += n;
            out[used] = '\0';
        }
        p = stop + 1;
    }
}

static int same_base(const char *a, const char *b)
{
    const char *ba, *bb;
    size_t na, nb;
    base_name(a, &ba, &na);
    base_name(b, &bb, &nb);
    return na == nb && strncmp(ba, bb, na) == 0;
}

/* mkdir -p for the folders of `path` below (and including) its last '/'. */
static int make_parents(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return -1;
    for (char *p = strchr(copy + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(copy, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "etlconv: %s: cannot create directory: %s\n", copy, strerror(errno));
            free(copy);
            return -1;
        }
        *p = '/';
    }
    free(copy);
    return 0;
}

char *etlconv_each_stem(const etlconv_options *opt, size_t index)
{
    const char *input = etlconv_spool_display_name(opt->inputs[index]);
    const char *base;
    size_t len;
    base_name(input, &base, &len);
    int clash = 0, rank = 1;
    char sub[1024] = "", other_sub[1024];
    for (size_t k = 0; k < opt->input_count; k++) {
        const char *other = etlconv_spool_display_name(opt->inputs[k]);
        if (k != index && same_base(input, other)) clash = 1;
    }
    if (clash) {
        mirrored_dir(input, sub, sizeof sub);
        for (size_t k = 0; k < index; k++) {  /* still the same after mirroring: "~2", "~3" by input order */
            const char *other = etlconv_spool_display_name(opt->inputs[k]);
            mirrored_dir(other, other_sub, sizeof other_sub);
            if (same_base(input, other) && strcmp(sub, other_sub) == 0) rank++;
        }
    }
    size_t dlen = strlen(opt->output);
    while (dlen > 1 && opt->output[dlen - 1] == '/') dlen--;
    size_t cap = dlen + strlen(sub) + len + 24;
    char *stem = malloc(cap);
    if (!stem) return NULL;
    char suffix[16] = "";
    if (rank > 1) snprintf(suffix, sizeof suffix, "~%d", rank);
    snprintf(stem, cap, "%.*s/%s%s%.*s%s", (int)dlen, opt->output, sub, *sub ? "/" : "", (int)len, base, suffix);
    return stem;
}

static char *with_extension(const char *stem, const char *ext, int gz)
{
    size_t cap = strlen(stem) + strlen(ext) + 4;
    char *s = malloc(cap);
    if (s) snprintf(s, cap, "%s%s%s", stem, ext, gz ? ".gz" : "");
    return s;
}

/* One input, alone: its own overlay over the run's base, so nothing one file taught the decoder (EventSource
 * manifests, embedded TraceLogging/WPR metadata) changes how the next file decodes. The base holds only what
 * the command line named (parsed once for the run); its deferred loads change no lookup's result. */
static int convert_one(const etlconv_options *opt, size_t index, const etl_schema_registry *base, int schema_status,
                       etl_schema_registry *exported, etl_worker_pool **workers)
{
    char *stem = etlconv_each_stem(opt, index);
    char *main_name = stem ? with_extension(stem, opt->format->extension, opt->gzip_output) : NULL;
    char *summary_name = stem ? with_extension(stem, ".summary.txt", 0) : NULL;
    char *report_name = stem ? with_extension(stem, opt->report_html ? ".report.html" : ".report.xml", 0) : NULL;
    etl_schema_registry *registry = etl_schema_registry_new_overlay(base);
    int status = ETLCONV_EXIT_FAILURE;
    if (!stem || !main_name || !summary_name || !report_name || !registry) {
        fprintf(stderr, "etlconv: out of memory\n");
    } else if (make_parents(main_name) == 0) {
        etlconv_job job = {(const char *const *)&opt->inputs[index], 1, main_name, !opt->summary_only,
                           opt->summary || opt->summary_only ? summary_name : NULL, exported,
                           opt->report ? report_name : NULL, NULL, workers};
        status = etlconv_convert(opt, registry, &job);
        if (status == ETLCONV_EXIT_OK) status = schema_status;  /* a partial schema load is a warning */
    }
    /* this input's outputs get their names now (all or none) */
    if (status == ETLCONV_EXIT_FAILURE) etlconv_outputs_discard();
    else if (etlconv_outputs_publish() != 0) status = ETLCONV_EXIT_FAILURE;
    etl_schema_registry_free(registry);
    free(stem);
    free(main_name);
    free(summary_name);
    free(report_name);
    return status;
}

/* --jobs N: N worker processes, one input each at a time; memory is N single conversions (the base parsed
 * before the fork is shared copy-on-write). */
static int run_parallel(const etlconv_options *opt, const etl_schema_registry *base, int schema_status)
{
    int status = ETLCONV_EXIT_OK;
    size_t next = 0, running = 0;
    while (next < opt->input_count || running > 0) {
        if (next < opt->input_count && running < opt->jobs) {
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid == 0) {
                int rc = convert_one(opt, next, base, schema_status, NULL, NULL);
                fflush(stdout);
                fflush(stderr);
                _exit(rc);
            }
            if (pid < 0) {
                fprintf(stderr, "etlconv: --jobs: cannot start a worker: %s\n", strerror(errno));
                status = ETLCONV_EXIT_FAILURE;
                next = opt->input_count;
                continue;
            }
            next++;
            running++;
            continue;
        }
        int ws;
        pid_t done = wait(&ws);
        if (done < 0) {
            if (errno == EINTR) continue;
            break;
        }
        running--;
        int rc = WIFEXITED(ws) ? WEXITSTATUS(ws) : ETLCONV_EXIT_FAILURE;
        if (rc > status) status = rc;
    }
    return status;
}

int etlconv_run_each(const etlconv_options *opt, const etl_schema_registry *base, int schema_status,
                     etl_schema_registry *exported)
{
    if (mkdir(opt->output, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "etlconv: %s: cannot create directory: %s\n", opt->output, strerror(errno));
        return ETLCONV_EXIT_FAILURE;
    }
    if (opt->jobs > 1) return run_parallel(opt, base, schema_status);
    int status = ETLCONV_EXIT_OK;
    etl_worker_pool *workers = NULL;  /* -j N: the same N - 1 threads (and this one) convert every file in turn */
    for (size_t i = 0; i < opt->input_count; i++) {
        int rc = convert_one(opt, i, base, schema_status, exported, &workers);
        if (rc > status) status = rc;
    }
    etl_worker_pool_free(workers);
    return status;
}
