/* WPP options: -tmf FILE and -tp DIR (TMF files), -pdb FILE|DIR (TMF annotations of PDBs), -i IMAGE (the PDB
 * an image names), and TRACE_FORMAT_SEARCH_PATH, loaded into the registry before the conversion. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "options_wpp.h"

static int push(char ***list, size_t *count, const char *item)
{
    char **p = realloc(*list, (*count + 1) * sizeof **list);
    if (!p) return -1;
    p[(*count)++] = (char *)item;
    *list = p;
    return 0;
}

int etlconv_wpp_option(etlconv_options *o, const char *option, const char *value)
{
    const char *name = option + (option[1] == '-' ? 2 : 1);
    if (strcmp(name, "pdb") == 0) return push(&o->wpp_pdb, &o->wpp_pdb_count, value);
    if (strcmp(name, "i") == 0 || strcmp(name, "image") == 0) return push(&o->wpp_images, &o->wpp_image_count, value);
    return push(&o->wpp_tmf, &o->wpp_tmf_count, value);
}

void etlconv_wpp_free_options(etlconv_options *o)
{
    free(o->wpp_tmf);
    free(o->wpp_pdb);
    free(o->wpp_images);
}

/* One path's outcome: a refusal with statements left is a warning, a path that gave nothing an error. */
static int report(const etlconv_options *o, const char *path, int rc, const etl_error *err,
                  const etl_tmf_load_stats *stats)
{
    if (rc == ETL_OK) return ETLCONV_EXIT_OK;
    const char *why = err->message[0] ? err->message : etl_status_name(rc);
    if (stats->statements == 0 && stats->enums == 0) {
        fprintf(stderr, "etlconv: %s\n", why);
        return ETLCONV_EXIT_FAILURE;
    }
    if (!o->quiet)
        fprintf(stderr, "etlconv: warning: %s (%u statements of %s refused, %u loaded)\n", why, stats->refused, path,
                stats->statements - stats->refused);
    return ETLCONV_EXIT_WARNINGS;
}

static int is_folder(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int etlconv_wpp_load(const etlconv_options *o, etl_schema_registry *registry)
{
    int status = ETLCONV_EXIT_OK, rc;
    etl_error err;
    etl_tmf_load_stats stats;

    memset(&err, 0, sizeof err);
    rc = etl_schema_load_tmf_search_path(registry, &err, &stats);
    if (rc == ETL_ERR_NOMEM) return ETLCONV_EXIT_FAILURE;
    if (rc != ETL_OK && !o->quiet)  /* an environment variable: never fatal */
        fprintf(stderr, "etlconv: warning: TRACE_FORMAT_SEARCH_PATH: %s\n", err.message);
    if (rc != ETL_OK) status = ETLCONV_EXIT_WARNINGS;

    for (size_t i = 0; i < o->wpp_tmf_count; i++) {
        memset(&err, 0, sizeof err);
        rc = etl_schema_load_tmf_path(registry, o->wpp_tmf[i], &err, &stats);
        if (rc == ETL_OK && stats.statements == 0) {
            fprintf(stderr, "etlconv: %s: no TMF statement found%s\n", o->wpp_tmf[i],
                    is_folder(o->wpp_tmf[i]) ? " (no <GUID>.tmf file with a #typev)" : "");
            return ETLCONV_EXIT_FAILURE;
        }
        int r = report(o, o->wpp_tmf[i], rc, &err, &stats);
        if (r == ETLCONV_EXIT_FAILURE) return r;
        if (r > status) status = r;
    }
    /* -pdb folders are also where -i looks for the PDB an image names */
    const char **folders = calloc(o->wpp_pdb_count + 1, sizeof *folders);
    size_t folder_count = 0;
    if (!folders) return ETLCONV_EXIT_FAILURE;
    for (size_t i = 0; i < o->wpp_pdb_count; i++) {
        if (is_folder(o->wpp_pdb[i])) folders[folder_count++] = o->wpp_pdb[i];
        memset(&err, 0, sizeof err);
        rc = etl_schema_load_pdb_path(registry, o->wpp_pdb[i], &err, &stats);
        int r = report(o, o->wpp_pdb[i], rc, &err, &stats);
        if (r == ETLCONV_EXIT_FAILURE) {
            free(folders);
            return r;
        }
        if (r > status) status = r;
    }
    for (size_t i = 0; i < o->wpp_image_count; i++) {
        memset(&err, 0, sizeof err);
        memset(&stats, 0, sizeof stats);
        rc = etl_schema_load_image_pdb(registry, o->wpp_images[i], folders, folder_count, &err, &stats);
        int r = report(o, o->wpp_images[i], rc, &err, &stats);
        if (r == ETLCONV_EXIT_FAILURE) {
            free(folders);
            return r;
        }
        if (r > status) status = r;
    }
    free(folders);
    return status;
}
