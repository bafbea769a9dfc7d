/* Integer values as text: which form an (in-type, out-type) pair prints in, and the digit writers behind it.
 * Shared by the renderer (render.c) and the walker's fast path for fixed-size integers (walk.c), so both
 * print exactly the same text. */
#ifndef ETL_DECODE_RENDER_INT_H
#define ETL_DECODE_RENDER_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

typedef enum etl_int_style {
    ETL_INT_OTHER = 0,  /* a form that needs more than the number (code point, port, IPv4, time): render.c */
    ETL_INT_UNSIGNED,   /* decimal */
    ETL_INT_SIGNED,     /* decimal, sign-extended from the value's size */
    ETL_INT_HEX,        /* 0x + upper-case hex, no padding */
    ETL_INT_HEX8,       /* 0x + at least 8 upper-case hex digits (NTSTATUS, HRESULT, Win32 errors) */
    ETL_INT_BOOLEAN     /* true / false */
} etl_int_style;

/* The form of an integer of `size` bytes (1, 2, 4 or 8) without a value map. ETL_INT_OTHER for out-types whose
 * text is not a plain number at that size; `with_clock`: ETWTIME values can be converted to a time. */
etl_int_style etl_int_style_of(uint16_t in_type, uint16_t out_type, size_t size, int with_clock);

/* The writers: `out` needs room for ETL_INT_TEXT_MAX bytes; they return the length written (no NUL). Inline:
 * they run for most values of a conversion. */
#define ETL_INT_TEXT_MAX 24
extern const char etl_int_digit_pairs[201];  /* "00" "01" ... "99" */
extern const char etl_int_hex_pairs[513];    /* "00" "01" ... "FF" */
extern const uint64_t etl_int_powers_of_ten[20];

static inline size_t etl_int_format_unsigned(char *out, uint64_t v)
{
    if (v < 10) {
        out[0] = (char)('0' + v);
        return 1;
    }
    if (v < 100) { /* most payload numbers are small: a pair, or a digit and a pair, without the length */
        memcpy(out, etl_int_digit_pairs + v * 2, 2);
        return 2;
    }
    if (v < 1000) {
        unsigned q = (unsigned)v / 100;
        out[0] = (char)('0' + q);
        memcpy(out + 1, etl_int_digit_pairs + ((unsigned)v - 100 * q) * 2, 2);
        return 3;
    }
    unsigned t = ((64u - (unsigned)__builtin_clzll(v)) * 1233u) >> 12; /* ~log10, then corrected */
    size_t n = t - (v < etl_int_powers_of_ten[t]) + 1;
    char *p = out + n;
    while (v >= 100) {
        p -= 2;
        memcpy(p, etl_int_digit_pairs + (v % 100) * 2, 2);
        v /= 100;
    }
    if (v >= 10) memcpy(p - 2, etl_int_digit_pairs + v * 2, 2);
    else *--p = (char)('0' + v);
    return n;
}

static inline size_t etl_int_format_signed(char *out, int64_t v)
{
    if (v >= 0) return etl_int_format_unsigned(out, (uint64_t)v);
    out[0] = '-';
    return 1 + etl_int_format_unsigned(out + 1, (uint64_t)0 - (uint64_t)v);
}

/* 0x + upper-case hex, at least min_digits digits (1..16). On x86-64 all 16 nibbles are converted at once
 * (SSE2, part of the base instruction set) after shifting the first digit to the top, and stored as 16 bytes:
 * it writes up to 18 bytes (within ETL_INT_TEXT_MAX); the bytes after the returned length are scratch. */
static inline size_t etl_int_format_hex(char *out, uint64_t v, unsigned min_digits)
{
    unsigned n = (64u - (unsigned)__builtin_clzll(v | 1) + 3) / 4;
    if (n < min_digits) n = min_digits;
    out[0] = '0';
    out[1] = 'x';
#if defined(__SSE2__) && defined(__x86_64__)
    __m128i bytes = _mm_cvtsi64_si128((long long)__builtin_bswap64(v << (4 * (16 - n)))); /* first digit first */
    __m128i low4 = _mm_set1_epi8(0x0F);
    __m128i nibbles = _mm_unpacklo_epi8(_mm_and_si128(_mm_srli_epi16(bytes, 4), low4), _mm_and_si128(bytes, low4));
    __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8('A' - '0' - 10));
    _mm_storeu_si128((__m128i *)(void *)(out + 2), _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters));
#else
    char *p = out + 2 + n;
    for (unsigned left = n; left >= 2; left -= 2, v >>= 8) {
        const char *pair = etl_int_hex_pairs + (v & 0xFF) * 2;
        *--p = pair[1];
        *--p = pair[0];
    }
    if (n & 1) *--p = etl_int_hex_pairs[(v & 0xF) * 2 + 1];
#endif
    return (size_t)n + 2;
}

static inline int64_t etl_int_sign_extend(uint64_t v, size_t size)
{
    if (size >= 8) return (int64_t)v;
    uint64_t bit = (uint64_t)1 << (size * 8 - 1);
    return (int64_t)((v ^ bit) - bit);
}

/* Any style but ETL_INT_OTHER, for a value of `size` bytes read as unsigned. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline size_t etl_int_format(char *out, etl_int_style style, uint64_t v, size_t size)
{
    switch (style) {
    case ETL_INT_SIGNED: return etl_int_format_signed(out, etl_int_sign_extend(v, size));
    case ETL_INT_HEX: return etl_int_format_hex(out, v, 1);
    case ETL_INT_HEX8: return etl_int_format_hex(out, v, 8);
    case ETL_INT_BOOLEAN:
        if (v) {
            memcpy(out, "true", 4);
            return 4;
        }
        memcpy(out, "false", 5);
        return 5;
    default: return etl_int_format_unsigned(out, v);
    }
}

#endif
