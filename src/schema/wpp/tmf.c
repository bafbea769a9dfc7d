/* TMF text → the WPP store. The layout tracewpp/tracepdb write (docs/schemas.md §5.2):
 *
 *   // comments ("// PDB: ...")
 *   <message GUID> <component> // SRC=<file> MJ= MN=
 *   #typev <tag> <number> "<format>" // LEVEL=<l> FLAGS=<f> FUNC=<function>
 *   {
 *   <expression>, <ItemType>[(<names>)] -- <argument number>
 *   }
 *   #enumv <name>
 *   {
 *   <Name>,<value>
 *   }
 *
 * Line oriented: a malformed statement is skipped up to its closing brace, counted and reported with its
 * line; everything else still loads. Every count is bounded by the WPP_MAX_* limits, not by the file. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/wpp.h"
#include "schema/wpp/wpp_match.h"

/* ---- store ------------------------------------------------------------------------------------------- */

typedef struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    max_align_t data[];
} arena_chunk;

struct wpp_store {
    arena_chunk *arena;
    wpp_statement *statements;
    size_t statement_count, statement_capacity;
    uint32_t *slots;               /* statement index + 1; 0 = empty */
    size_t slot_capacity;
    wpp_component *components;
    size_t component_count, component_capacity;
    wpp_enum *enums;
    size_t enum_count, enum_capacity;
    uint32_t origin;               /* of the components being added */
    wpp_match_index *match;        /* statements by control GUID and by component id (wpp_match.c) */
};

static void *arena_alloc(wpp_store *s, size_t n)
{
    n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
    arena_chunk *c = s->arena;
    if (!c || c->size - c->used < n) {
        size_t size = n > 65536 ? n : 65536;
        c = malloc(sizeof *c + size);
        if (!c) return NULL;
        c->size = size;
        c->used = 0;
        c->next = s->arena;
        s->arena = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += n;
    return p;
}

static char *arena_strndup(wpp_store *s, const char *text, size_t n)
{
    char *d = arena_alloc(s, n + 1);
    if (!d) return NULL;
    memcpy(d, text, n);
    d[n] = '\0';
    return d;
}

wpp_store *wpp_store_new(void) { return calloc(1, sizeof(wpp_store)); }

void wpp_store_free(wpp_store *s)
{
    if (!s) return;
    for (arena_chunk *c = s->arena, *next; c; c = next) {
        next = c->next;
        free(c);
    }
    free(s->statements);
    free(s->slots);
    free(s->components);
    free(s->enums);
    wpp_match_index_free(s->match);
    free(s);
}

void wpp_store_begin_origin(wpp_store *s) { s->origin++; }

uint32_t wpp_store_origin(const wpp_store *s) { return s ? s->origin : 0; }

wpp_match_index *wpp_store_match_index(const wpp_store *s, int create)
{
    if (s && !s->match && create) ((wpp_store *)s)->match = wpp_match_index_new();
    return s ? s->match : NULL;
}

size_t wpp_store_statement_count(const wpp_store *s) { return s ? s->statement_count : 0; }

const wpp_statement *wpp_store_statement_at(const wpp_store *s, size_t index)
{
    return s && index < s->statement_count ? &s->statements[index] : NULL;
}

static uint64_t key_hash(const etl_guid *g, uint16_t number)
{
    uint64_t h = (uint64_t)g->data1 << 32 ^ (uint64_t)g->data2 << 16 ^ g->data3 ^ (uint64_t)number << 48;
    for (int i = 0; i < 8; i++) h = (h ^ g->data4[i]) * 0x100000001b3ULL;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    return h ^ (h >> 33);
}

static int key_equal(const wpp_statement *st, const etl_guid *g, uint16_t number)
{
    return st->number == number && memcmp(&st->guid, g, sizeof *g) == 0;
}

const wpp_statement *wpp_store_find(const wpp_store *s, const etl_guid *guid, uint16_t number)
{
    if (!s || !s->slot_capacity) return NULL;
    size_t mask = s->slot_capacity - 1;
    for (size_t i = key_hash(guid, number) & mask;; i = (i + 1) & mask) {
        uint32_t slot = s->slots[i];
        if (!slot) return NULL;
        if (key_equal(&s->statements[slot - 1], guid, number)) return &s->statements[slot - 1];
    }
}

static int rehash(wpp_store *s, size_t capacity)
{
    uint32_t *slots = calloc(capacity, sizeof *slots);
    if (!slots) return ETL_ERR_NOMEM;
    for (size_t k = 0; k < s->statement_count; k++) {
        size_t i = key_hash(&s->statements[k].guid, s->statements[k].number) & (capacity - 1);
        while (slots[i]) i = (i + 1) & (capacity - 1);
        slots[i] = (uint32_t)k + 1;
    }
    free(s->slots);
    s->slots = slots;
    s->slot_capacity = capacity;
    return ETL_OK;
}

/* Keeps the first statement of a (GUID, number): tracepdb writes each statement once per annotation, and a
 * TMF folder may hold the same message twice. Returns 1 when it was a duplicate. */
static int store_add(wpp_store *s, const wpp_statement *st)
{
    if (wpp_store_find(s, &st->guid, st->number)) return 1;
    if (s->statement_count == s->statement_capacity) {
        size_t cap = s->statement_capacity ? s->statement_capacity * 2 : 64;
        wpp_statement *p = realloc(s->statements, cap * sizeof *p);
        if (!p) return ETL_ERR_NOMEM;
        s->statements = p;
        s->statement_capacity = cap;
    }
    if ((s->statement_count + 1) * 2 > s->slot_capacity &&
        rehash(s, s->slot_capacity ? s->slot_capacity * 2 : 128) != ETL_OK)
        return ETL_ERR_NOMEM;
    if (!wpp_store_match_index(s, 1) ||
        wpp_match_index_add(s->match, s->components[st->component].origin, &st->guid, st->number,
                            (uint32_t)s->statement_count) != ETL_OK)
        return ETL_ERR_NOMEM;
    s->statements[s->statement_count] = *st;
    size_t mask = s->slot_capacity - 1;
    size_t i = key_hash(&st->guid, st->number) & mask;
    while (s->slots[i]) i = (i + 1) & mask;
    s->slots[i] = (uint32_t)++s->statement_count;
    return 0;
}

const wpp_component *wpp_store_component(const wpp_store *s, uint32_t index)
{
    return s && index < s->component_count ? &s->components[index] : NULL;
}

const wpp_enum *wpp_store_enum(const wpp_store *s, const char *name)
{
    if (!s || !name) return NULL;
    for (size_t i = 0; i < s->enum_count; i++)
        if (strcmp(s->enums[i].name, name) == 0) return &s->enums[i];
    return NULL;
}

static int grow(void **array, size_t *capacity, size_t count, size_t size)
{
    if (count < *capacity) return ETL_OK;
    size_t cap = *capacity ? *capacity * 2 : 8;
    void *p = realloc(*array, cap * size);
    if (!p) return ETL_ERR_NOMEM;
    *array = p;
    *capacity = cap;
    return ETL_OK;
}

static int add_enum(wpp_store *s, const wpp_enum *en)
{
    if (wpp_store_enum(s, en->name)) return ETL_OK;
    if (grow((void **)&s->enums, &s->enum_capacity, s->enum_count, sizeof *en) != ETL_OK) return ETL_ERR_NOMEM;
    s->enums[s->enum_count++] = *en;
    return ETL_OK;
}

int wpp_store_add_enum(wpp_store *s, const char *name, const wpp_enum_entry *entries, uint32_t count)
{
    if (wpp_store_enum(s, name)) return ETL_OK;
    if (count > WPP_MAX_ENUM_ENTRIES) count = WPP_MAX_ENUM_ENTRIES;
    wpp_enum en = {arena_strndup(s, name, strlen(name)), count, count ? arena_alloc(s, count * sizeof *entries) : NULL};
    if (!en.name || (count && !en.entries)) return ETL_ERR_NOMEM;
    for (uint32_t i = 0; i < count; i++) {
        en.entries[i].value = entries[i].value;
        if (!(en.entries[i].name = arena_strndup(s, entries[i].name, strlen(entries[i].name)))) return ETL_ERR_NOMEM;
    }
    return add_enum(s, &en);
}

/* ---- parser ------------------------------------------------------------------------------------------ */

typedef struct parser {
    wpp_store *store;
    const char *origin;
    wpp_load_stats *stats;
    etl_error *err;
    unsigned line;
    int have_component;
    uint32_t component;
    int failed;              /* something was refused */
    int nomem;
} parser;

static void refuse(parser *p, unsigned line, const char *why)
{
    if (!p->failed && p->err)
        snprintf(p->err->message, sizeof p->err->message, "%s:%u: %s", p->origin, line, why);
    p->failed = 1;
    p->stats->refused++;
}

static const char *skip_space(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) s++;
    return s;
}

static const char *trim_end(const char *s, const char *end)
{
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    return end;
}

/* Parses a decimal or 0x-hex unsigned number filling [s, end) exactly; -1 when it does not. */
static int parse_number(const char *s, const char *end, uint64_t max, uint64_t *out)
{
    int base = 10;
    if (end - s > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (s >= end) return -1;
    uint64_t v = 0;
    for (; s < end; s++) {
        int d = isdigit((unsigned char)*s) ? *s - '0'
              : base == 16 && isxdigit((unsigned char)*s) ? tolower((unsigned char)*s) - 'a' + 10 : -1;
        if (d < 0) return -1;
        if (v > (max - (uint64_t)d) / (uint64_t)base) return -1;
        v = v * (uint64_t)base + (uint64_t)d;
    }
    *out = v;
    return 0;
}

/* memmem within [s, end) (TMF text is not NUL-terminated) */
static const char *find(const char *s, const char *end, const char *needle)
{
    size_t n = strlen(needle);
    for (; s && s + n <= end; s++)
        if (memcmp(s, needle, n) == 0) return s;
    return NULL;
}

/* "<GUID> <component> // SRC=<file> ..." */
static int parse_header(parser *p, const char *s, const char *end)
{
    char text[37];
    memcpy(text, s, 36);
    text[36] = '\0';
    etl_guid guid;
    if (etl_guid_parse(text, &guid) != 0) return -1;
    const char *name = skip_space(s + 36, end);
    const char *name_end = name;
    while (name_end < end && *name_end != ' ' && *name_end != '\t') name_end++;
    const char *src = NULL, *src_end = NULL;
    const char *comment = find(name_end, end, "//");
    if (comment) {
        const char *k = find(comment, end, "SRC=");
        if (k) {
            src = k + 4;
            src_end = src;
            while (src_end < end && *src_end != ' ' && *src_end != '\t') src_end++;
        }
    }
    if (grow((void **)&p->store->components, &p->store->component_capacity, p->store->component_count,
             sizeof(wpp_component)) != ETL_OK)
        return ETL_ERR_NOMEM;
    wpp_component *c = &p->store->components[p->store->component_count];
    c->guid = guid;
    c->origin = p->store->origin;
    c->name = arena_strndup(p->store, name, (size_t)(name_end - name));
    c->source_file = src ? arena_strndup(p->store, src, (size_t)(src_end - src)) : arena_strndup(p->store, "", 0);
    if (!c->name || !c->source_file) return ETL_ERR_NOMEM;
    p->component = (uint32_t)p->store->component_count++;
    p->have_component = 1;
    return 0;
}

/* Value of KEY= in the // trailer: up to the next blank; FUNC= runs to the end (C++ names may hold blanks
 * in operator names, and FUNC= is written last). */
static char *trailer_value(parser *p, const char *trailer, const char *end, const char *key, int to_end)
{
    size_t klen = strlen(key);
    for (const char *s = trailer; s && s + klen <= end; s++) {
        if (memcmp(s, key, klen) != 0 || (s > trailer && s[-1] != ' ' && s[-1] != '\t')) continue;
        const char *v = s + klen, *e = v;
        if (to_end) e = trim_end(v, end);
        else
            while (e < end && *e != ' ' && *e != '\t') e++;
        return arena_strndup(p->store, v, (size_t)(e - v));
    }
    return arena_strndup(p->store, "", 0);
}

/* "#typev <tag> <number> "<format>" // trailer" */
static const char *parse_typev(parser *p, const char *s, const char *end, wpp_statement *st)
{
    memset(st, 0, sizeof *st);
    s = skip_space(s + 6, end);
    const char *tag = s;
    while (s < end && *s != ' ' && *s != '\t') s++;
    if (s == tag) return "#typev without a name";
    const char *tag_end = s;
    s = skip_space(s, end);
    const char *num = s;
    while (s < end && *s != ' ' && *s != '\t') s++;
    uint64_t number;
    if (parse_number(num, s, 0xFFFF, &number) != 0) return "#typev message number is not a number from 0 to 65535";
    s = skip_space(s, end);
    if (s >= end || *s != '"') return "#typev format string does not start with a quote";
    /* the format ends at the last quote that is followed only by blanks or the // trailer */
    const char *close = NULL;
    for (const char *q = end - 1; q > s; q--) {
        if (*q != '"') continue;
        const char *after = skip_space(q + 1, end);
        if (after == end || (end - after >= 2 && after[0] == '/' && after[1] == '/')) {
            close = q;
            break;
        }
    }
    if (!close) return "#typev format string has no closing quote";
    const char *trailer = skip_space(close + 1, end);
    if (trailer < end) trailer += 2; else trailer = NULL;
    st->number = (uint16_t)number;
    st->tag = arena_strndup(p->store, tag, (size_t)(tag_end - tag));
    st->format = arena_strndup(p->store, s + 1, (size_t)(close - s - 1));
    st->level = trailer_value(p, trailer, end, "LEVEL=", 0);
    st->flags = trailer_value(p, trailer, end, "FLAGS=", 0);
    st->function = trailer_value(p, trailer, end, "FUNC=", 1);
    if (!st->tag || !st->format || !st->level || !st->flags || !st->function) {
        p->nomem = 1;
        return "out of memory";
    }
    const char *digits = tag_end;
    while (digits > tag && isdigit((unsigned char)digits[-1])) digits--;
    uint64_t line = 0;
    if (digits < tag_end && parse_number(digits, tag_end, 0xFFFFFFFFu, &line) == 0) st->line_number = (uint32_t)line;
    return NULL;
}

/* Splits "a,b,c" (inside an item's parentheses) into the argument's list. */
static const char *parse_list(parser *p, const char *s, const char *end, wpp_arg *arg)
{
    size_t n = 1;
    for (const char *q = s; q < end; q++)
        if (*q == ',') n++;
    if (n > WPP_MAX_LIST_ITEMS) return "too many names in an item list";
    arg->list = arena_alloc(p->store, n * sizeof *arg->list);
    if (!arg->list) {
        p->nomem = 1;
        return "out of memory";
    }
    arg->list_count = 0;
    while (s <= end) {
        const char *e = s;
        while (e < end && *e != ',') e++;
        const char *a = skip_space(s, e), *b = trim_end(a, e);
        if (!(arg->list[arg->list_count++] = arena_strndup(p->store, a, (size_t)(b - a)))) {
            p->nomem = 1;
            return "out of memory";
        }
        s = e + 1;
    }
    return NULL;
}

/* "<expression>, <ItemType>[(<names>)] -- <number>": the expression may hold commas and parentheses, so the
 * line is read from the right. */
static const char *parse_arg(parser *p, const char *s, const char *end, wpp_arg *arg)
{
    memset(arg, 0, sizeof *arg);
    const char *dashes = NULL;
    for (const char *q = end - 2; q >= s; q--)
        if (q[0] == '-' && q[1] == '-') {
            dashes = q;
            break;
        }
    if (!dashes) return "argument line without \"-- <number>\"";
    uint64_t number;
    const char *num = skip_space(dashes + 2, end);
    if (parse_number(num, end, 999, &number) != 0 || number == 0) return "argument number is not a number from 1 to 999";
    const char *spec_end = trim_end(s, dashes);
    const char *spec = spec_end;
    const char *paren = NULL, *paren_end = NULL;
    if (spec > s && spec[-1] == ')') {
        int depth = 0;
        paren_end = spec - 1;
        for (spec--; spec >= s; spec--) {
            if (*spec == ')') depth++;
            else if (*spec == '(' && --depth == 0) break;
        }
        if (spec < s) return "unbalanced parentheses in the item type";
        paren = spec + 1;
    }
    const char *type_end = paren ? paren - 1 : spec_end;
    const char *type = type_end;
    while (type > s && (isalnum((unsigned char)type[-1]) || type[-1] == '_')) type--;
    if (type == type_end) return "argument line without an item type";
    const char *comma = trim_end(s, type);
    if (comma == s || comma[-1] != ',') return "argument line without \", <ItemType>\"";
    const char *expr_end = trim_end(s, comma - 1);
    arg->expression = arena_strndup(p->store, s, (size_t)(expr_end - s));
    arg->type_name = arena_strndup(p->store, type, (size_t)(type_end - type));
    if (!arg->expression || !arg->type_name) {
        p->nomem = 1;
        return "out of memory";
    }
    arg->item = wpp_item_from_name(type, (size_t)(type_end - type));
    arg->number = (uint16_t)number;
    if (paren) return parse_list(p, paren, paren_end, arg);
    return NULL;
}

/* "<Name>,<value>" inside #enumv */
static const char *parse_enum_entry(parser *p, const char *s, const char *end, wpp_enum_entry *entry)
{
    const char *comma = memchr(s, ',', (size_t)(end - s));
    if (!comma) return "enumeration entry without \"<name>,<value>\"";
    const char *v = skip_space(comma + 1, end);
    const char *v_end = trim_end(v, end);
    const char *n_end = trim_end(s, comma);
    if (n_end == s || parse_number(v, v_end, UINT64_MAX, &entry->value) != 0)
        return "enumeration entry value is not a number";
    if (!(entry->name = arena_strndup(p->store, s, (size_t)(n_end - s)))) {
        p->nomem = 1;
        return "out of memory";
    }
    return NULL;
}

typedef enum { OUTSIDE, WANT_OPEN, IN_STATEMENT, IN_ENUM, SKIPPING } block_state;

int wpp_store_parse(wpp_store *store, const char *text, size_t length, const char *origin, wpp_load_stats *stats,
                    etl_error *err)
{
    wpp_load_stats scratch;
    if (!stats) {
        memset(&scratch, 0, sizeof scratch);
        stats = &scratch;
    }
    parser p = {store, origin ? origin : "TMF", stats, err, 0, 0, 0, 0, 0};
    block_state state = OUTSIDE;
    int want_enum = 0;                  /* WANT_OPEN: for an #enumv (else a #typev) */
    unsigned block_line = 0;
    wpp_statement st;
    memset(&st, 0, sizeof st);
    wpp_arg *args = NULL;               /* the statement being read (copied into the arena when complete) */
    size_t arg_capacity = 0;
    wpp_enum en;
    memset(&en, 0, sizeof en);
    wpp_enum_entry *entries = NULL;
    size_t entry_capacity = 0;
    const char *why;

    const char *pos = text, *stop = text + length;
    while (pos < stop && !p.nomem) {
        const char *nl = memchr(pos, '\n', (size_t)(stop - pos));
        const char *line_end = nl ? nl : stop;
        const char *next = nl ? nl + 1 : stop;
        p.line++;
        if ((size_t)(line_end - pos) > WPP_MAX_LINE) {
            refuse(&p, p.line, "line longer than 64 KiB");
            if (state != OUTSIDE) state = SKIPPING;
            pos = next;
            continue;
        }
        const char *s = skip_space(pos, line_end);
        const char *e = trim_end(s, line_end);
        pos = next;
        if (s == e) continue;
        if (state == OUTSIDE && e - s >= 2 && s[0] == '/' && s[1] == '/') continue;

        switch (state) {
        case OUTSIDE:
            if ((size_t)(e - s) >= 6 && memcmp(s, "#typev", 6) == 0 && (e - s == 6 || isspace((unsigned char)s[6]))) {
                block_line = p.line;
                stats->statements++;
                if (!p.have_component) {
                    refuse(&p, p.line, "#typev before the \"<GUID> <component>\" header line");
                    state = SKIPPING;
                } else if ((why = parse_typev(&p, s, e, &st)) != NULL) {
                    refuse(&p, p.line, why);
                    state = SKIPPING;
                } else {
                    st.guid = store->components[p.component].guid;
                    st.component = p.component;
                    st.arg_count = 0;
                    state = WANT_OPEN;
                    want_enum = 0;
                }
            } else if ((size_t)(e - s) > 6 && memcmp(s, "#enumv", 6) == 0 && isspace((unsigned char)s[6])) {
                block_line = p.line;
                const char *name = skip_space(s + 6, e);
                memset(&en, 0, sizeof en);
                if (!(en.name = arena_strndup(store, name, (size_t)(e - name)))) p.nomem = 1;
                state = WANT_OPEN;
                want_enum = 1;
            } else if (e - s >= 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-') {
                int rc = parse_header(&p, s, e);
                if (rc == ETL_ERR_NOMEM) p.nomem = 1;
                else if (rc != 0) refuse(&p, p.line, "header line with a malformed GUID");
            } else if (*s == '{' || *s == '}') {
                refuse(&p, p.line, "brace outside a #typev or #enumv block");
            } else {
                refuse(&p, p.line, "line is no TMF header, #typev, #enumv or comment");
            }
            break;
        case WANT_OPEN:
            if (e - s == 1 && *s == '{') {
                state = want_enum ? IN_ENUM : IN_STATEMENT;
            } else {
                refuse(&p, block_line, want_enum ? "#enumv not followed by \"{\"" : "#typev not followed by \"{\"");
                state = *s == '}' ? OUTSIDE : SKIPPING;
            }
            break;
        case IN_STATEMENT:
            if (e - s == 1 && *s == '}') {
                st.args = NULL;
                if (st.arg_count) {
                    st.args = arena_alloc(store, st.arg_count * sizeof *st.args);
                    if (!st.args) {
                        p.nomem = 1;
                        break;
                    }
                    memcpy(st.args, args, st.arg_count * sizeof *st.args);
                }
                if (store->statement_count >= WPP_MAX_STATEMENTS) {
                    refuse(&p, block_line, "more than 1,000,000 statements");
                } else {
                    int rc = store_add(store, &st);
                    if (rc == ETL_ERR_NOMEM) p.nomem = 1;
                    else if (rc == 1) stats->duplicates++;
                }
                state = OUTSIDE;
            } else if (*s == '{' || *s == '#') {
                refuse(&p, p.line, "nested block or directive inside a #typev block");
                state = SKIPPING;
            } else if (st.arg_count >= WPP_MAX_ARGS) {
                refuse(&p, p.line, "more than 128 arguments in one statement");
                state = SKIPPING;
            } else if (grow((void **)&args, &arg_capacity, st.arg_count, sizeof *args) != ETL_OK) {
                p.nomem = 1;
            } else if ((why = parse_arg(&p, s, e, &args[st.arg_count])) != NULL) {
                refuse(&p, p.line, why);
                state = SKIPPING;
            } else {
                st.arg_count++;
                stats->arguments++;
            }
            break;
        case IN_ENUM:
            if (e - s == 1 && *s == '}') {
                en.entries = en.entry_count ? arena_alloc(store, en.entry_count * sizeof *en.entries) : NULL;
                if (en.entry_count && !en.entries) {
                    p.nomem = 1;
                    break;
                }
                if (en.entry_count) memcpy(en.entries, entries, en.entry_count * sizeof *en.entries);
                if (add_enum(store, &en) != ETL_OK) {
                    p.nomem = 1;
                    break;
                }
                stats->enums++;
                state = OUTSIDE;
            } else if (en.entry_count >= WPP_MAX_ENUM_ENTRIES) {
                refuse(&p, p.line, "more than 4096 entries in one #enumv");
                state = SKIPPING;
            } else if (grow((void **)&entries, &entry_capacity, en.entry_count, sizeof *entries) != ETL_OK) {
                p.nomem = 1;
            } else if ((why = parse_enum_entry(&p, s, e, &entries[en.entry_count])) != NULL) {
                refuse(&p, p.line, why);
                state = SKIPPING;
            } else {
                en.entry_count++;
            }
            break;
        case SKIPPING:
            if (e - s == 1 && *s == '}') state = OUTSIDE;
            else if ((size_t)(e - s) >= 6 && (memcmp(s, "#typev", 6) == 0 || memcmp(s, "#enumv", 6) == 0)) {
                /* a block that never closed: resume at the next directive */
                state = OUTSIDE;
                pos = s;
                p.line--;
            }
            break;
        }
    }
    if (!p.nomem && state != OUTSIDE && state != SKIPPING)
        refuse(&p, block_line, "block not closed with \"}\" before the end of the file");
    free(args);
    free(entries);
    if (p.nomem) return ETL_ERR_NOMEM;
    return p.failed ? ETL_ERR_FORMAT : ETL_OK;
}
