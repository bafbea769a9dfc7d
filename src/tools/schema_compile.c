/* Build tool: compiles the bundled manifests into the form etlconv loads without parsing XML
 * (src/schema/compiled_set.h). Each manifest is parsed with the library's own parser, etl_manifest_parse, so a
 * compiled set is by construction what the parser makes of those bytes; it is then read back and compared
 * with the parsed set before it is written, so a writer/reader mismatch fails the build, not a conversion.
 *
 *   schema_compile OUTDIR MANIFEST...    writes OUTDIR/<manifest file name>.etlc
 *
 * A manifest the parser does not take without an error gets no compiled form (etlconv then parses it and
 * reports what it reports today). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/compiled_set.h"
#include "schema/deferred_files.h"

static int compile_one(const char *outdir, const char *path)
{
    unsigned char *data, *blob = NULL;
    size_t size, blob_size = 0;
    etl_error err = {0};
    if (etl_schema_read_file(path, ETL_MANIFEST_MAX_BYTES, &data, &size, &err) != ETL_OK) {
        fprintf(stderr, "schema_compile: %s\n", err.message);
        return 1;
    }
    etl_schema_set set, back;
    etl_schema_set_init(&set);
    etl_schema_set_init(&back);
    int status = 0;
    uint64_t hash = etl_compiled_source_hash(data, size);
    etl_guid *guids = malloc(ETL_DEFERRED_MAX_GUIDS * sizeof *guids);
    size_t guid_count = guids ? etl_deferred_scan_guids(data, size, guids, ETL_DEFERRED_MAX_GUIDS) : 0;
    if (!guids) {
        fprintf(stderr, "schema_compile: out of memory\n");
        status = 1;
    } else if (etl_manifest_parse(&set, (const char *)data, size, path, &err) != ETL_OK) {
        printf("schema_compile: %s not compiled (%s)\n", path, err.message);
    } else if (etl_compiled_set_write(&set, guids, guid_count, size, hash, &blob, &blob_size) != ETL_OK ||
               etl_compiled_set_read(&back, blob, blob_size, size, hash, path, &err) != ETL_OK ||
               !etl_schema_set_same(&set, &back)) {
        fprintf(stderr, "schema_compile: %s: the compiled set does not read back as parsed (%s)\n", path, err.message);
        status = 1;
    } else {
        const char *base = strrchr(path, '/');
        base = base ? base + 1 : path;
        size_t n = strlen(outdir) + strlen(base) + sizeof(ETL_COMPILED_SET_SUFFIX) + 8;
        char *out = malloc(n), *tmp = malloc(n);
        FILE *f = NULL;
        if (out && tmp) {
            snprintf(out, n, "%s/%s%s", outdir, base, ETL_COMPILED_SET_SUFFIX);
            snprintf(tmp, n, "%s.tmp", out);
            f = fopen(tmp, "wb");
        }
        /* written aside and renamed: a reader never sees half a file */
        int written = f && fwrite(blob, 1, blob_size, f) == blob_size;
        if (f && fclose(f) != 0) written = 0;
        if (!written || rename(tmp, out) != 0) {
            fprintf(stderr, "schema_compile: cannot write %s\n", out ? out : outdir);
            status = 1;
        }
        free(out);
        free(tmp);
    }
    free(guids);
    free(blob);
    free(data);
    etl_schema_set_free(&set);
    etl_schema_set_free(&back);
    return status;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: schema_compile OUTDIR MANIFEST...\n");
        return 2;
    }
    int status = 0;
    for (int i = 2; i < argc; i++) status |= compile_one(argv[1], argv[i]);
    return status;
}
