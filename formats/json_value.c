/* JSON spelling of the value kinds (src/decode/value_kind.h): integers as numbers, floats as numbers (null
 * for NaN/infinity), booleans as true/false, everything else as strings; mapped integers as their names plus
 * a "NAME.value" member with the number. */
#include "json_value.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "decode/value_kind.h"
#include "fast_text.h"
#include "text_cache.h"

#define MAX_NESTING 64

const unsigned char fmt_json_special[256] = {
    [0] = 1, [1] = 1, [2] = 1, [3] = 1, [4] = 1, [5] = 1, [6] = 1, [7] = 1, [8] = 1, [9] = 1, [10] = 1, [11] = 1,
    [12] = 1, [13] = 1, [14] = 1, [15] = 1, [16] = 1, [17] = 1, [18] = 1, [19] = 1, [20] = 1, [21] = 1, [22] = 1,
    [23] = 1, [24] = 1, [25] = 1, [26] = 1, [27] = 1, [28] = 1, [29] = 1, [30] = 1, [31] = 1, ['"'] = 1, ['\\'] = 1,
#define R16(x) [x] = 1, [x + 1] = 1, [x + 2] = 1, [x + 3] = 1, [x + 4] = 1, [x + 5] = 1, [x + 6] = 1, [x + 7] = 1, \
    [x + 8] = 1, [x + 9] = 1, [x + 10] = 1, [x + 11] = 1, [x + 12] = 1, [x + 13] = 1, [x + 14] = 1, [x + 15] = 1
    R16(0x80), R16(0x90), R16(0xA0), R16(0xB0), R16(0xC0), R16(0xD0), R16(0xE0), R16(0xF0),
#undef R16
};

#define ESCAPE_GROWTH 6

/* The SWAR test of fmt_json_special: controls (NUL among them), '"', '\\' and non-ASCII, 8 bytes at a time. */
static inline uint64_t special8(uint64_t x)
{
    return fmt_swar_nonprint(x) | fmt_swar_byte(x, '"') | fmt_swar_byte(x, '\\');
}

/* Escapes [s, limit) at *out (room: ESCAPE_GROWTH bytes per input byte, \\u00XX for a control, + 8); a UTF-8
 * sequence that starts before limit is read up to `end` (the text's end), so cutting a text into pieces
 * changes nothing. Returns where it stopped (>= limit). Clean text is copied 16 (SSE2) or 8 bytes at a time
 * while it is checked (the room allows writing a whole block past a special byte: it is overwritten). */
static const unsigned char *escape_some(char **out, const unsigned char *s, const unsigned char *limit,
                                        const unsigned char *end)
{
    static const char hex[] = "0123456789ABCDEF";
    char *p = *out;
    for (;;) {
        uint64_t x, m;
#if defined(__SSE2__)
        while (limit - s >= 16) { /* the same test 16 bytes at a time (signed: bytes >= 0x80 are below 0x20) */
            __m128i v = _mm_loadu_si128((const __m128i *)(const void *)s);
            _mm_storeu_si128((__m128i *)(void *)p, v);
            __m128i hit = _mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8(0x20)),
                                       _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('"')),
                                                    _mm_cmpeq_epi8(v, _mm_set1_epi8('\\'))));
            unsigned bits = (unsigned)_mm_movemask_epi8(hit);
            if (bits) {
                unsigned k = (unsigned)__builtin_ctz(bits);
                s += k, p += k;
                goto hit;
            }
            s += 16, p += 16;
        }
#endif
        while (limit - s >= 8) {
            memcpy(&x, s, 8);
            memcpy(p, &x, 8);
            if ((m = special8(x)) != 0) { /* the lowest flag is a true hit */
                unsigned k = (unsigned)__builtin_ctzll(m) >> 3;
                s += k, p += k;
                goto hit;
            }
            s += 8, p += 8;
        }
        while (s < limit && !fmt_json_special[*s]) *p++ = (char)*s++;
        if (s == limit) break;
    hit:;
        unsigned c = *s;
        if (c < 0x80) {
            s++;
            *p++ = '\\';
            switch (c) {
            case '"': *p++ = '"'; break;
            case '\\': *p++ = '\\'; break;
            case '\n': *p++ = 'n'; break;
            case '\r':
                *p++ = 'r';
                if (s < limit && *s == '\n') { /* message lines end in CRLF: one step */
                    FMT_W_LIT(p, "\\n");
                    s++;
                }
                break;
            case '\t': *p++ = 't'; break;
            case '\b': *p++ = 'b'; break;
            case '\f': *p++ = 'f'; break;
            default: /* another control character: \u00XX */
                FMT_W_LIT(p, "u00");
                *p++ = hex[c >> 4];
                *p++ = hex[c & 0xF];
            }
        } else {
            uint32_t cp;  /* a UTF-8 sequence is at most 4 bytes */
            size_t used = etl_utf8_decode(s, end - s < 4 ? (size_t)(end - s) : 4, &cp);
            if (cp == 0xFFFD) /* malformed (or U+FFFD itself): its UTF-8 */
                FMT_W_LIT(p, "\xEF\xBF\xBD");
            else
                p = fmt_w_mem(p, (const char *)s, used);
            s += used;
        }
        if (s >= limit) break;
    }
    *out = p;
    return s;
}

/* The n bytes at v (n <= ESCAPE_PIECE) escaped at p (room: ESCAPE_GROWTH * n + 8); returns the end. Not
 * inlined: the caller's write pointer stays in a register (escape_some takes its address). */
__attribute__((noinline)) static char *escape_whole(char *p, const char *v, size_t n)
{
    const unsigned char *s = (const unsigned char *)v;
    escape_some(&p, s, s + n, s + n);
    return p;
}

/* Longer texts are escaped in pieces of this size (the line buffer grows by at most 6 times it). */
#define ESCAPE_PIECE 65536u

/* The n bytes of value (no NUL among them) as a JSON string, quotes included. */
static void put_string_n(fmt_buf *tb, const char *value, size_t n)
{
    const unsigned char *s = (const unsigned char *)value, *end = s + n;
    char *p = fmt_put_begin(tb, (n < ESCAPE_PIECE ? n : ESCAPE_PIECE) * ESCAPE_GROWTH + 8);
    if (!p) return;
    *p++ = '"';
    for (;;) {
        s = escape_some(&p, s, (size_t)(end - s) > ESCAPE_PIECE ? s + ESCAPE_PIECE : end, end);
        if (s == end) break;
        fmt_put_end(tb, p);
        size_t left = (size_t)(end - s);
        if (!(p = fmt_put_begin(tb, (left < ESCAPE_PIECE ? left : ESCAPE_PIECE) * ESCAPE_GROWTH + 8)))
            return;
    }
    *p++ = '"';
    fmt_put_end(tb, p);
}

void fmt_json_string(fmt_buf *tb, const char *value)
{
    if (!value) value = "";
    int clean;
    size_t n = fmt_json_scan(value, &clean);  /* one pass: length and "as is" */
    if (!clean) {
        put_string_n(tb, value, n);
        return;
    }
    char *p = fmt_put_begin(tb, n + 18); /* fmt_w_short writes up to 16 bytes */
    if (!p) return;
    *p++ = '"';
    p = fmt_w_short(p, value, n);
    *p++ = '"';
    fmt_put_end(tb, p);
}

void fmt_json_u64(fmt_buf *tb, uint64_t value, int as_string)
{
    char num[FMT_INT_CAP];
    if (as_string) etl_textbuf_putc(tb, '"');
    etl_textbuf_puts(tb, fmt_u64(value, num));
    if (as_string) etl_textbuf_putc(tb, '"');
}

static void put_mapped_number(fmt_buf *tb, const etl_decoded_event *ev, size_t i, int wide_as_string)
{
    uint64_t n;
    if (ev->field_bytes && etl_value_mapped_number(&ev->field_bytes[i], &n))
        fmt_json_u64(tb, n, wide_as_string && etl_value_is_wide(ev->fields[i].in_type));
    else
        etl_textbuf_puts(tb, "null");
}

void fmt_json_key(fmt_buf *tb, const char *name)
{
    fmt_json_string(tb, name);
    etl_textbuf_putc(tb, ':');
}

static void put_key(fmt_buf *tb, const char *name, const char *suffix)
{
    if (!suffix) {
        fmt_json_key(tb, name);
        return;
    }
    fmt_json_string(tb, name);
    tb->length--;  /* "NAME.value": the closing quote moves after the suffix */
    etl_textbuf_puts(tb, suffix);
    FMT_PUT_LIT(tb, "\":");
}

/* The length of an integer's text when etl_value_integer_text accepts it (decimal, no leading zero), else 0;
 * one pass instead of that check and a strlen (each byte read only after the one before it was not NUL). */
__attribute__((always_inline)) static inline size_t integer_length(const char *s)
{
    if (!s) return 0;
    const char *start = s + (s[0] == '-'), *p = start;
    if (*p == '0') return p[1] ? 0 : (size_t)(p + 1 - s);
    for (;; p += 2) {
        if ((unsigned)(p[0] - '0') >= 10) break;
        if ((unsigned)(p[1] - '0') >= 10) {
            p++;
            break;
        }
    }
    return *p || p == start ? 0 : (size_t)(p - s);
}

#if defined(__SSE2__)
/* One bit per byte of the 16 bytes at the 16-aligned `block` that is not a decimal digit (NUL among them). */
__attribute__((no_sanitize_address)) static inline unsigned non_digit16(const void *block)
{
    __m128i v = _mm_load_si128((const __m128i *)block);
    return (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(v, _mm_set1_epi8('0')),
                                                    _mm_cmpgt_epi8(v, _mm_set1_epi8('9'))));
}

/* integer_length's answer with the digits found by the aligned 16-byte scan (fmt_scan16). */
__attribute__((no_sanitize_address)) static inline size_t integer_length_scan(const char *s)
{
    if (!s) return 0;
    const char *start = s + (s[0] == '-');
    if (*start == '0') return start[1] ? 0 : (size_t)(start + 1 - s);
    int digits;
    size_t n = fmt_scan16(start, &digits, non_digit16);
    return digits && n ? (size_t)(start - s) + n : 0;
}
#else
#define integer_length_scan integer_length
#endif

/* Kinds by in/out type for fields without a value map (etl_value_kind_of's answers, asked once): the kind is
 * needed for every value and the rule's chain of tests showed in profiles. */
#define KIND_IN_TYPES 32
#define KIND_OUT_TYPES 64
static unsigned char kind_table[KIND_IN_TYPES][KIND_OUT_TYPES];
static pthread_once_t kind_table_once = PTHREAD_ONCE_INIT;
static atomic_int kind_table_ready;  /* set (release) once the table is filled: the usual check is one load */

static void fill_kind_table(void)
{
    for (uint16_t in = 0; in < KIND_IN_TYPES; in++)
        for (uint16_t out = 0; out < KIND_OUT_TYPES; out++)
            kind_table[in][out] = (unsigned char)etl_value_kind_of(in, out, NULL);
    atomic_store_explicit(&kind_table_ready, 1, memory_order_release);
}

static inline void kind_table_ensure(void)
{
    if (!atomic_load_explicit(&kind_table_ready, memory_order_acquire)) pthread_once(&kind_table_once, fill_kind_table);
}

static inline etl_value_kind kind_of(const etl_field *f)
{
    const etl_map_info *map = f->property ? f->property->map : NULL;
    if (f->in_type < KIND_IN_TYPES && f->out_type < KIND_OUT_TYPES && !(map && map->entry_count))
        return (etl_value_kind)kind_table[f->in_type][f->out_type];
    return etl_value_kind_of(f->in_type, f->out_type, map);
}

/* put_value's less common cases: a string that needs escaping, a float, a boolean. */
static void put_value_other(fmt_buf *tb, int comma, const char *key, size_t key_length, const etl_field *f,
                            etl_value_kind kind, size_t scanned)
{
    char *p = fmt_put_begin(tb, key_length + 1);
    if (!p) return;
    if (comma) *p++ = ',';
    fmt_put_end(tb, fmt_w_mem(p, key, key_length));
    if (kind == ETL_VALUE_FLOAT)
        etl_textbuf_puts(tb, etl_value_is_json_number(f->value) ? f->value : "null");
    else if (kind == ETL_VALUE_BOOLEAN)
        etl_textbuf_puts(tb, f->value && (strcmp(f->value, "true") == 0 || strcmp(f->value, "false") == 0)
                                 ? f->value : "null");
    else /* the first `scanned` bytes need no escaping */
        put_string_n(tb, f->value, scanned + strlen(f->value + scanned));
}

/* [,]KEY VALUE: the separator (comma), the member key text (key_length bytes, 0 in an array) and the value
 * of f in its kind; integers and strings that need no escaping (most values) through one reservation. */
__attribute__((always_inline)) static inline void put_value(fmt_buf *tb, int comma, const char *key,
                                                            size_t key_length, const etl_field *f,
                                                            etl_value_kind kind, int wide_as_string)
{
    char *p;
    if (kind == ETL_VALUE_INTEGER) {
        size_t n = integer_length(f->value);
        int quoted = wide_as_string && n && etl_value_is_wide(f->in_type);
        if (!(p = fmt_put_begin(tb, key_length + n + 8))) return;
        if (comma) *p++ = ',';
        p = fmt_w_mem(p, key, key_length);
        if (!n) {
            FMT_W_LIT(p, "null");  /* a value that did not fit its type */
        } else {
            if (quoted) *p++ = '"';
            p = fmt_w_mem(p, f->value, n);
            if (quoted) *p++ = '"';
        }
        fmt_put_end(tb, p);
        return;
    }
    if (kind == ETL_VALUE_FLOAT || kind == ETL_VALUE_BOOLEAN) {
        put_value_other(tb, comma, key, key_length, f, kind, 0);
        return;
    }
    /* a string (mapped values: their names) */
    const char *v = f->value ? f->value : "";
    size_t n = fmt_json_clean_length(v);
    if (v[n]) {
        put_value_other(tb, comma, key, key_length, f, kind, n);
        return;
    }
    if (!(p = fmt_put_begin(tb, key_length + n + 4))) return;
    if (comma) *p++ = ',';
    p = fmt_w_mem(p, key, key_length);
    *p++ = '"';
    p = fmt_w_mem(p, v, n);
    *p++ = '"';
    fmt_put_end(tb, p);
}

/* A value's text as w_value measured it: with SSE2 its first 16 bytes, kept when they hold all of it, so that
 * the scan's load is also the copy. */
typedef struct value_head {
#if defined(__SSE2__)
    __m128i bytes;
#endif
    int whole; /* bytes holds the whole value (fewer than 16 bytes) */
} value_head;

#if defined(__SSE2__)
/* The 16 bytes at text in h->bytes when they lie in one 4 KiB block (readable whatever follows the NUL, like
 * fmt_w_short: hence the attribute); 0 when they do not. */
__attribute__((no_sanitize_address)) static inline int load_head(const char *text, value_head *h)
{
    if (((uintptr_t)text & 4095) > 4096 - 16) return 0;
    h->bytes = _mm_loadu_si128((const __m128i *)(const void *)text);
    return 1;
}
#endif

/* integer_length of s, from its first 16 bytes when they hold it. */
__attribute__((always_inline)) static inline size_t integer_value(const char *s, value_head *h)
{
    h->whole = 0;
#if defined(__SSE2__)
    if (s && load_head(s, h)) {
        __m128i x = h->bytes;
        unsigned minus = (unsigned)(_mm_cvtsi128_si32(x) & 0xFF) == '-';
        unsigned other = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8('0')),
                                                                  _mm_cmpgt_epi8(x, _mm_set1_epi8('9'))));
        other &= ~minus; /* bit 0: the sign */
        if (other) {     /* else 16 digits or more: the scan below */
            unsigned k = (unsigned)__builtin_ctz(other);
            unsigned nul = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(x, _mm_setzero_si128()));
            if (!(nul >> k & 1) || k == minus || (s[minus] == '0' && k != minus + 1)) return 0;
            h->whole = 1;
            return k;
        }
    }
#endif
    return integer_length_scan(s);
}

/* The length of string v, and in *clean whether it is copied as is (fmt_json_scan's answers). */
__attribute__((always_inline)) static inline size_t string_value(const char *v, int *clean, value_head *h)
{
    h->whole = 0;
#if defined(__SSE2__)
    if (load_head(v, h)) {
        __m128i x = h->bytes;
        unsigned special = (unsigned)_mm_movemask_epi8(
            _mm_or_si128(_mm_cmplt_epi8(x, _mm_set1_epi8(0x20)),
                         _mm_or_si128(_mm_cmpeq_epi8(x, _mm_set1_epi8('"')), _mm_cmpeq_epi8(x, _mm_set1_epi8('\\')))));
        if (special) { /* else 16 clean bytes or more: the scan below */
            size_t k = (size_t)__builtin_ctz(special);
            *clean = h->whole = v[k] == 0;
            return *clean ? k : k + strlen(v + k);
        }
    }
#endif
    return fmt_json_scan(v, clean);
}

/* The n bytes of v at p (up to 16 bytes written when n is smaller): from h when it holds them. */
__attribute__((always_inline)) static inline char *w_head(char *p, const value_head *h, const char *v, size_t n)
{
#if defined(__SSE2__)
    if (h->whole) {
        _mm_storeu_si128((__m128i *)(void *)p, h->bytes);
        return p + n;
    }
#endif
    return fmt_w_short(p, v, n);
}

/* Room for a member besides its value and twice its key: comma, what the 16-byte block copies of the key
 * write past it (up to 32 bytes each), quotes, the ",\".value\":" of a mapped value and its number, and a
 * closing bracket. */
#define MEMBER_ROOM 128
/* The room reserved at once for the members (grown as needed): most events fit, one reserve per event. */
#define MEMBERS_ROOM 4096

/* One value of kind `kind` at p, after [,] and the member key (key_length bytes of cached text, padded:
 * FMT_STATIC_TEXT_PAD; none when key_length is 0), with room checked against *limit; returns the end, or
 * NULL when memory ran out. Strings are measured and checked in one scan and copied as is when clean, else
 * escaped in place (escape_some: the same bytes as put_string_n); floats and booleans (few) go through the
 * buffer's own appends. */
__attribute__((always_inline)) static inline char *w_value(fmt_buf *tb, char *p, char **limit, int comma,
                                                          const char *key, size_t key_length, const etl_field *f,
                                                          etl_value_kind kind, int wide_as_string)
{
    size_t n, need;
    int clean = 1, quoted = 0;
    const char *v = f->value ? f->value : "";
    value_head head = {0};  /* gcc -Os cannot tell that `whole` set means `bytes` set */
    if (kind == ETL_VALUE_INTEGER) {
        n = integer_value(f->value, &head);
        quoted = wide_as_string && n && etl_value_is_wide(f->in_type);
        need = n + 16; /* fmt_w_short */
    } else if (kind == ETL_VALUE_FLOAT || kind == ETL_VALUE_BOOLEAN) {
        fmt_put_end(tb, p);
        put_value_other(tb, comma, key, key_length, f, kind, 0);
        return fmt_room(tb, MEMBERS_ROOM, limit);
    } else {
        n = string_value(v, &clean, &head);
        if (!clean && n > ESCAPE_PIECE) { /* a long text: in pieces */
            fmt_put_end(tb, p);
            put_value_other(tb, comma, key, key_length, f, kind, 0);
            return fmt_room(tb, MEMBERS_ROOM, limit);
        }
        need = clean ? n + 16 : n * ESCAPE_GROWTH + 8;
    }
    need += 2 * key_length + MEMBER_ROOM; /* a mapped value's number is keyed by the key again */
    if ((size_t)(*limit - p) <= need) {
        fmt_put_end(tb, p);
        if (!(p = fmt_room(tb, need + MEMBERS_ROOM, limit))) return NULL;
    }
    if (comma) *p++ = ',';
    if (key_length) p = fmt_w_padded(p, key, key_length);
    if (kind == ETL_VALUE_INTEGER) {
        if (!n) {
            FMT_W_LIT(p, "null");  /* a value that did not fit its type */
        } else {
            if (quoted) *p++ = '"';
            p = w_head(p, &head, f->value, n);
            if (quoted) *p++ = '"';
        }
        return p;
    }
    *p++ = '"';
    if (clean) {
        p = w_head(p, &head, v, n);
    } else {
        p = escape_whole(p, v, n);
    }
    *p++ = '"';
    return p;
}

/* The members of the usual event, fmt_json_fields' fast path: top-level values and arrays of values whose
 * keys are cached, through one local pointer. Stops at the first field it does not take (a struct, an array
 * of structs or of mapped values, a key not cached) and returns its index; *members counts the members
 * written. put_range writes the same text for these fields (tests/test_json_escape.c compares them). */
static size_t put_cached(fmt_buf *tb, const etl_decoded_event *ev, size_t stop, int flags,
                         const fmt_static_names *names, size_t *members)
{
    int wide_as_string = (flags & FMT_JSON_WIDE_STRINGS) != 0, map_numbers = !(flags & FMT_JSON_NO_MAP_NUMBERS);
    const fmt_static_names keys = *names;  /* a local copy: the text written cannot alias it */
    const etl_field *fields = ev->fields;
    size_t i = 0, count = 0;
    char *limit, *p = fmt_room(tb, MEMBERS_ROOM, &limit);
    while (p && i < stop) {
        const etl_field *f = &fields[i];
        const char *key;
        size_t key_length;
        if ((f->kind != ETL_FIELD_VALUE && f->kind != ETL_FIELD_ARRAY_BEGIN) ||
            (key = fmt_static_name(&keys, f, &key_length)) == NULL)
            break;
        if (f->kind == ETL_FIELD_ARRAY_BEGIN) {
            size_t end = i + 1;
            while (end < stop && fields[end].kind == ETL_FIELD_VALUE) end++;
            if (end == stop || fields[end].kind != ETL_FIELD_ARRAY_END ||
                (map_numbers && fields[end].property &&
                 etl_property_value_kind(fields[end].property) == ETL_VALUE_MAPPED))
                break;
            if ((size_t)(limit - p) <= key_length + MEMBER_ROOM) {
                fmt_put_end(tb, p);
                if (!(p = fmt_room(tb, key_length + MEMBER_ROOM + MEMBERS_ROOM, &limit))) break;
            }
            if (count) *p++ = ',';
            p = fmt_w_padded(p, key, key_length);
            *p++ = '[';
            /* the elements of one array share property and types: the kind is asked once */
            const etl_field *last = NULL;
            etl_value_kind kind = ETL_VALUE_STRING;
            for (size_t k = i + 1; p && k < end; k++) {
                const etl_field *e = &fields[k];
                if (!last || e->property != last->property || e->in_type != last->in_type ||
                    e->out_type != last->out_type)
                    kind = kind_of(last = e);
                p = w_value(tb, p, &limit, k > i + 1, NULL, 0, e, kind, wide_as_string);
            }
            if (!p) break;
            *p++ = ']'; /* MEMBER_ROOM is always left after a value */
            i = end + 1;
            count++;
            continue;
        }
        etl_value_kind kind = kind_of(f);
        p = w_value(tb, p, &limit, count != 0, key, key_length, f, kind, wide_as_string);
        if (p && kind == ETL_VALUE_MAPPED && map_numbers) {
            /* "NAME.value":NUMBER, the key from the cached "NAME": without its last two bytes */
            uint64_t number;
            *p++ = ',';
            p = fmt_w_padded(p, key, key_length - 2);
            FMT_W_LIT(p, ".value\":");
            if (ev->field_bytes && etl_value_mapped_number(&ev->field_bytes[i], &number)) {
                int quoted = wide_as_string && etl_value_is_wide(f->in_type);
                if (quoted) *p++ = '"';
                p = fmt_w_u64(p, number);
                if (quoted) *p++ = '"';
            } else {
                FMT_W_LIT(p, "null");
            }
        }
        i++;
        count++;
    }
    if (p) fmt_put_end(tb, p);
    *members = count;
    return p ? i : stop;
}

/* The walk behind fmt_json_members (root '{': members) and fmt_json_value (root 0: one bare value). */
static size_t put_range(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int root, int flags,
                        const fmt_static_names *names, size_t members)
{
    int wide_as_string = (flags & FMT_JSON_WIDE_STRINGS) != 0, map_numbers = !(flags & FMT_JSON_NO_MAP_NUMBERS);
    char open[MAX_NESTING];  /* '{' or '[' per open container */
    int fresh[MAX_NESTING];  /* nothing written in it yet */
    size_t begin_at[MAX_NESTING];
    int top = 0, skipped = 0;
    kind_table_ensure();
    open[0] = (char)root;
    begin_at[0] = first;
    size_t i = first, stop = end < ev->field_count ? end : ev->field_count;
    fresh[0] = members == 0;
    for (; i < stop; i++) {
        const etl_field *f = &ev->fields[i];
        int begins = f->kind == ETL_FIELD_STRUCT_BEGIN || f->kind == ETL_FIELD_ARRAY_BEGIN;
        if (f->kind == ETL_FIELD_STRUCT_END || f->kind == ETL_FIELD_ARRAY_END) {
            char want = f->kind == ETL_FIELD_STRUCT_END ? '{' : '[';
            if (skipped > 0) {
                skipped--;
                continue;
            }
            if (top == 0 || open[top] != want) continue;
            etl_textbuf_putc(tb, want == '{' ? '}' : ']');
            top--;
            if (want == '[' && open[top] == '{' && map_numbers && f->property &&
                etl_property_value_kind(f->property) == ETL_VALUE_MAPPED) {
                /* the numbers of an array of mapped values, as a sibling array */
                etl_textbuf_putc(tb, ',');
                put_key(tb, f->name, ".value");
                etl_textbuf_putc(tb, '[');
                int n = 0;
                for (size_t k = begin_at[top + 1] + 1; k < i; k++) {
                    if (ev->fields[k].kind != ETL_FIELD_VALUE) continue;
                    if (n++) etl_textbuf_putc(tb, ',');
                    put_mapped_number(tb, ev, k, wide_as_string);
                }
                etl_textbuf_putc(tb, ']');
            }
            if (top == 0 && root == 0) break;
            continue;
        }
        if (begins && (skipped > 0 || top + 1 >= MAX_NESTING)) {
            skipped++;  /* too deep: its members are written flat into the current container */
            continue;
        }
        if (top == 0 && root == 0 && !fresh[0]) break;  /* one bare value only */
        int comma = !fresh[top];
        fresh[top] = 0;
        if (top == 0) members++;
        if (begins) {
            if (comma) etl_textbuf_putc(tb, ',');
            if (open[top] == '{') put_key(tb, f->name, NULL);
            top++;
            open[top] = f->kind == ETL_FIELD_STRUCT_BEGIN ? '{' : '[';
            fresh[top] = 1;
            begin_at[top] = i;
            etl_textbuf_putc(tb, open[top]);
            if (open[top] == '[') { /* its elements: values without keys, in a short loop */
                const etl_field *fields = ev->fields, *last = NULL;
                etl_value_kind kind = ETL_VALUE_STRING;
                for (; i + 1 < stop && fields[i + 1].kind == ETL_FIELD_VALUE; i++) {
                    const etl_field *f = &fields[i + 1];
                    /* the elements of one array share property and types: the kind is asked once */
                    if (!last || f->property != last->property || f->in_type != last->in_type ||
                        f->out_type != last->out_type)
                        kind = kind_of(last = f);
                    put_value(tb, !fresh[top], NULL, 0, f, kind, wide_as_string);
                    fresh[top] = 0;
                }
            }
            continue;
        }
        etl_value_kind kind = kind_of(f);
        const char *key = NULL;
        size_t key_length = 0;
        if (open[top] == '{' && !(names && (key = fmt_static_name(names, f, &key_length)) != NULL)) {
            if (comma) etl_textbuf_putc(tb, ',');
            comma = 0;
            put_key(tb, f->name, NULL);
        }
        put_value(tb, comma, key, key_length, f, kind, wide_as_string);
        if (kind == ETL_VALUE_MAPPED && open[top] == '{' && map_numbers) {
            etl_textbuf_putc(tb, ',');
            if (key) { /* "NAME.value": the cached "NAME": without its last two bytes */
                etl_textbuf_append(tb, key, key_length - 2);
                FMT_PUT_LIT(tb, ".value\":");
            } else {
                put_key(tb, f->name, ".value");
            }
            put_mapped_number(tb, ev, i, wide_as_string);
        }
        if (top == 0 && root == 0) break;
    }
    while (top > 0) etl_textbuf_putc(tb, open[top--] == '{' ? '}' : ']');
    return members;
}

size_t fmt_json_members(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags)
{
    return put_range(tb, ev, first, end, '{', flags, NULL, 0);
}

size_t fmt_json_fields(fmt_buf *tb, const etl_decoded_event *ev, int flags, const fmt_static_text *keys)
{
    fmt_static_names names = fmt_static_names_of(keys, ev);
    if (!names.properties) return put_range(tb, ev, 0, ev->field_count, '{', flags, NULL, 0);
    kind_table_ensure();
    size_t members, i = put_cached(tb, ev, ev->field_count, flags, &names, &members);
    /* the rest (a struct, an array of structs...) key by key, cached keys where they fit */
    return i < ev->field_count ? put_range(tb, ev, i, ev->field_count, '{', flags, &names, members) : members;
}

void fmt_json_value(fmt_buf *tb, const etl_decoded_event *ev, size_t first, size_t end, int flags)
{
    size_t before = tb->length;
    put_range(tb, ev, first, end, 0, flags, NULL, 0);
    if (tb->length == before) etl_textbuf_puts(tb, "null");
}
