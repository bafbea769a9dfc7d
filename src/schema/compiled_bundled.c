/* Compiled bundled manifests on disk: <folder>/<manifest file name>.etlc, written by the build
 * (src/tools/schema_compile.c, Makefile "compiled bundled manifests") into $(BUILD)/schemas-compiled and installed
 * into $(DATADIR)/schemas-compiled. A blob is used only for the exact manifest bytes it was made from
 * (compiled_set.h), so finding one in an unexpected folder can never change what a manifest decodes to. */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/compiled_set.h"

#ifndef ETL_BUNDLED_SCHEMA_DIR
#define ETL_BUNDLED_SCHEMA_DIR "/usr/local/share/etlconv/schemas"
#endif

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int etl_schema_dir_near_exe(const char *const *rel, size_t n, const char *fallback, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    if (len > 0) {
        exe[len] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        for (size_t i = 0; i < n; i++)
            if ((size_t)snprintf(out, size, "%s%s", exe, rel[i]) < size && is_dir(out)) return 0;
    }
    if (fallback && is_dir(fallback) && (size_t)snprintf(out, size, "%s", fallback) < size) return 0;
    return -1;
}

/* build/etlconv, build/tests/test_x and build/bench/x, then the installed layout (PREFIX/bin/etlconv). */
static int compiled_dir(char *out, size_t size)
{
    static const char *const rel[] = {"/schemas-compiled", "/../schemas-compiled",
                                      "/../share/etlconv/schemas-compiled"};
    return etl_schema_dir_near_exe(rel, sizeof rel / sizeof rel[0], ETL_BUNDLED_SCHEMA_DIR "/../schemas-compiled",
                                   out, size);
}

/* A damaged compiled file is read twice in a run (the GUIDs at startup, the set at the deferred load) and by
 * every registry of the process: it is reported the first time only. */
static void warn_once(const char *file, const char *message, const char *path)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char warned[16][PATH_MAX];
    static unsigned count;
    pthread_mutex_lock(&lock);
    unsigned i = 0;
    while (i < count && strcmp(warned[i], file) != 0) i++;
    if (i == count) {
        fprintf(stderr, "etlconv: warning: %s; parsing %s instead\n", message, path);
        if (count < 16) snprintf(warned[count++], PATH_MAX, "%s", file);
    }
    pthread_mutex_unlock(&lock);
}

/* The compiled file of the manifest at `path` (bytes `data`), read into `set`, or its GUIDs into `out` when
 * `set` is NULL. 1 when there is none or it is stale; a damaged or unreadable one is said on stderr. */
static int use_compiled(const char *path, const unsigned char *data, size_t size, etl_schema_set *set, etl_guid *out,
                        size_t max, size_t *count)
{
    char dir[PATH_MAX], file[PATH_MAX];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    struct stat st;
    if (compiled_dir(dir, sizeof dir) != 0 ||
        (size_t)snprintf(file, sizeof file, "%s/%s%s", dir, base, ETL_COMPILED_SET_SUFFIX) >= sizeof file ||
        stat(file, &st) != 0 || !S_ISREG(st.st_mode))
        return 1;   /* none compiled: the caller parses the XML */
    unsigned char *blob;
    size_t blob_size;
    etl_error err;
    int rc = etl_schema_read_file(file, ETL_COMPILED_SET_MAX_BYTES, &blob, &blob_size, &err);
    if (rc == ETL_OK) {
        uint64_t hash = etl_compiled_source_hash(data, size);
        rc = set ? etl_compiled_set_read(set, blob, blob_size, size, hash, file, &err)
                 : etl_compiled_set_guids(blob, blob_size, size, hash, out, max, count, file, &err);
        free(blob);
    }
    /* stale (the manifest was edited after the build) is no error */
    if (rc < 0) warn_once(file, err.message, path);
    return rc;
}

int etl_compiled_bundled_load(etl_schema_set *set, const char *path, const unsigned char *data, size_t size)
{
    return use_compiled(path, data, size, set, NULL, 0, NULL);
}

int etl_compiled_bundled_guids(const char *path, const unsigned char *data, size_t size, etl_guid *out, size_t max,
                               size_t *count)
{
    *count = 0;
    return use_compiled(path, data, size, NULL, out, max, count);
}
