/* Preconditions of every output, checked before anything is converted (see output_check.h). */
#include "output_check.h"
#include "suffix.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct named_output {
    const char *option;
    const char *path;
} named_output;

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* An output that names an input file or an -import manifest would destroy what it is made from: refused even
 * with -y. Compared by device and inode, so other spellings, hard and symbolic links are caught. */
static int names_a_source(const etlconv_options *opt, const named_output *o, const struct stat *st)
{
    struct stat in;
    for (size_t i = 0; i < opt->input_count; i++)
        if (strcmp(opt->inputs[i], "-") != 0 && stat(opt->inputs[i], &in) == 0 && same_file(st, &in)) {
            fprintf(stderr, "etlconv: %s: %s names the input file %s; refused (even with -y)\n", o->path,
                    o->option, opt->inputs[i]);
            return 1;
        }
    for (size_t i = 0; i < opt->import_count; i++)
        if (stat(opt->imports[i], &in) == 0 && S_ISREG(in.st_mode) && same_file(st, &in)) {
            fprintf(stderr, "etlconv: %s: %s names the manifest given to -import (%s); refused (even with -y)\n",
                    o->path, o->option, opt->imports[i]);
            return 1;
        }
    return 0;
}

/* The folder a new file goes into must exist and be writable. */
static int folder_ready(const named_output *o)
{
    const char *slash = strrchr(o->path, '/');
    char *dir = slash ? strndup(o->path, slash == o->path ? 1 : (size_t)(slash - o->path)) : strdup(".");
    if (!dir) return 0;
    struct stat st;
    int ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode) && access(dir, W_OK | X_OK) == 0;
    if (!ok)
        fprintf(stderr, "etlconv: %s: %s: cannot create a file in %s: %s\n", o->path, o->option, dir,
                errno ? strerror(errno) : "not a writable folder");
    free(dir);
    return ok;
}

static int check_one(const etlconv_options *opt, const named_output *o)
{
    struct stat st;
    errno = 0;
    if (stat(o->path, &st) != 0) return folder_ready(o) ? 0 : -1;
    if (names_a_source(opt, o, &st)) return -1;
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "etlconv: %s: %s names a folder\n", o->path, o->option);
        return -1;
    }
    if (S_ISREG(st.st_mode) && !opt->overwrite) {
        fprintf(stderr, "etlconv: %s: already exists (use -y to overwrite)\n", o->path);
        return -1;
    }
    return S_ISREG(st.st_mode) && !folder_ready(o) ? -1 : 0;
}

int etlconv_check_outputs(const etlconv_options *opt)
{
    named_output outs[5];
    size_t n = 0;
    if (!opt->each && opt->output && strcmp(opt->output, "-") != 0) outs[n++] = (named_output){"-o", opt->output};
    if (!opt->each && opt->summary_file && strcmp(opt->summary_file, "-") != 0)
        outs[n++] = (named_output){"-summary", opt->summary_file};
    if (opt->export_file) outs[n++] = (named_output){"-export", opt->export_file};
    if (!opt->each && opt->report && opt->report_file) outs[n++] = (named_output){"-report", opt->report_file};
    if (!opt->each && opt->interpreted_file) outs[n++] = (named_output){"-int", opt->interpreted_file};
    if (opt->export_file && etlconv_has_suffix(opt->export_file, ".gz")) {
        fprintf(stderr, "etlconv: %s: -export writes a plain manifest; drop the .gz\n", opt->export_file);
        return -1;
    }
    if (opt->each && opt->output) {  /* the folder of --each outputs must not be an input either */
        struct stat st;
        named_output o = {"-o", opt->output};
        if (stat(opt->output, &st) == 0 && names_a_source(opt, &o, &st)) return -1;
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < i; j++) {
            struct stat a, b;
            if (strcmp(outs[i].path, outs[j].path) == 0 ||
                (stat(outs[i].path, &a) == 0 && stat(outs[j].path, &b) == 0 && S_ISREG(a.st_mode) &&
                 same_file(&a, &b))) {
                fprintf(stderr, "etlconv: %s: named by both %s and %s\n", outs[i].path, outs[j].option, outs[i].option);
                return -1;
            }
        }
        if (check_one(opt, &outs[i]) != 0) return -1;
    }
    return 0;
}
