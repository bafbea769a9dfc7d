/* Where schemas come from on disk: folders of manifests and binaries, the bundled manifests shipped with
 * etlconv, and $ETLCONV_SCHEMA_PATH. Precedence between sources is the registry's (docs/schemas.md). */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/compiled_set.h"
#include "schema/deferred_files.h"
#include "schema/manifest_model.h"

#ifndef ETL_BUNDLED_SCHEMA_DIR
#define ETL_BUNDLED_SCHEMA_DIR "/usr/local/share/etlconv/schemas"
#endif

#define MAX_DIR_DEPTH 8

typedef struct walk_state {
    etl_schema_registry *registry;
    etl_schema_source source;
    etl_error *err;          /* first failure */
    int first_rc;
    etl_schema_load_stats stats;   /* stats.failed counts every failure */
    etl_mui_cache *mui;      /* folder listings shared by the binaries of a walk */
    int defer;               /* manifests wait for a lookup of a GUID they name (bundled folder) */
    char *root;              /* real path of the folder walked: links may not lead out of it */
} walk_state;

int etl_schema_load_pe_file(etl_schema_registry *registry, const char *path, etl_error *err)
{
    etl_schema_set set;
    etl_schema_set_init(&set);
    int rc = etl_pe_schema_parse(&set, path, err);
    if (rc == 1) rc = etl_schema_fail(err, ETL_ERR_SCHEMA, path, UINT64_MAX, "no WEVT_TEMPLATE resource");
    /* a provider that failed does not stop the others of the same binary from loading */
    if (set.event_count || set.provider_count) {
        etl_error rerr;
        int r2 = etl_schema_set_register(&set, registry, ETL_SOURCE_USER_WEVT, rc == ETL_OK ? err : &rerr);
        if (rc == ETL_OK) rc = r2;
    }
    etl_schema_set_free(&set);
    return rc;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcasecmp(name + n - s, suffix) == 0;
}

static int is_manifest_name(const char *name)
{
    return has_suffix(name, ".man") || has_suffix(name, ".xml") || has_suffix(name, ".manifest");
}

/* PE extensions that carry WEVT_TEMPLATE resources in Windows folders: besides .dll/.exe/.sys, control
 * panel applets (powercfg.cpl, firewall.cpl, …) and printer drivers (winspool.drv) are message files of
 * manifest providers (libyal/winevt-kb docs/sources/message-files), SystemResources\*.mun hold the
 * manifests of some binaries since Windows 10 1903 (plaso issue #4259); .ocx/.scr/.efi/.tsp/.ax are PEs. */
static int is_binary_name(const char *name)
{
    static const char *const ext[] = {".dll", ".exe", ".sys", ".cpl", ".drv", ".mun", ".ocx", ".scr", ".efi",
                                      ".tsp", ".ax"};
    for (size_t i = 0; i < sizeof(ext) / sizeof(ext[0]); i++)
        if (has_suffix(name, ext[i])) return 1;
    return 0;
}

static int contains(const unsigned char *hay, size_t size, const unsigned char *needle, size_t n)
{
    const unsigned char *p = hay, *end = hay + size;
    while (n && (size_t)(end - p) >= n) {
        p = memchr(p, needle[0], (size_t)(end - p) - n + 1);
        if (!p) return 0;
        if (memcmp(p, needle, n) == 0) return 1;
        p++;
    }
    return 0;
}

/* `word` in UTF-8 or UTF-16 (either byte order). */
static int mentions(const unsigned char *data, size_t size, const char *word)
{
    const size_t n = strlen(word);
    if (contains(data, size, (const unsigned char *)word, n)) return 1;
    unsigned char le[64], be[64];
    if (2 * n > sizeof le) return 0;
    for (size_t i = 0; i < n; i++) {
        le[2 * i] = (unsigned char)word[i];
        le[2 * i + 1] = 0;
        be[2 * i] = 0;
        be[2 * i + 1] = (unsigned char)word[i];
    }
    return contains(data, size, le, 2 * n) || contains(data, size, be, 2 * n);
}

/* Cheap pre-check for folder walks: an instrumentation manifest, or a WEPExplorer listing (<Providers> with
 * <EventMetadata>, which never says "instrumentation"). */
static int looks_like_schema(const unsigned char *data, size_t size)
{
    return mentions(data, size, "instrumentation") || mentions(data, size, "EventMetadata");
}

/* ---- bundled manifests, loaded when a trace first names one of their GUIDs ------------------------------- */

static void load_one(walk_state *w, const char *path, int strict);

static void load_deferred_manifest(etl_schema_registry *registry, const char *path)
{
    walk_state w = {registry, ETL_SOURCE_BUNDLED, NULL, ETL_OK, {0, 0, 0, 0, 0}, NULL, 0, NULL};
    load_one(&w, path, 0);
}

/* Defers a manifest that names GUIDs; one that names none loads now, so that its error is seen. */
static int defer_manifest(walk_state *w, const char *path, const unsigned char *data, size_t size)
{
    etl_guid *guids = malloc(ETL_DEFERRED_MAX_GUIDS * sizeof *guids);
    size_t count = 0;
    /* a bundled manifest compiled for exactly these bytes carries the scan's result (compiled_set.h) */
    if (guids && etl_compiled_bundled_guids(path, data, size, guids, ETL_DEFERRED_MAX_GUIDS, &count) != ETL_OK)
        count = etl_deferred_scan_guids(data, size, guids, ETL_DEFERRED_MAX_GUIDS);
    int deferred =
        count && etl_schema_registry_defer_file(w->registry, path, guids, count, load_deferred_manifest) == ETL_OK;
    free(guids);
    if (deferred) w->stats.loaded++;
    return deferred;
}

static void record_failure(walk_state *w, int rc, const etl_error *e)
{
    w->stats.failed++;
    if (w->first_rc == ETL_OK) {
        w->first_rc = rc;
        if (w->err) *w->err = *e;
    }
}

/* A file: a manifest (by name) or a PE binary (by name). Non-manifest XML and binaries without a
 * WEVT_TEMPLATE are not errors inside a folder walk (`strict` = 0). */
static void load_one(walk_state *w, const char *path, int strict)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    etl_error e;
    if (is_binary_name(base) || (strict && !is_manifest_name(base) && !has_suffix(base, ".mui"))) {
        etl_schema_set set;
        etl_schema_set_init(&set);
        int rc = w->mui ? etl_pe_schema_parse_cached(&set, path, w->mui, &e) : etl_pe_schema_parse(&set, path, &e);
        etl_schema_source src = w->source == ETL_SOURCE_BUNDLED ? ETL_SOURCE_BUNDLED : ETL_SOURCE_USER_WEVT;
        if (rc == ETL_OK || set.event_count) {
            etl_error re;
            if (etl_schema_set_register(&set, w->registry, src, &re) == ETL_OK) w->stats.loaded++;
            else record_failure(w, re.code, &re);
        }
        /* a folder of Windows binaries is mostly binaries without manifests and a few non-PE files with PE
         * names: neither is an error there, but both are counted so that a caller can say what was skipped */
        if (rc == 1 && strict)
            record_failure(w, ETL_ERR_SCHEMA, (etl_schema_fail(&e, ETL_ERR_SCHEMA, path, UINT64_MAX,
                                                               "no WEVT_TEMPLATE resource"), &e));
        else if (rc == 1) w->stats.without_manifest++;
        else if (rc < 0 && (strict || rc != ETL_ERR_FORMAT || e.offset != 0)) record_failure(w, rc, &e);
        else if (rc < 0) w->stats.not_pe++;
        etl_schema_set_free(&set);
        return;
    }
    if (!is_manifest_name(base) && !strict) return;
    etl_schema_set set;
    etl_schema_set_init(&set);
    unsigned char *data;
    size_t size;
    int rc = etl_schema_read_file(path, ETL_MANIFEST_MAX_BYTES, &data, &size, &e);
    if (rc == ETL_OK && w->defer && defer_manifest(w, path, data, size)) {
        free(data);
        return;
    }
    if (rc == ETL_OK) {
        /* inside a folder, XML that is no instrumentation manifest is skipped (and counted); a bundled manifest
         * compiled at build time for exactly these bytes is not parsed again (compiled_set.h) */
        if (!strict && !looks_like_schema(data, size)) rc = 1, w->stats.not_manifest++;
        else if (w->source == ETL_SOURCE_BUNDLED && etl_compiled_bundled_load(&set, path, data, size) == ETL_OK) rc = ETL_OK;
        else rc = etl_manifest_parse(&set, (const char *)data, size, path, &e);
        free(data);
    }
    /* what parsed is registered even when a part of the file was refused (the refusal is still reported) */
    if (rc == ETL_OK || (rc < 0 && set.event_count)) {
        etl_error re;
        if (etl_schema_set_register(&set, w->registry, w->source, &re) == ETL_OK) w->stats.loaded++;
        else record_failure(w, re.code, &re);
    }
    if (rc < 0) record_failure(w, rc, &e);
    etl_schema_set_free(&set);
}

/* A symbolic link to a file is followed only when its target lies inside the folder given (a folder from an
 * untrusted source must not make etlconv read /etc or a device); one that leaves it is reported. */
static int link_stays_inside(walk_state *w, const char *path)
{
    char *target = realpath(path, NULL);
    size_t n = w->root ? strlen(w->root) : 0;
    int inside = target && w->root && strncmp(target, w->root, n) == 0 && (target[n] == '/' || n == 1);
    if (!inside) {
        etl_error e;
        etl_schema_fail(&e, ETL_ERR_SCHEMA, path, UINT64_MAX,
                        "symbolic link to %s, outside the folder %s: not followed",
                        target ? target : "a missing file", w->root ? w->root : "given");
        record_failure(w, ETL_ERR_SCHEMA, &e);
    }
    free(target);
    return inside;
}

static void walk(walk_state *w, const char *dir, int depth)
{
    if (depth > MAX_DIR_DEPTH) return;
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) {
        etl_error e;
        etl_schema_fail(&e, ETL_ERR_IO, dir, UINT64_MAX, "cannot read folder");
        record_failure(w, ETL_ERR_IO, &e);
        return;
    }
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        char path[PATH_MAX];
        struct stat st;
        if (name[0] != '.' && (size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) < sizeof(path) &&
            lstat(path, &st) == 0) {
            /* symbolic links to folders are not followed (no loops); links to files are */
            if (S_ISDIR(st.st_mode)) walk(w, path, depth + 1);
            else if (S_ISREG(st.st_mode) ||
                     (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode) && link_stays_inside(w, path)))
                load_one(w, path, 0);
        }
        free(names[i]);
    }
    free(names);
}

static int finish(walk_state *w, const char *what)
{
    if (w->first_rc != ETL_OK && w->stats.failed > 1 && w->err) {
        size_t l = strlen(w->err->message);
        snprintf(w->err->message + l, sizeof(w->err->message) - l, " (and %u more failures under %s)",
                 w->stats.failed - 1, what);
    }
    return w->first_rc;
}

static void walk_tree(walk_state *w, const char *path)
{
    w->mui = etl_mui_cache_new();   /* NULL (out of memory) only means every binary lists its folder again */
    w->root = realpath(path, NULL);
    walk(w, path, 0);
    etl_mui_cache_free(w->mui);
    w->mui = NULL;
    free(w->root);
    w->root = NULL;
}

int etl_schema_load_directory(etl_schema_registry *registry, const char *path, etl_schema_source source,
                              etl_error *err)
{
    walk_state w = {registry, source, err, ETL_OK, {0, 0, 0, 0, 0}, NULL, 0, NULL};
    struct stat st;
    if (!registry || !path) return etl_schema_fail(err, ETL_ERR_ARG, path, UINT64_MAX, "bad argument");
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "not a folder");
    walk_tree(&w, path);
    return finish(&w, path);
}

int etl_schema_load_path_stats(etl_schema_registry *registry, const char *path, etl_schema_source source,
                               etl_error *err, etl_schema_load_stats *stats)
{
    struct stat st;
    if (stats) memset(stats, 0, sizeof(*stats));
    if (!registry || !path) return etl_schema_fail(err, ETL_ERR_ARG, path, UINT64_MAX, "bad argument");
    if (stat(path, &st) != 0) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "no such file or folder");
    walk_state w = {registry, source, err, ETL_OK, {0, 0, 0, 0, 0}, NULL, 0, NULL};
    if (S_ISDIR(st.st_mode)) {
        walk_tree(&w, path);
        finish(&w, path);
    } else {
        load_one(&w, path, 1);
    }
    if (stats) *stats = w.stats;
    return w.first_rc;
}

int etl_schema_load_path(etl_schema_registry *registry, const char *path, etl_schema_source source,
                         etl_error *err, unsigned *loaded)
{
    etl_schema_load_stats stats;
    int rc = etl_schema_load_path_stats(registry, path, source, err, &stats);
    if (loaded) *loaded = stats.loaded;
    return rc;
}

/* The bundled folder, first found of: next to the running program in the installed layout
 * (PREFIX/bin/etlconv → PREFIX/share/etlconv/schemas, so `make install PREFIX=...` works without a rebuild),
 * the source tree when running from the build tree (build/etlconv, build/tests/test_x), the folder compiled
 * in (for programs that link libetl), and the source tree under the current directory. */
static int bundled_dir(char *out, size_t size)
{
    static const char *const rel[] = {"/../share/etlconv/schemas", "/../src/schema/bundled",
                                      "/../../src/schema/bundled"};
    if (etl_schema_dir_near_exe(rel, sizeof rel / sizeof rel[0], ETL_BUNDLED_SCHEMA_DIR, out, size) == 0) return 0;
    return etl_schema_dir_near_exe(NULL, 0, "src/schema/bundled", out, size);
}

int etl_schema_load_bundled(etl_schema_registry *registry, etl_error *err)
{
    char dir[PATH_MAX];
    int rc = ETL_OK;
    if (!registry) return etl_schema_fail(err, ETL_ERR_ARG, "bundled schemas", UINT64_MAX, "bad argument");
    if (bundled_dir(dir, sizeof(dir)) == 0) {
        walk_state w = {registry, ETL_SOURCE_BUNDLED, err, ETL_OK, {0, 0, 0, 0, 0}, NULL, 1, NULL};
        walk_tree(&w, dir);
        rc = finish(&w, dir);
    }
    const char *env = getenv("ETLCONV_SCHEMA_PATH");
    if (!env || !*env) return rc;
    char *copy = strdup(env);
    if (!copy) return etl_schema_fail(err, ETL_ERR_NOMEM, "ETLCONV_SCHEMA_PATH", UINT64_MAX, "out of memory");
    char *save = NULL;
    for (char *item = strtok_r(copy, ":", &save); item; item = strtok_r(NULL, ":", &save)) {
        etl_error e;
        int r = etl_schema_load_path(registry, item, ETL_SOURCE_USER_MANIFEST, &e, NULL);
        if (r != ETL_OK && rc == ETL_OK) {
            rc = r;
            if (err) *err = e;
        }
    }
    free(copy);
    return rc;
}
