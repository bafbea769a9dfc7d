/* Naming the finished output files (see output.h): an output is complete at etlconv_output_commit, but it
 * appears under its name only when the whole run (or one input of --each) succeeded, so a run that fails
 * (exit 2) never leaves a complete-looking output behind. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* linkat */
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_internal.h"

static etlconv_output *pending;

int etlconv_output_pending(etlconv_output *o)
{
    etlconv_output **tail = &pending;
    while (*tail) tail = &(*tail)->next_pending;
    o->next_pending = NULL;
    *tail = o;
    return 0;
}

/* Links the unnamed file to `name`; EEXIST when it exists. */
static int link_unnamed(const etlconv_output *o, const char *name)
{
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", o->unnamed_fd);
    return linkat(AT_FDCWD, proc, AT_FDCWD, name, AT_SYMLINK_FOLLOW);
}

/* -y: under a fresh hidden name beside the target, then renamed over it (atomic replacement). */
static int replace_with_unnamed(const etlconv_output *o)
{
    size_t cap = strlen(o->path) + 48;
    char *temp = malloc(cap);
    if (!temp) return -1;
    const char *slash = strrchr(o->path, '/');
    size_t dir_len = slash ? (size_t)(slash - o->path) + 1 : 0;
    int rc = -1;
    for (unsigned attempt = 0; attempt < 100 && rc != 0; attempt++) {
        snprintf(temp, cap, "%.*s.%s.%ld.%u", (int)dir_len, o->path, o->path + dir_len, (long)getpid(), attempt);
        if (link_unnamed(o, temp) == 0) {
            rc = rename(temp, o->path);
            if (rc != 0) {
                int e = errno;
                unlink(temp);
                errno = e;
                break;
            }
        } else if (errno != EEXIST) {
            break;
        }
    }
    free(temp);
    return rc;
}

/* Gives one complete output its name. 0, or -1 after a one-line error. */
static int publish(etlconv_output *o)
{
    int rc = 0;
    if (o->unnamed_fd >= 0) {
        rc = o->overwrite ? replace_with_unnamed(o) : link_unnamed(o, o->path);
    } else if (o->overwrite) {
        rc = rename(o->temp_path, o->path);
    } else if ((rc = link(o->temp_path, o->path)) != 0 && errno != EEXIST) {
        /* filesystems without hard links: rename, after checking again that nothing appeared */
        struct stat st;
        if (lstat(o->path, &st) == 0) errno = EEXIST;
        else rc = rename(o->temp_path, o->path);
    }
    if (rc != 0) {
        if (errno == EEXIST) fprintf(stderr, "etlconv: %s: already exists (use -y to overwrite)\n", o->path);
        else fprintf(stderr, "etlconv: %s: write failed: %s\n", o->path, strerror(errno));
    }
    return rc == 0 ? 0 : -1;
}

static void drop(etlconv_output *o)
{
    if (o->temp_path) unlink(o->temp_path);
    etlconv_output_release(o);
}

int etlconv_outputs_publish(void)
{
    int rc = 0;
    while (pending) {
        etlconv_output *o = pending;
        pending = o->next_pending;
        if (rc == 0 && publish(o) != 0) rc = -1;  /* after a failure the rest are dropped */
        drop(o);
    }
    return rc;
}

void etlconv_outputs_discard(void)
{
    while (pending) {
        etlconv_output *o = pending;
        pending = o->next_pending;
        drop(o);
    }
}
