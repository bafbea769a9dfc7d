/* libFuzzer target for `etlconv diff` on baselines (built by `make fuzz`, never by `make check`): the input is
 * two baseline files separated by the first "\n=====\n" (else cut in half); each side is read as a text or a
 * JSON Lines baseline (whatever its first line says) and the two are aligned and reported as text or JSON, with
 * a JUnit file; the last byte picks the options (--by, --compare-time, context, counts-only, tolerance).
 * Seeds: `--stable` baselines of corpus traces (text and JSON Lines), e.g. with
 *   for f in testdata/s4/(each).etl.gz; do etlconv $f --stable; echo =====; etlconv $f --stable -of jsonl; done */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl_diff.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char paths[2][64];

static void write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || (size && fwrite(data, 1, size, f) != size)) abort();
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!paths[0][0])
        for (int s = 0; s < 2; s++) snprintf(paths[s], sizeof paths[s], "/tmp/fuzz_diff-%ld.%d", (long)getpid(), s);
    static const char sep[] = "\n=====\n";
    size_t cut = size / 2, rest = cut;
    for (size_t i = 0; i + sizeof sep - 1 <= size; i++)
        if (memcmp(data + i, sep, sizeof sep - 1) == 0) {
            cut = i + 1;
            rest = i + sizeof sep - 1;
            break;
        }
    write_file(paths[0], data, cut);
    write_file(paths[1], data + rest, size - rest);
    unsigned mode = size ? data[size - 1] : 0;
    static const char *const ignored[] = {"Handle", "Duration"};
    etl_diff_options o;
    memset(&o, 0, sizeof o);
    o.by = (etl_diff_by)(mode & 3);
    o.compare_time = (mode & 4) != 0;
    o.time_tolerance = 10;
    o.counts_only = (mode & 8) != 0;
    o.context = (mode >> 4) & 3;
    o.count_tolerance = (mode & 0x40) ? 10.0 : 0.0;
    o.ignore_fields = ignored;
    o.ignore_field_count = 2;
    etl_diff *d = etl_diff_new(&o, NULL, NULL);
    if (!d) abort();
    etl_error err;
    if (etl_diff_read_baseline(d, 0, paths[0], &err) == ETL_OK && etl_diff_read_baseline(d, 1, paths[1], &err) == ETL_OK) {
        FILE *out = fopen("/dev/null", "w"), *junit = fopen("/dev/null", "w");
        if (!out || !junit) abort();
        etl_diff_report(d, (mode & 0x80) ? ETL_DIFF_REPORT_JSON : ETL_DIFF_REPORT_TEXT, out, junit, "old", "new", &err);
        fclose(out);
        fclose(junit);
    }
    etl_diff_free(d);
    return 0;
}
