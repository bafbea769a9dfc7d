/* Strict JSON reader (see json_parse.h). */
#include "util/json_parse.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATH 4096
#define MAX_DEPTH 128

typedef struct parser {
    const char *s;
    size_t n, i;
    etl_json_leaf_fn fn;
    void *ctx;
    char path[MAX_PATH];
    char *str;          /* decoded string scratch */
    size_t str_cap;
    int depth;
} parser;

static void ws(parser *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n' || p->s[p->i] == '\r'))
        p->i++;
}

static int put_utf8(parser *p, size_t *len, uint32_t cp)
{
    if (*len + 5 > p->str_cap) {
        size_t cap = p->str_cap ? p->str_cap * 2 : 256;
        while (cap < *len + 5) cap *= 2;
        char *q = realloc(p->str, cap);
        if (!q) return -1;
        p->str = q;
        p->str_cap = cap;
    }
    char *o = p->str + *len;
    if (cp < 0x80) { o[0] = (char)cp; *len += 1; }
    else if (cp < 0x800) { o[0] = (char)(0xC0 | cp >> 6); o[1] = (char)(0x80 | (cp & 0x3F)); *len += 2; }
    else if (cp < 0x10000) {
        o[0] = (char)(0xE0 | cp >> 12); o[1] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[2] = (char)(0x80 | (cp & 0x3F));
        *len += 3;
    } else {
        o[0] = (char)(0xF0 | cp >> 18); o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        o[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); o[3] = (char)(0x80 | (cp & 0x3F));
        *len += 4;
    }
    p->str[*len] = '\0';
    return 0;
}

static int hex4(parser *p, uint32_t *v)
{
    if (p->i + 4 > p->n) return -1;
    *v = 0;
    for (int k = 0; k < 4; k++) {
        char c = p->s[p->i++];
        int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0) return -1;
        *v = *v << 4 | (uint32_t)d;
    }
    return 0;
}

/* Parses a string into p->str; raw bytes >= 0x80 must form valid UTF-8. */
static int string(parser *p)
{
    size_t len = 0;
    if (put_utf8(p, &len, 0) != 0) return -1;
    len = 0;
    if (p->i >= p->n || p->s[p->i] != '"') return -1;
    p->i++;
    while (p->i < p->n) {
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') { p->i++; return 0; }
        if (c < 0x20) return -1;
        if (c == '\\') {
            if (++p->i >= p->n) return -1;
            char e = p->s[p->i++];
            uint32_t cp;
            switch (e) {
            case '"': cp = '"'; break; case '\\': cp = '\\'; break; case '/': cp = '/'; break;
            case 'b': cp = '\b'; break; case 'f': cp = '\f'; break; case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break; case 't': cp = '\t'; break;
            case 'u':
                if (hex4(p, &cp) != 0) return -1;
                if (cp >= 0xD800 && cp <= 0xDBFF) {
                    uint32_t lo;
                    if (p->i + 2 > p->n || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u') return -1;
                    p->i += 2;
                    if (hex4(p, &lo) != 0 || lo < 0xDC00 || lo > 0xDFFF) return -1;
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                    return -1;
                }
                break;
            default: return -1;
            }
            if (put_utf8(p, &len, cp) != 0) return -1;
            continue;
        }
        /* raw UTF-8 */
        size_t need = c < 0x80 ? 0 : (c >= 0xC2 && c <= 0xDF) ? 1 : (c >= 0xE0 && c <= 0xEF) ? 2 : (c >= 0xF0 && c <= 0xF4) ? 3 : 99;
        if (need == 99 || p->i + need >= p->n + (need ? 0 : 1)) return -1;
        uint32_t cp = need == 0 ? c : need == 1 ? (c & 0x1Fu) : need == 2 ? (c & 0x0Fu) : (c & 0x07u);
        for (size_t k = 1; k <= need; k++) {
            unsigned char d = (unsigned char)p->s[p->i + k];
            if ((d & 0xC0) != 0x80) return -1;
            cp = cp << 6 | (d & 0x3Fu);
        }
        if ((need == 2 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) || (need == 3 && (cp < 0x10000 || cp > 0x10FFFF)))
            return -1;
        p->i += need + 1;
        if (put_utf8(p, &len, cp) != 0) return -1;
    }
    return -1;
}

static int value(parser *p);

static int with_path(parser *p, const char *suffix, size_t *saved)
{
    *saved = strlen(p->path);
    if (*saved + strlen(suffix) + 1 >= MAX_PATH) return -1;
    strcat(p->path, suffix);
    return 0;
}

static int object(parser *p)
{
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == '}') { p->i++; return 0; }
    for (;;) {
        ws(p);
        if (string(p) != 0) return -1;
        char key[1024];
        snprintf(key, sizeof key, "%s%s", p->path[0] ? "." : "", p->str);
        ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') return -1;
        p->i++;
        size_t saved;
        if (with_path(p, key, &saved) != 0) return -1;
        int rc = value(p);
        p->path[saved] = '\0';
        if (rc != 0) return -1;
        ws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == '}') { p->i++; return 0; }
        return -1;
    }
}

static int array(parser *p)
{
    p->i++;
    ws(p);
    if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 0; }
    for (int index = 0;; index++) {
        char suffix[24];
        snprintf(suffix, sizeof suffix, "[%d]", index);
        size_t saved;
        if (with_path(p, suffix, &saved) != 0) return -1;
        int rc = value(p);
        p->path[saved] = '\0';
        if (rc != 0) return -1;
        ws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == ']') { p->i++; return 0; }
        return -1;
    }
}

static int number(parser *p)
{
    size_t start = p->i;
    if (p->i < p->n && p->s[p->i] == '-') p->i++;
    if (p->i >= p->n) return -1;
    if (p->s[p->i] == '0') p->i++;
    else if (p->s[p->i] >= '1' && p->s[p->i] <= '9') while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    else return -1;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') return -1;
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9') return -1;
        while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9') p->i++;
    }
    char lit[64];
    size_t len = p->i - start < sizeof lit - 1 ? p->i - start : sizeof lit - 1;
    memcpy(lit, p->s + start, len);
    lit[len] = '\0';
    if (p->fn) p->fn(p->path, lit, 0, p->ctx);
    return 0;
}

static int literal(parser *p, const char *word)
{
    size_t len = strlen(word);
    if (p->i + len > p->n || memcmp(p->s + p->i, word, len) != 0) return -1;
    p->i += len;
    if (p->fn) p->fn(p->path, word, 0, p->ctx);
    return 0;
}

static int value(parser *p)
{
    ws(p);
    if (p->i >= p->n || ++p->depth > MAX_DEPTH) return -1;
    int rc;
    switch (p->s[p->i]) {
    case '{': rc = object(p); break;
    case '[': rc = array(p); break;
    case '"':
        rc = string(p);
        if (rc == 0 && p->fn) p->fn(p->path, p->str, 1, p->ctx);
        break;
    case 't': rc = literal(p, "true"); break;
    case 'f': rc = literal(p, "false"); break;
    case 'n': rc = literal(p, "null"); break;
    default: rc = number(p);
    }
    p->depth--;
    return rc;
}

int etl_json_parse(const char *text, size_t length, etl_json_leaf_fn fn, void *ctx)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.s = text;
    p.n = length;
    p.fn = fn;
    p.ctx = ctx;
    int rc = value(&p);
    ws(&p);
    if (rc == 0 && p.i != p.n) rc = -1;
    free(p.str);
    return rc;
}
