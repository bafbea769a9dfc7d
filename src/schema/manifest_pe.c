/* Compiled manifests in binaries: a PE's WEVT_TEMPLATE resource, with display strings from the PE's own
 * RT_MESSAGETABLE or, on Vista+ split binaries, from the `.mui` next to it or in a language folder
 * (`en-US/foo.dll.mui` preferred; names matched ignoring case as on Windows). */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "schema/manifest_model.h"
#include "schema/pe_resources.h"

#define PE_MAX_BYTES ((size_t)1 << 30)

/* Binaries are mapped, not read: a folder walk touches only the headers and resource tree of each file. */
typedef struct mapped_file { const uint8_t *data; size_t size; } mapped_file;

static int map_file(const char *path, mapped_file *m, etl_error *err)
{
    m->data = NULL;
    m->size = 0;
    int fd = open(path, O_RDONLY);
    if (fd < 0) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot open");
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "not a regular file");
    }
    if ((uint64_t)st.st_size > PE_MAX_BYTES) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_SCHEMA, path, UINT64_MAX, "file larger than %zu MiB refused",
                               PE_MAX_BYTES >> 20);
    }
    if (st.st_size == 0) {
        close(fd);
        return etl_schema_fail(err, ETL_ERR_FORMAT, path, 0, "empty file");
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) return etl_schema_fail(err, ETL_ERR_IO, path, UINT64_MAX, "cannot map");
    m->data = p;
    m->size = (size_t)st.st_size;
    return ETL_OK;
}

static void unmap_file(mapped_file *m)
{
    if (m->data) munmap((void *)m->data, m->size);
    m->data = NULL;
}

/* Message table of a .mui file, if one exists; *buf maps the file. */
static int open_mui(const char *mui_path, mapped_file *buf, etl_pe_image *pe, etl_message_table *table)
{
    struct stat st;
    if (stat(mui_path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    if (map_file(mui_path, buf, NULL) != ETL_OK) return -1;
    const uint8_t *data;
    size_t len;
    if (etl_pe_open(pe, buf->data, buf->size, mui_path, NULL) != ETL_OK ||
        etl_pe_find_resource(pe, NULL, ETL_RT_MESSAGETABLE, &data, &len, NULL) != ETL_OK ||
        etl_message_table_open(table, data, len) != ETL_OK) {
        unmap_file(buf);
        return -1;
    }
    return 0;
}

/* `dir/file` as named, else the entry of `dir` whose name matches `file` ignoring case: copies of Windows
 * folders keep Windows' inconsistent case ("ADVAPI32.dll" beside "en-US/advapi32.dll.mui"). */
static int open_mui_in(const char *dir, const char *file, mapped_file *buf, etl_pe_image *pe,
                       etl_message_table *table)
{
    char candidate[4096];
    if ((size_t)snprintf(candidate, sizeof(candidate), "%s/%s", dir, file) >= sizeof(candidate)) return -1;
    if (open_mui(candidate, buf, pe, table) == 0) return 0;
    DIR *d = opendir(dir);
    if (!d) return -1;
    int found = -1;
    for (struct dirent *e; found != 0 && (e = readdir(d)) != NULL;)
        if (strcasecmp(e->d_name, file) == 0 && strcmp(e->d_name, file) != 0 &&
            (size_t)snprintf(candidate, sizeof(candidate), "%s/%s", dir, e->d_name) < sizeof(candidate))
            found = open_mui(candidate, buf, pe, table);
    closedir(d);
    return found;
}

/* Language folders look like "en-US", "de-DE", "zh-Hans-CN": letters, digits and dashes, with a dash. */
static int is_language_folder(const struct dirent *e)
{
    const char *d = e->d_name;
    size_t n = strlen(d);
    if (n < 4 || n > 16 || !strchr(d, '-') || d[0] == '-') return 0;
    for (size_t i = 0; i < n; i++)
        if (!isalnum((unsigned char)d[i]) && d[i] != '-') return 0;
    return 1;
}

/* en-US first (any case), then the others alphabetically, so the choice does not depend on readdir order. */
static int language_order(const struct dirent **a, const struct dirent **b)
{
    int ea = strcasecmp((*a)->d_name, "en-US") == 0, eb = strcasecmp((*b)->d_name, "en-US") == 0;
    if (ea != eb) return eb - ea;
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int find_mui(const char *path, mapped_file *buf, etl_pe_image *pe, etl_message_table *table)
{
    const char *slash = strrchr(path, '/');
    char dirpath[4096], mui_name[1024];
    if (slash)
        snprintf(dirpath, sizeof(dirpath), "%.*s", (int)(slash - path), path);
    else
        snprintf(dirpath, sizeof(dirpath), ".");
    const char *base = slash ? slash + 1 : path;
    if ((size_t)snprintf(mui_name, sizeof(mui_name), "%s.mui", base) >= sizeof(mui_name)) return -1;
    if (open_mui_in(dirpath, mui_name, buf, pe, table) == 0) return 0;
    struct dirent **names;
    int n = scandir(dirpath, &names, is_language_folder, language_order);
    int found = -1;
    for (int i = 0; i < n; i++) {
        char langdir[4096];
        if (found != 0 && (size_t)snprintf(langdir, sizeof(langdir), "%s/%s", dirpath, names[i]->d_name) <
                              sizeof(langdir))
            found = open_mui_in(langdir, mui_name, buf, pe, table);
        free(names[i]);
    }
    if (n >= 0) free(names);
    return found;
}

int etl_pe_schema_parse(etl_schema_set *set, const char *path, etl_error *err)
{
    mapped_file file, mui = {NULL, 0};
    int rc = map_file(path, &file, err);
    if (rc != ETL_OK) return rc;
    etl_pe_image pe, mui_pe;
    const uint8_t *crim, *msgs;
    size_t crim_len, msgs_len;
    rc = etl_pe_open(&pe, file.data, file.size, path, err);
    if (rc == ETL_OK) rc = etl_pe_find_resource(&pe, "WEVT_TEMPLATE", 0, &crim, &crim_len, err);
    if (rc == ETL_OK) {
        etl_message_table table;
        int have = etl_pe_find_resource(&pe, NULL, ETL_RT_MESSAGETABLE, &msgs, &msgs_len, NULL) == ETL_OK &&
                   etl_message_table_open(&table, msgs, msgs_len) == ETL_OK;
        if (!have) have = find_mui(path, &mui, &mui_pe, &table) == 0;
        rc = etl_wevt_parse(set, crim, crim_len, have ? &table : NULL, path, err);
    }
    unmap_file(&mui);
    unmap_file(&file);
    return rc;
}
