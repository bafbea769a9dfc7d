/* Where TMF statements come from: a .tmf file, a folder of <message-GUID>.tmf files (tracefmt -tp), a PDB or
 * a folder of PDBs (S_ANNOTATION "TMF:" records, pdb.c), and $TRACE_FORMAT_SEARCH_PATH. */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "schema/manifest_model.h"
#include "schema/wpp/pdb.h"
#include "schema/wpp/wpp.h"

typedef int (*load_file_fn)(wpp_store *store, const char *path, etl_error *err, etl_tmf_load_stats *stats);

static int load_tmf_file(wpp_store *store, const char *path, etl_error *err, etl_tmf_load_stats *stats)
{
    unsigned char *data;
    size_t size;
    int rc = etl_schema_read_file(path, WPP_MAX_FILE_BYTES, &data, &size, err);
    if (rc != ETL_OK) return rc;
    wpp_store_begin_origin(store);
    rc = wpp_store_parse(store, (const char *)data, size, path, stats, err);
    free(data);
    stats->files++;
    return rc;
}

static int has_suffix(const char *name, const char *suffix)
{
    size_t n = strlen(name), s = strlen(suffix);
    return n > s && strcasecmp(name + n - s, suffix) == 0;
}

/* Keeps the first failure in err; counts the others into its message at the end. */
typedef struct failures {
    etl_error *err;
    int first_rc;
    unsigned count;
} failures;

static void note(failures *f, int rc, const etl_error *e)
{
    if (rc == ETL_OK) return;
    if (f->count++ == 0) {
        f->first_rc = rc;
        if (f->err) *f->err = *e;
    }
}

static int finish(failures *f, const char *what)
{
    if (f->count > 1 && f->err) {
        size_t l = strlen(f->err->message);
        /* a long folder name is cut at the message's end (%.*s: gcc -O3 warns of the cut a plain %s may make) */
        int room = (int)(sizeof f->err->message - l);
        snprintf(f->err->message + l, (size_t)room, " (and %u more under %.*s)", f->count - 1, room, what);
    }
    return f->first_rc;
}

static int load_folder(wpp_store *store, const char *dir, const char *suffix, load_file_fn load, etl_error *err,
                       etl_tmf_load_stats *stats)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0) return etl_schema_fail(err, ETL_ERR_IO, dir, UINT64_MAX, "cannot read folder");
    failures f = {err, ETL_OK, 0};
    for (int i = 0; i < n; i++) {
        char path[PATH_MAX];
        struct stat st;
        if (names[i]->d_name[0] != '.' && has_suffix(names[i]->d_name, suffix) &&
            (size_t)snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name) < sizeof path &&
            stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            etl_error e;
            memset(&e, 0, sizeof e);
            int rc = load(store, path, &e, stats);
            if (rc == ETL_ERR_NOMEM) {
                for (; i < n; i++) free(names[i]);
                free(names);
                return ETL_ERR_NOMEM;
            }
            note(&f, rc, &e);
        }
        free(names[i]);
    }
    free(names);
    return finish(&f, dir);
}

static int load_path(etl_schema_registry *registry, const char *path, const char *suffix, load_file_fn load,
                     etl_error *err, etl_tmf_load_stats *stats)
{
    etl_tmf_load_stats scratch;
    if (!stats) stats = &scratch;
    memset(stats, 0, sizeof *stats);
    wpp_store *store = etl_schema_registry_wpp(registry, 1);
    if (!store) return ETL_ERR_NOMEM;
    struct stat st;
    if (stat(path, &st) != 0) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open");
    if (S_ISDIR(st.st_mode)) return load_folder(store, path, suffix, load, err, stats);
    return load(store, path, err, stats);
}

int etl_schema_load_tmf_path(etl_schema_registry *registry, const char *path, etl_error *err,
                             etl_tmf_load_stats *stats)
{
    return load_path(registry, path, ".tmf", load_tmf_file, err, stats);
}

int etl_schema_load_pdb_path(etl_schema_registry *registry, const char *path, etl_error *err,
                             etl_tmf_load_stats *stats)
{
    return load_path(registry, path, ".pdb", wpp_pdb_load_file, err, stats);
}

int etl_schema_load_tmf_search_path(etl_schema_registry *registry, etl_error *err, etl_tmf_load_stats *stats)
{
    etl_tmf_load_stats scratch, one;
    if (!stats) stats = &scratch;
    memset(stats, 0, sizeof *stats);
    const char *list = getenv("TRACE_FORMAT_SEARCH_PATH");
    if (!list || !*list) return ETL_OK;
    failures f = {err, ETL_OK, 0};
    while (*list) {
        size_t n = strcspn(list, ";:");
        char path[PATH_MAX];
        if (n && n < sizeof path) {
            memcpy(path, list, n);
            path[n] = '\0';
            etl_error e;
            memset(&e, 0, sizeof e);
            int rc = etl_schema_load_tmf_path(registry, path, &e, &one);
            if (rc == ETL_ERR_NOMEM) return rc;
            note(&f, rc, &e);
            stats->files += one.files;
            stats->statements += one.statements;
            stats->arguments += one.arguments;
            stats->enums += one.enums;
            stats->refused += one.refused;
            stats->duplicates += one.duplicates;
        }
        list += n;
        if (*list) list++;
    }
    return finish(&f, "TRACE_FORMAT_SEARCH_PATH");
}
