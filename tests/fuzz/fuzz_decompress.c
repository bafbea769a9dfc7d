/* libFuzzer target for the compressed-buffer decompressors (built by `make fuzz`, never by `make check`).
 *
 * Input: byte 0 selects the decompressor (unless FUZZ_DECOMPRESSOR=lz77|huffman|lznt1|buffer is set, which
 * fixes it and byte 0 is ignored), bytes 1..3 give the output capacity (24-bit little-endian,
 * capped at 1 MiB), the rest is the compressed stream. The stream is copied into an exact-size heap block
 * and the output is exact-size too, so ASan sees any over-read or over-write. The plain LZ77 decoder, whose
 * fast paths (whole flag words without input checks, 32-byte literal copies, 8/16-byte match copies) are the
 * riskiest code, is also checked against a byte-at-a-time transcription of the MS-XCA §2.4.4 pseudocode
 * (tests/support/lz77_reference.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl.h"
#include "reader/decompress.h"
#include "util/le.h"

#include "../support/lz77_reference.h"

#define FUZZ_MAX_OUTPUT (1u << 20)
#define FUZZ_HEADER 4

enum { PICK_FROM_INPUT = -1, USE_LZ77, USE_HUFFMAN, USE_LZNT1, USE_BUFFER, USE_COUNT };
static int fixed_choice = PICK_FROM_INPUT;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    static const char *names[USE_COUNT] = {"lz77", "huffman", "lznt1", "buffer"};
    const char *want = getenv("FUZZ_DECOMPRESSOR");
    for (int i = 0; want && i < USE_COUNT; i++)
        if (strcmp(want, names[i]) == 0)
            fixed_choice = i;
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int choice = fixed_choice;
    if (choice == PICK_FROM_INPUT) {
        if (size < 1)
            return 0;
        choice = data[0] % USE_COUNT;
    }
    if (size < FUZZ_HEADER)
        return 0;
    size_t cap = ((size_t)data[1] | (size_t)data[2] << 8 | (size_t)data[3] << 16) % (FUZZ_MAX_OUTPUT + 1);
    size_t in_len = size - FUZZ_HEADER;
    uint8_t *in = malloc(in_len ? in_len : 1);
    uint8_t *out = malloc(cap ? cap : 1);
    if (!in || !out)
        abort();
    memcpy(in, data + FUZZ_HEADER, in_len);
    size_t produced = 0;
    int rc;
    switch (choice) {
    case USE_LZ77: {
        rc = etl_decompress_plain_lz77(in, in_len, out, cap, &produced);
        uint8_t *ref = malloc(cap ? cap : 1);
        size_t ref_produced = 0;
        int ref_rc = reference_plain_lz77(in, in_len, ref, cap, &ref_produced);
        if ((rc == ETL_OK) != (ref_rc == ETL_OK) ||
            (rc == ETL_OK && (produced != ref_produced || memcmp(out, ref, produced) != 0))) {
            fprintf(stderr, "plain LZ77 differs from the reference: rc %d/%d produced %zu/%zu\n", rc, ref_rc,
                    produced, ref_produced);
            abort();
        }
        free(ref);
        break;
    }
    case USE_HUFFMAN:
        rc = etl_decompress_lz77_huffman(in, in_len, out, cap, &produced);
        break;
    case USE_LZNT1:
        rc = etl_decompress_lznt1(in, in_len, out, cap, &produced);
        break;
    default: {
        etl_compression_format used;
        rc = etl_decompress_etl_buffer(in, in_len, out, cap, &used);
        produced = rc == ETL_OK ? cap : 0;
        if (rc == ETL_OK && used == ETL_COMPRESSION_NONE)
            abort();
        break;
    }
    }
    if (rc != ETL_OK && rc != ETL_ERR_DECOMPRESS && rc != ETL_ERR_NOMEM)
        abort();
    if (rc == ETL_OK && produced > cap)
        abort();
    free(out);
    free(in);
    return 0;
}
