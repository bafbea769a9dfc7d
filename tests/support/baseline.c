/* PerfView baseline parsing and value normalisation; see baseline.h. */
#include "support/baseline.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_range(const char *start, size_t n)
{
    char *s = malloc(n + 1);
    if (!s) abort();
    memcpy(s, start, n);
    s[n] = '\0';
    return s;
}

static int fail(char *err, size_t errlen, const char *msg)
{
    if (err && errlen) snprintf(err, errlen, "%s", msg);
    return -1;
}

/* "8,184.674" -> 8184674 µs; exactly three decimals. */
static int parse_time(const char *s, size_t n, int64_t *out)
{
    int64_t v = 0;
    int decimals = -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == ',') continue;
        if (c == '.') {
            if (decimals >= 0) return -1;
            decimals = 0;
            continue;
        }
        if (!isdigit((unsigned char)c)) return -1;
        v = v * 10 + (c - '0');
        if (decimals >= 0) decimals++;
    }
    if (decimals != 3) return -1;
    *out = v;
    return 0;
}

static int parse_long(const char *s, long *out)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s) return -1;
    *out = v;
    return 0;
}

/* Does `p` start a "Name=" token? */
static int starts_field(const char *p)
{
    if (!(isalpha((unsigned char)*p) || *p == '_')) return 0;
    while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
    return *p == '=';
}

/* Finds the end of the value starting at p: the next "; " followed by a field name, or the final "; ". */
static const char *value_end(const char *p)
{
    for (const char *q = strstr(p, "; "); q; q = strstr(q + 1, "; ")) {
        if (q[2] == '\0' || starts_field(q + 2)) return q;
    }
    return NULL;
}

static int header_field(const char **pp, const char *name, char **value, char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (strncmp(*pp, name, n) != 0 || (*pp)[n] != '=') {
        char msg[96];
        snprintf(msg, sizeof msg, "expected %s= at \"%.20s\"", name, *pp);
        return fail(err, errlen, msg);
    }
    const char *v = *pp + n + 1;
    const char *e = strstr(v, "; ");
    if (!e) return fail(err, errlen, "unterminated header field");
    *value = dup_range(v, (size_t)(e - v));
    *pp = e + 2;
    return 0;
}

int baseline_parse_event_line(const char *line, baseline_event *ev, char *err, size_t errlen)
{
    memset(ev, 0, sizeof *ev);
    if (strncmp(line, "EVENT ", 6) != 0) return fail(err, errlen, "not an EVENT line");
    const char *p = line + 6;
    const char *colon = strstr(p, ": ");
    if (!colon || parse_time(p, (size_t)(colon - p), &ev->time_us) != 0) return fail(err, errlen, "bad time");
    p = colon + 2;
    const char *pid = strstr(p, " PID=");
    if (!pid) return fail(err, errlen, "no PID=");
    const char *slash = memchr(p, '/', (size_t)(pid - p));
    if (!slash) return fail(err, errlen, "no Provider/Event");
    ev->provider = dup_range(p, (size_t)(slash - p));
    ev->event_name = dup_range(slash + 1, (size_t)(pid - slash - 1));
    p = pid + 1;
    char *v = NULL;
    int rc = header_field(&p, "PID", &v, err, errlen);
    if (rc == 0) rc = parse_long(v, &ev->pid);
    free(v);
    if (rc == 0) rc = header_field(&p, "TID", &v, err, errlen);
    if (rc == 0) { rc = parse_long(v, &ev->tid); free(v); }
    if (rc == 0) {
        /* PName ends at "; ProceNum=" (a process name could hold "; ") */
        const char *e = strstr(p, "; ProceNum=");
        if (strncmp(p, "PName=", 6) != 0 || !e) rc = fail(err, errlen, "bad PName");
        else { ev->pname = dup_range(p + 6, (size_t)(e - p - 6)); p = e + 2; }
    }
    long n = 0;
    if (rc == 0) rc = header_field(&p, "ProceNum", &v, err, errlen);
    if (rc == 0) { rc = parse_long(v, &n); ev->proc_num = (int)n; free(v); }
    if (rc == 0) rc = header_field(&p, "DataLen", &v, err, errlen);
    if (rc == 0) { rc = parse_long(v, &ev->data_len); free(v); }
    if (rc != 0) { baseline_event_free(ev); return -1; }

    size_t cap = 0;
    while (*p) {
        if (!starts_field(p)) { baseline_event_free(ev); return fail(err, errlen, "bad field name"); }
        const char *eq = strchr(p, '=');
        const char *end = value_end(eq + 1);
        if (!end) { baseline_event_free(ev); return fail(err, errlen, "field without \"; \""); }
        if (ev->field_count == cap) {
            cap = cap ? cap * 2 : 16;
            ev->fields = realloc(ev->fields, cap * sizeof *ev->fields);
            if (!ev->fields) abort();
        }
        baseline_field *f = &ev->fields[ev->field_count++];
        f->name = dup_range(p, (size_t)(eq - p));
        f->value = dup_range(eq + 1, (size_t)(end - eq - 1));
        p = end + 2;
    }
    if (ev->field_count && strcmp(ev->fields[ev->field_count - 1].name, "ContainerID") == 0) {
        baseline_field *f = &ev->fields[--ev->field_count];
        ev->container_id = f->value;
        free(f->name);
    }
    return 0;
}

void baseline_event_free(baseline_event *ev)
{
    for (size_t i = 0; i < ev->field_count; i++) {
        free(ev->fields[i].name);
        free(ev->fields[i].value);
    }
    free(ev->fields);
    free(ev->provider);
    free(ev->event_name);
    free(ev->pname);
    free(ev->container_id);
    memset(ev, 0, sizeof *ev);
}

int baseline_load(const char *path, baseline *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "r");
    if (!f) {
        if (err) snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    size_t ecap = 0, ccap = 0, lcap = 0;
    char *line = NULL;
    ssize_t len;
    int lineno = 0, rc = 0;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        lineno++;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len == 0) continue;
        char msg[160];
        if (strncmp(line, "EVENT ", 6) == 0) {
            if (out->event_count == ecap) {
                ecap = ecap ? ecap * 2 : 64;
                out->events = realloc(out->events, ecap * sizeof *out->events);
                if (!out->events) abort();
            }
            baseline_event *ev = &out->events[out->event_count];
            if (baseline_parse_event_line(line, ev, msg, sizeof msg) != 0) {
                if (err) snprintf(err, errlen, "%s:%d: %s", path, lineno, msg);
                rc = -1;
                break;
            }
            ev->line = lineno;
            out->event_count++;
        } else if (strncmp(line, "COUNT ", 6) == 0) {
            char *colon = strrchr(line, ':');
            long n;
            if (!colon || parse_long(colon + 1, &n) != 0 || n < 0) {
                if (err) snprintf(err, errlen, "%s:%d: bad COUNT line", path, lineno);
                rc = -1;
                break;
            }
            if (out->count_count == ccap) {
                ccap = ccap ? ccap * 2 : 64;
                out->counts = realloc(out->counts, ccap * sizeof *out->counts);
                if (!out->counts) abort();
            }
            out->counts[out->count_count].key = dup_range(line + 6, (size_t)(colon - line - 6));
            out->counts[out->count_count++].count = (unsigned long)n;
        } else {
            if (err) snprintf(err, errlen, "%s:%d: neither EVENT nor COUNT", path, lineno);
            rc = -1;
            break;
        }
    }
    free(line);
    fclose(f);
    if (rc != 0) baseline_free(out);
    return rc;
}

void baseline_free(baseline *b)
{
    for (size_t i = 0; i < b->event_count; i++) baseline_event_free(&b->events[i]);
    for (size_t i = 0; i < b->count_count; i++) free(b->counts[i].key);
    free(b->events);
    free(b->counts);
    memset(b, 0, sizeof *b);
}

const baseline_field *baseline_find_field(const baseline_event *ev, const char *name)
{
    for (size_t i = 0; i < ev->field_count; i++)
        if (strcmp(ev->fields[i].name, name) == 0) return &ev->fields[i];
    return NULL;
}

/* ---- normalisation ------------------------------------------------------------------------------------ */

/* UTF-16 code units of the UTF-8 sequence starting with byte c (4-byte sequences are surrogate pairs). */
static size_t utf16_units(unsigned char c) { return c >= 0xF0 ? 2 : 1; }
static int utf8_continuation(unsigned char c) { return (c & 0xC0) == 0x80; }

int baseline_is_cut(const char *pv)
{
    size_t n = strlen(pv), units = 0;
    if (n < 3 || strcmp(pv + n - 3, "...") != 0) return 0;
    for (size_t i = 0; i < n - 3; i++)
        if (!utf8_continuation((unsigned char)pv[i])) units += utf16_units((unsigned char)pv[i]);
    return units == 20;
}

void baseline_perfview_cut(const char *value, char *buf, size_t cap)
{
    /* PerfView cuts first, then escapes; count units on the raw value. */
    size_t units = 0, i = 0, n = strlen(value), o = 0;
    for (size_t k = 0; k < n; k++)
        if (!utf8_continuation((unsigned char)value[k])) units += utf16_units((unsigned char)value[k]);
    int cut = units > 20;
    units = 0;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)value[i];
        if (!utf8_continuation(c)) {
            if (cut && units + utf16_units(c) > 20) break;
            units += utf16_units(c);
        }
        const char *rep = c == '\n' ? "\\n" : c == '\r' ? "\\r" : NULL;
        size_t need = rep ? 2 : 1;
        if (o + need + 4 > cap) break;
        if (rep) { memcpy(buf + o, rep, 2); o += 2; }
        else buf[o++] = (char)c;
    }
    if (cut && o + 4 <= cap) { memcpy(buf + o, "...", 3); o += 3; }
    if (cap) buf[o < cap ? o : cap - 1] = '\0';
}

int baseline_parse_integer(const char *text, int *neg, uint64_t *magnitude)
{
    const char *p = text;
    *neg = 0;
    if (*p == '-') { *neg = 1; p++; }
    uint64_t v = 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        p += 2;
        if (!*p) return -1;
        for (; *p; p++) {
            int d = isdigit((unsigned char)*p) ? *p - '0'
                  : (tolower((unsigned char)*p) >= 'a' && tolower((unsigned char)*p) <= 'f') ? tolower((unsigned char)*p) - 'a' + 10
                  : -1;
            if (d < 0 || v > (UINT64_MAX >> 4)) return -1;
            v = v << 4 | (uint64_t)d;
        }
    } else {
        int digits = 0;
        for (; *p; p++) {
            if (*p == ',' && digits) continue;
            if (!isdigit((unsigned char)*p)) return -1;
            if (v > (UINT64_MAX - 9) / 10) return -1;
            v = v * 10 + (uint64_t)(*p - '0');
            digits++;
        }
        if (!digits) return -1;
    }
    *magnitude = v;
    return 0;
}

int baseline_iso_to_perfview_date(const char *iso, char *buf, size_t cap)
{
    int y, mo, d, h, mi, s;
    int used = 0;
    if (sscanf(iso, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &s, &used) != 6 || used != 19) return -1;
    char frac[7] = "000000";
    const char *p = iso + 19;
    if (*p == '.') {
        p++;
        for (int i = 0; isdigit((unsigned char)*p); p++, i++)
            if (i < 6) frac[i] = *p;
    }
    if (strcmp(p, "Z") != 0) return -1;
    snprintf(buf, cap, "%02d/%02d/%02d %02d:%02d:%02d.%s", y % 100, mo, d, h, mi, s, frac);
    return 0;
}

int baseline_filetime_to_perfview_date(uint64_t filetime, char *buf, size_t cap)
{
    /* days since 1601-01-01 -> civil date (proleptic Gregorian, 400-year cycles) */
    uint64_t ticks = filetime % 10000000u, secs = filetime / 10000000u;
    uint64_t days = secs / 86400u, rem = secs % 86400u;
    int64_t z = (int64_t)days + 584694;   /* days from 0000-03-01 to 1601-01-01 */
    int64_t era = z / 146097, doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100), mp = (5 * doy + 2) / 153;
    int64_t day = doy - (153 * mp + 2) / 5 + 1, month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = yoe + era * 400 + (month <= 2);
    if (year < 1601 || year > 9999) return -1;
    snprintf(buf, cap, "%02d/%02d/%02d %02d:%02d:%02d.%06d", (int)(year % 100), (int)month, (int)day,
             (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60), (int)(ticks / 10));
    return 0;
}
