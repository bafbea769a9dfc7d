/* Copies one-shot inputs (stdin, FIFOs, devices) into temporary files (see spool.h). */
#include "spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SPOOLED 16
#define CHUNK (1 << 16)

static char *volatile spooled_path[MAX_SPOOLED];  /* read by the signal handler */
static const char *spooled_from[MAX_SPOOLED];
static size_t spooled_count;

static int needs_spool(const char *path)
{
    if (strcmp(path, "-") == 0) return 1;
    struct stat st;
    return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

static int copy_fd(int in, int out, const char *name)
{
    char *buf = malloc(CHUNK);
    if (!buf) {
        fprintf(stderr, "etlconv: out of memory\n");
        return -1;
    }
    int rc = 0;
    uint64_t total = 0;
    for (;;) {
        ssize_t n = read(in, buf, CHUNK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fprintf(stderr, "etlconv: %s: read failed after %llu bytes: %s\n", name, (unsigned long long)total,
                    strerror(errno));
            rc = -1;
            break;
        }
        if (n == 0) break;
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(out, buf + done, (size_t)(n - done));
            if (w < 0 && errno == EINTR) continue;
            if (w <= 0) {
                fprintf(stderr, "etlconv: %s: cannot copy to a temporary file after %llu bytes: %s\n", name,
                        (unsigned long long)total, strerror(w < 0 ? errno : ENOSPC));
                free(buf);
                return -1;
            }
            done += w;
        }
        total += (uint64_t)n;
    }
    free(buf);
    if (rc == 0 && total == 0) {
        fprintf(stderr, "etlconv: %s: empty input\n", name);
        rc = -1;
    }
    return rc;
}

static char *spool_one(const char *name)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir) dir = "/tmp";
    size_t cap = strlen(dir) + 32;
    char *path = malloc(cap);
    if (!path) return NULL;
    snprintf(path, cap, "%s/etlconv-input-XXXXXX", dir);
    int out = mkstemp(path);
    if (out < 0) {
        fprintf(stderr, "etlconv: %s: cannot create a temporary file in %s: %s\n", name, dir, strerror(errno));
        free(path);
        return NULL;
    }
    spooled_path[spooled_count] = path;
    spooled_from[spooled_count++] = name;
    int in = strcmp(name, "-") == 0 ? STDIN_FILENO : open(name, O_RDONLY);
    int rc = in < 0 ? -1 : copy_fd(in, out, strcmp(name, "-") == 0 ? "stdin" : name);
    if (in < 0) fprintf(stderr, "etlconv: %s: cannot open: %s\n", name, strerror(errno));
    if (in > STDIN_FILENO) close(in);
    if (close(out) != 0 && rc == 0) {
        fprintf(stderr, "etlconv: %s: cannot copy to a temporary file: %s\n", name, strerror(errno));
        rc = -1;
    }
    return rc == 0 ? path : NULL;
}

int etlconv_spool_inputs(etlconv_options *o)
{
    int stdin_seen = 0;
    for (size_t i = 0; i < o->input_count; i++) {
        if (!needs_spool(o->inputs[i])) continue;
        if (strcmp(o->inputs[i], "-") == 0 && stdin_seen++) {
            fprintf(stderr, "etlconv: '-' (stdin) is named twice; it can be read only once\n");
            return ETLCONV_EXIT_FAILURE;
        }
        if (spooled_count >= MAX_SPOOLED) {
            fprintf(stderr, "etlconv: %s: more than %d inputs from pipes or devices\n", o->inputs[i], MAX_SPOOLED);
            return ETLCONV_EXIT_FAILURE;
        }
        char *copy = spool_one(o->inputs[i]);
        if (!copy) return ETLCONV_EXIT_FAILURE;
        o->inputs[i] = copy;
    }
    return 0;
}

const char *etlconv_spool_display_name(const char *path)
{
    for (size_t i = 0; i < spooled_count; i++)
        if (spooled_path[i] && strcmp(spooled_path[i], path) == 0) return spooled_from[i];
    return path;
}

void etlconv_spool_cleanup(void)
{
    for (size_t i = 0; i < MAX_SPOOLED; i++)
        if (spooled_path[i]) unlink(spooled_path[i]);
}

void etlconv_spool_release(void)
{
    etlconv_spool_cleanup();
    for (size_t i = 0; i < spooled_count; i++) {
        free(spooled_path[i]);
        spooled_path[i] = NULL;
    }
    spooled_count = 0;
}
