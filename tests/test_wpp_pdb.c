/* WPP TMF annotations read from a PDB (src/schema/wpp/pdb.c). No redistributable PDB with WPP annotations was
 * found, so the PDB is built here from the documented structures (MSF 7.00 superblock, block map, stream
 * directory; DBI header and ModInfo records; CodeView S_GPROC32 / S_ANNOTATION / S_END records) and filled
 * with what Microsoft's cvdump printed for the real BthPS3PSM.pdb (../shared/schemas/wpp-tmf/nefarius: its
 * modules, procedures and 71 annotations). The oracle for the annotation → TMF conversion is tracepdb's own
 * output for the same driver: the 5 TMF files of the message GUIDs the annotations name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include <cmocka.h>

#include "schema/manifest_model.h"
#include "etl/etl.h"
#include "schema/wpp/pdb.h"

#define NEFARIUS "../shared/schemas/wpp-tmf/nefarius"
#define BLOCK 4096u

typedef struct bytes {
    uint8_t *data;
    size_t size, cap;
} bytes;

static void put(bytes *b, const void *p, size_t n)
{
    if (b->size + n > b->cap) {
        b->cap = (b->size + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        assert_non_null(b->data);
    }
    if (n) memcpy(b->data + b->size, p, n);
    b->size += n;
}
static void put16(bytes *b, uint16_t v) { uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)}; put(b, x, 2); }
static void put32(bytes *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}
static void set32(bytes *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++) b->data[at + (size_t)i] = (uint8_t)(v >> (8 * i));
}
static void pad4(bytes *b) { while (b->size % 4) put(b, "", 1); }

/* ---- cvdump text → module symbol streams ------------------------------------------------------------- */

typedef struct module {
    char name[512];
    bytes sym;             /* CV_SIGNATURE_C13, then records */
    long open_end;         /* cvdump End of the open procedure, -1 when none */
    size_t open_record;    /* offset of its record in sym */
} module;

static void record_begin(bytes *b, uint16_t kind, size_t *start)
{
    *start = b->size;
    put16(b, 0);
    put16(b, kind);
}
static void record_end(bytes *b, size_t start)
{
    pad4(b);
    uint16_t len = (uint16_t)(b->size - start - 2);
    b->data[start] = (uint8_t)len;
    b->data[start + 1] = (uint8_t)(len >> 8);
}

static void close_proc(module *m)
{
    size_t start;
    set32(&m->sym, m->open_record + 4 + 4, (uint32_t)m->sym.size); /* End → this S_END */
    record_begin(&m->sym, 0x0006, &start);
    record_end(&m->sym, start);
    m->open_end = -1;
}

static void close_before(module *m, long offset)
{
    if (m->open_end >= 0 && offset > m->open_end) close_proc(m);
}

static void add_proc(module *m, long offset, long end, const char *name)
{
    close_before(m, offset);
    if (m->open_end >= 0) close_proc(m);
    size_t start;
    record_begin(&m->sym, 0x1110, &start); /* S_GPROC32 */
    put32(&m->sym, 0);                     /* Parent */
    put32(&m->sym, 0);                     /* End (patched) */
    put32(&m->sym, 0);                     /* Next */
    for (int i = 0; i < 5; i++) put32(&m->sym, 0); /* CodeSize DbgStart DbgEnd FunctionType CodeOffset */
    put16(&m->sym, 0);                     /* Segment */
    put(&m->sym, "", 1);                   /* Flags */
    put(&m->sym, name, strlen(name) + 1);
    record_end(&m->sym, start);
    m->open_record = start;
    m->open_end = end;
}

static void add_annotation(module *m, long offset, char strings[][1024], unsigned count)
{
    close_before(m, offset);
    size_t start;
    record_begin(&m->sym, 0x1019, &start); /* S_ANNOTATION */
    put32(&m->sym, 0);
    put16(&m->sym, 0);
    put16(&m->sym, (uint16_t)count);
    for (unsigned i = 0; i < count; i++) put(&m->sym, strings[i], strlen(strings[i]) + 1);
    record_end(&m->sym, start);
}

static unsigned read_cvdump(module **modules_out, unsigned *annotations)
{
    gzFile gz = gzopen(NEFARIUS "/BthPS3PSM.pdb-cvdump.txt.gz", "rb");
    assert_non_null(gz);
    static char line[65536];
    module *mods = NULL;
    unsigned n = 0;
    int in_symbols = 0;
    char proc_name[512] = "";
    long proc_offset = -1;
    char (*strings)[1024] = calloc(64, 1024);
    unsigned string_count = 0;
    long ann_offset = -1;
    *annotations = 0;
    while (gzgets(gz, line, sizeof line)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (strncmp(line, "*** SYMBOLS", 11) == 0) { in_symbols = 1; continue; }
        if (!in_symbols) continue;
        if (strncmp(line, "*** ", 4) == 0) break;
        int in_annotation = ann_offset >= 0;
        const char *q = line + strspn(line, " ");
        if (in_annotation && *q >= '0' && *q <= '9' && strstr(q, ": \"")) {
            const char *s = strstr(q, ": \"") + 3;
            size_t len = strlen(s);
            assert_true(len >= 1 && s[len - 1] == '"' && string_count < 64);
            snprintf(strings[string_count++], 1024, "%.*s", (int)(len - 1), s);
            continue;
        }
        if (in_annotation) {
            add_annotation(&mods[n - 1], ann_offset, strings, string_count);
            (*annotations)++;
            ann_offset = -1;
        }
        if (strncmp(line, "** Module: \"", 12) == 0) {
            if (n) close_before(&mods[n - 1], 0x7FFFFFFF);
            mods = realloc(mods, (n + 1) * sizeof *mods);
            memset(&mods[n], 0, sizeof mods[n]);
            snprintf(mods[n].name, sizeof mods[n].name, "%.*s", (int)strlen(line + 12) - 1, line + 12);
            put32(&mods[n].sym, 4); /* CV_SIGNATURE_C13 */
            mods[n].open_end = -1;
            n++;
            continue;
        }
        long offset;
        if (sscanf(line, "(%lx)", &offset) != 1) {
            long end;
            const char *e = strstr(line, "End: ");
            if (proc_offset >= 0 && e && sscanf(e, "End: %lx", &end) == 1) {
                add_proc(&mods[n - 1], proc_offset, end, proc_name);
                proc_offset = -1;
            }
            continue;
        }
        if (strstr(line, "S_GPROC32: ") || strstr(line, "S_LPROC32: ")) {
            const char *name = strrchr(line, ',');
            snprintf(proc_name, sizeof proc_name, "%s", name ? name + 2 : "");
            proc_offset = offset;
        } else if (strstr(line, "S_ANNOTATION: ")) {
            ann_offset = offset;
            string_count = 0;
        }
    }
    if (n) close_before(&mods[n - 1], 0x7FFFFFFF);
    gzclose(gz);
    free(strings);
    *modules_out = mods;
    return n;
}

/* ---- MSF writer ----------------------------------------------------------------------------------------- */

static bytes build_pdb(module *mods, unsigned count, const bytes *tpi)
{
    /* streams: 0 old directory, 1 PDB info, 2 TPI, 3 DBI, 4 IPI, 5.. module symbol streams */
    unsigned stream_count = 5 + count;
    bytes *streams = calloc(stream_count, sizeof *streams);
    if (tpi) put(&streams[2], tpi->data, tpi->size);
    put32(&streams[1], 20000404); /* PDB info: version, signature, age, GUID */
    put32(&streams[1], 0);
    put32(&streams[1], 1);
    put(&streams[1], "0123456789abcdef", 16);
    bytes *dbi = &streams[3];
    bytes modinfo = {0};
    for (unsigned i = 0; i < count; i++) {
        size_t at = modinfo.size;
        uint8_t fixed[64] = {0};
        put(&modinfo, fixed, sizeof fixed);
        modinfo.data[at + 34] = (uint8_t)(5 + i);
        modinfo.data[at + 35] = (uint8_t)((5 + i) >> 8);
        set32(&modinfo, at + 36, (uint32_t)mods[i].sym.size);
        put(&modinfo, mods[i].name, strlen(mods[i].name) + 1);
        put(&modinfo, mods[i].name, strlen(mods[i].name) + 1);
        pad4(&modinfo);
        streams[5 + i] = mods[i].sym;
    }
    put32(dbi, 0xFFFFFFFFu);  /* VersionSignature */
    put32(dbi, 19990903);     /* VersionHeader V70 */
    put32(dbi, 1);            /* Age */
    put16(dbi, 0xFFFF);       /* GlobalStreamIndex */
    put16(dbi, 0);
    put16(dbi, 0xFFFF);       /* PublicStreamIndex */
    put16(dbi, 0);
    put16(dbi, 0xFFFF);       /* SymRecordStream */
    put16(dbi, 0);
    put32(dbi, (uint32_t)modinfo.size);  /* ModInfoSize */
    for (int i = 0; i < 4; i++) put32(dbi, 0); /* SectionContribution, SectionMap, SourceInfo, TypeServerMap */
    put32(dbi, 0);            /* MFCTypeServerIndex */
    put32(dbi, 0);            /* OptionalDbgHeaderSize */
    put32(dbi, 0);            /* ECSubstreamSize */
    put16(dbi, 0);            /* Flags */
    put16(dbi, 0x8664);       /* Machine */
    put32(dbi, 0);
    assert_int_equal(dbi->size, 64);
    put(dbi, modinfo.data, modinfo.size);
    free(modinfo.data);

    /* blocks: 0 superblock, 1-2 free block maps, 3 block map, then directory, then stream data */
    bytes file = {0};
    uint8_t zero[BLOCK] = {0};
    for (int i = 0; i < 4; i++) put(&file, zero, BLOCK);
    uint32_t next_block = 4;
    bytes dir = {0};
    put32(&dir, stream_count);
    for (unsigned s = 0; s < stream_count; s++) put32(&dir, (uint32_t)streams[s].size);
    for (unsigned s = 0; s < stream_count; s++) {
        for (size_t off = 0; off < streams[s].size; off += BLOCK) {
            put32(&dir, next_block++);
            size_t n = streams[s].size - off < BLOCK ? streams[s].size - off : BLOCK;
            put(&file, streams[s].data + off, n);
            put(&file, zero, BLOCK - n);
        }
    }
    uint32_t dir_block = next_block;
    size_t dir_blocks = (dir.size + BLOCK - 1) / BLOCK;
    for (size_t i = 0; i < dir_blocks; i++) set32(&file, 3 * BLOCK + 4 * i, dir_block + (uint32_t)i);
    for (size_t off = 0; off < dir.size; off += BLOCK) {
        size_t n = dir.size - off < BLOCK ? dir.size - off : BLOCK;
        put(&file, dir.data + off, n);
        put(&file, zero, BLOCK - n);
        next_block++;
    }
    memcpy(file.data, "Microsoft C/C++ MSF 7.00\r\n\x1a" "DS\0\0\0", 32);
    set32(&file, 32, BLOCK);
    set32(&file, 36, 1);                  /* FreeBlockMapBlock */
    set32(&file, 40, next_block);         /* NumBlocks */
    set32(&file, 44, (uint32_t)dir.size); /* NumDirectoryBytes */
    set32(&file, 52, 3);                  /* BlockMapAddr */
    free(dir.data);
    for (unsigned s = 0; s < 5; s++) free(streams[s].data);
    free(streams);
    return file;
}

/* The WPP_BIT_<flag> enumerators of the cvdump's type records, in order, without the prefix. */
static unsigned wpp_bits(char names[][64], unsigned cap)
{
    gzFile gz = gzopen(NEFARIUS "/BthPS3PSM.pdb-cvdump.txt.gz", "rb");
    assert_non_null(gz);
    static char line[4096];
    unsigned n = 0;
    while (gzgets(gz, line, sizeof line)) {
        const char *p = strstr(line, "LF_ENUMERATE, public, value = ");
        const char *q = p ? strstr(p, "name = 'WPP_BIT_") : NULL;
        if (!q || n >= cap) continue;
        q += strlen("name = 'WPP_BIT_");
        size_t len = strcspn(q, "'");
        snprintf(names[n++], 64, "%.*s", (int)len, q);
    }
    gzclose(gz);
    return n;
}

static size_t wpp_distinct_numbers(const wpp_store *s)
{
    uint8_t seen[65536] = {0};
    size_t n = 0;
    for (size_t i = 0; i < wpp_store_statement_count(s); i++)
        if (!seen[wpp_store_statement_at(s, i)->number]++) n++;
    return n;
}

/* ---- a TPI stream with C enums (LLVM's TPI header; cvinfo.h's LF_FIELDLIST / LF_ENUMERATE / LF_INDEX /
 * LF_ENUM records): WppEnum2Emitter's enums as its source declares them (guscatalano/findneedle
 * tools/WppEnum2Emitter/WppEnum2Cfg.h), a forward reference first as compilers write it, a field list
 * continued by LF_INDEX, one value as an LF_USHORT numeric leaf, and an enum nobody asks for. ----------- */

static void type_record(bytes *b, const bytes *body)
{
    bytes r = {0};
    put(&r, body->data, body->size);
    static const uint8_t pads[] = {0xF3, 0xF2, 0xF1};
    while ((r.size + 2) % 4) put(&r, &pads[(r.size + 2) % 4 - 1], 1);
    put16(b, (uint16_t)r.size);
    put(b, r.data, r.size);
    free(r.data);
}

static void enumerate(bytes *b, const char *name, uint16_t value, int as_ushort)
{
    put16(b, 0x1502);   /* LF_ENUMERATE */
    put16(b, 3);        /* public */
    if (as_ushort) put16(b, 0x8002);
    put16(b, value);
    put(b, name, strlen(name) + 1);
    static const uint8_t pads[] = {0xF3, 0xF2, 0xF1};
    while (b->size % 4) put(b, &pads[b->size % 4 - 1], 1);
}

static void enum_record(bytes *b, const char *name, uint16_t count, uint16_t property, uint32_t field)
{
    bytes body = {0};
    put16(&body, 0x1507); /* LF_ENUM */
    put16(&body, count);
    put16(&body, property);
    put32(&body, 0x74);   /* T_INT4 */
    put32(&body, field);
    put(&body, name, strlen(name) + 1);
    type_record(b, &body);
    free(body.data);
}

static bytes enum_types(void)
{
    bytes records = {0}, body = {0};
    /* 0x1000: fields of _MYSTATE */
    put16(&body, 0x1203);
    enumerate(&body, "StateIdle", 0, 0);
    enumerate(&body, "StateActive", 1, 0);
    enumerate(&body, "StateError", 2, 0);
    type_record(&records, &body);
    body.size = 0;
    enum_record(&records, "_MYSTATE", 0, 0x80, 0);     /* 0x1001: forward reference */
    enum_record(&records, "_MYSTATE", 3, 0, 0x1000);   /* 0x1002 */
    /* 0x1003: FlagRead, then the rest in 0x1004 */
    put16(&body, 0x1203);
    enumerate(&body, "FlagRead", 1, 0);
    put16(&body, 0x1404); /* LF_INDEX */
    put16(&body, 0);
    put32(&body, 0x1004);
    type_record(&records, &body);
    body.size = 0;
    put16(&body, 0x1203);
    enumerate(&body, "FlagWrite", 2, 1);
    enumerate(&body, "FlagExec", 4, 0);
    type_record(&records, &body);
    free(body.data);
    enum_record(&records, "_MYFLAGS", 3, 0, 0x1003);   /* 0x1005 */
    enum_record(&records, "_UNUSED", 3, 0, 0x1000);    /* 0x1006 */
    bytes tpi = {0};
    put32(&tpi, 20040203);  /* Version V80 */
    put32(&tpi, 56);        /* HeaderSize */
    put32(&tpi, 0x1000);    /* TypeIndexBegin */
    put32(&tpi, 0x1007);    /* TypeIndexEnd */
    put32(&tpi, (uint32_t)records.size);
    while (tpi.size < 56) put32(&tpi, 0);
    put(&tpi, records.data, records.size);
    free(records.data);
    return tpi;
}

/* ---- the test ----------------------------------------------------------------------------------------- */

static void same_statement(const wpp_store *a, const wpp_statement *x, const wpp_store *b, const wpp_statement *y)
{
    assert_string_equal(x->tag, y->tag);
    assert_string_equal(x->format, y->format);
    assert_string_equal(x->level, y->level);
    assert_string_equal(x->flags, y->flags);
    assert_string_equal(x->function, y->function);
    assert_string_equal(wpp_store_component(a, x->component)->name, wpp_store_component(b, y->component)->name);
    assert_string_equal(wpp_store_component(a, x->component)->source_file,
                        wpp_store_component(b, y->component)->source_file);
    assert_int_equal(x->arg_count, y->arg_count);
    for (unsigned i = 0; i < x->arg_count; i++) {
        assert_string_equal(x->args[i].expression, y->args[i].expression);
        assert_string_equal(x->args[i].type_name, y->args[i].type_name);
        assert_int_equal(x->args[i].number, y->args[i].number);
        assert_int_equal(x->args[i].list_count, y->args[i].list_count);
    }
}

static void test_pdb_annotations(void **state)
{
    (void)state;
    module *mods;
    unsigned annotations;
    unsigned count = read_cvdump(&mods, &annotations);
    assert_int_equal(annotations, 71); /* 70 "TMF:" + 1 "TMC:" */
    bytes pdb = build_pdb(mods, count, NULL);
    for (unsigned i = 0; i < count; i++) free(mods[i].sym.data);
    free(mods);

    char path[] = "/tmp/etlconv-wpp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_int_equal(fwrite(pdb.data, 1, pdb.size, f), pdb.size);
    fclose(f);
    const char *keep = getenv("ETLCONV_KEEP_PDB"); /* a fuzzing seed (tests/fuzz/seeds.sh wpp-pdb) */
    if (keep) {
        FILE *k = fopen(keep, "wb");
        assert_non_null(k);
        assert_int_equal(fwrite(pdb.data, 1, pdb.size, k), pdb.size);
        fclose(k);
    }

    wpp_store *from_pdb = wpp_store_new();
    etl_tmf_load_stats stats;
    memset(&stats, 0, sizeof stats);
    etl_error err;
    memset(&err, 0, sizeof err);
    int rc = wpp_pdb_load_file(from_pdb, path, &err, &stats);
    if (rc != ETL_OK) fprintf(stderr, "%s\n", err.message);
    assert_int_equal(rc, ETL_OK);
    assert_int_equal(stats.statements, 70);
    assert_int_equal(stats.refused, 0);
    assert_int_equal(wpp_store_statement_count(from_pdb), 70);
    /* the "TMC:" annotation: control GUID, name, and flag names in the order of the WPP_BIT_* enumerators
     * the compiler left in the same PDB's types (cvdump's LF_ENUMERATE list, an independent record) */
    assert_int_equal(stats.controls, 1);
    etl_guid control_guid;
    etl_guid_parse("586aa8b1-53a6-404f-9b3e-14483e514a2c", &control_guid);
    const wpp_control *control = wpp_store_control(from_pdb, &control_guid);
    assert_non_null(control);
    assert_string_equal(control->name, "BthPS3PSMTraceGuid");
    char bits[16][64];
    unsigned bit_count = wpp_bits(bits, 16);
    assert_int_equal(bit_count, 7);
    assert_int_equal(control->flag_count, bit_count);
    for (unsigned i = 0; i < bit_count; i++) assert_string_equal(control->flags[i], bits[i]);

    /* the same bytes from memory, and through the registry API (-pdb FILE) */
    wpp_store *mem = wpp_store_new();
    assert_int_equal(wpp_pdb_load_memory(mem, pdb.data, pdb.size, "mem", &err, NULL), ETL_OK);
    assert_int_equal(wpp_store_statement_count(mem), 70);
    wpp_store_free(mem);
    etl_schema_registry *reg = etl_schema_registry_new();
    assert_int_equal(etl_schema_load_pdb_path(reg, path, &err, &stats), ETL_OK);
    assert_int_equal(wpp_store_statement_count(etl_schema_registry_wpp(reg, 0)), 70);
    etl_schema_registry_free(reg);

    /* tracepdb's TMF files of the five message GUIDs: every statement equal, field by field */
    static const char *const guids[] = {"03fb1cb4-1c81-30e9-50db-4ecb4f47594e", "324ed36d-6949-3aa1-d581-3e2dc9652ec2",
                                        "9fd9018f-c07b-3383-a12a-2352710d4d14", "ca66b9c0-97d7-3776-3daf-3296492866aa",
                                        "d561fdd8-4a6b-334c-0c99-8bd67f784ac3"};
    wpp_store *tmf = wpp_store_new();
    for (size_t i = 0; i < 5; i++) {
        char p[256];
        snprintf(p, sizeof p, NEFARIUS "/tmf/%s.tmf", guids[i]);
        unsigned char *data;
        size_t size;
        assert_int_equal(etl_schema_read_file(p, 1u << 24, &data, &size, &err), ETL_OK);
        assert_int_equal(wpp_store_parse(tmf, (const char *)data, size, p, NULL, &err), ETL_OK);
        free(data);
    }
    assert_int_equal(wpp_store_statement_count(tmf), 70);
    unsigned compared = 0;
    for (size_t i = 0; i < 5; i++) {
        etl_guid g;
        etl_guid_parse(guids[i], &g);
        for (unsigned number = 0; number < 1000; number++) {
            const wpp_statement *y = wpp_store_find(tmf, &g, (uint16_t)number);
            const wpp_statement *x = wpp_store_find(from_pdb, &g, (uint16_t)number);
            assert_true((x == NULL) == (y == NULL));
            if (!x) continue;
            same_statement(from_pdb, x, tmf, y);
            compared++;
        }
    }
    assert_int_equal(compared, 70);

    /* the control GUID finds a statement by number alone when one of the five files has that number (the
     * count comes from tracepdb's TMF files); numbers every file uses (10, 11...) are ambiguous */
    unsigned unique = 0, ambiguous = 0;
    for (unsigned number = 0; number < 1000; number++) {
        unsigned have = 0;
        const wpp_statement *only = NULL;
        for (size_t i = 0; i < 5; i++) {
            etl_guid g;
            etl_guid_parse(guids[i], &g);
            const wpp_statement *y = wpp_store_find(tmf, &g, (uint16_t)number);
            if (y) {
                have++;
                only = y;
            }
        }
        wpp_match how;
        const wpp_statement *x = wpp_store_lookup(from_pdb, &control_guid, (uint16_t)number, 0, &how);
        if (have == 1) {
            assert_int_equal(how, WPP_MATCH_CONTROL_GUID);
            same_statement(from_pdb, x, tmf, only);
            unique++;
        } else {
            assert_null(x);
            assert_int_equal(how, have ? WPP_MATCH_AMBIGUOUS : WPP_MATCH_NONE);
            ambiguous += have > 1;
        }
    }
    assert_true(unique > 0 && ambiguous > 0);
    assert_int_equal(unique + ambiguous, (unsigned)wpp_distinct_numbers(tmf));
    wpp_store_free(tmf);
    wpp_store_free(from_pdb);

    /* damaged copies: refused with the file and an offset, never a crash */
    wpp_store *s = wpp_store_new();
    assert_int_equal(wpp_pdb_load_memory(s, pdb.data, 100, "short", &err, NULL), ETL_ERR_FORMAT);
    pdb.data[44] = 0xFF; /* directory size 255 + ... > one block map block */
    pdb.data[45] = 0xFF;
    pdb.data[46] = 0xFF;
    assert_int_equal(wpp_pdb_load_memory(s, pdb.data, pdb.size, "dir", &err, NULL), ETL_ERR_FORMAT);
    assert_non_null(strstr(err.message, "dir: offset 0x2c"));
    pdb.data[0] = 'X';
    assert_int_equal(wpp_pdb_load_memory(s, pdb.data, pdb.size, "magic", &err, NULL), ETL_ERR_FORMAT);
    assert_non_null(strstr(err.message, "not a PDB"));
    wpp_store_free(s);
    remove(path);
    free(pdb.data);
}

/* ---- end to end: findneedle's TMFs as PDB annotations decode its traces as the TMF files do -------------- */

#define FINDNEEDLE "../shared/corpus/findneedle"

static const char *const findneedle_tmfs[] = {
    "035fd70f-a54a-3c13-f6c5-f7f2b19c92ec", "2363c985-9b6e-3283-34a7-e8c27a60b889", "4305d668-552d-302b-a84c-fbcf09373bf6",
    "4857fab7-1162-3184-360b-cdd863ddf4ea", "4bfa7244-5583-3195-181b-88348eb33cdb", "6033c1c6-a9fa-394c-0bc0-1581cb94150e",
    "744151fd-b3f4-32e6-38eb-0fd11e3fb62d", "8ff2a761-4025-3d98-c3fc-1bc40b34330d", "9b93a332-c452-3e71-64f7-55130c7de2e4",
    "d4153fff-ac08-361f-5ed7-af1d38cd1903"};

/* Each #typev block of a TMF file becomes what WPP's __annotation leaves in the object: "TMF:", the header
 * line, the #typev line without its FUNC= (the compiler knows the function: the enclosing S_GPROC32), the
 * braces and argument lines. */
static void annotate_tmf(module *m, const char *path, long *offset)
{
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char line[4096], header[4096];
    char (*strings)[1024] = calloc(64, 1024);
    unsigned count = 0;
    char function[256] = "";
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[8] == '-' && line[13] == '-' && !count) snprintf(header, sizeof header, "%s", line);
        if (strncmp(line, "#typev", 6) == 0) {
            char *func = strstr(line, " FUNC=");
            snprintf(function, sizeof function, "%s", func ? func + 6 : "");
            if (func) *func = '\0';
            snprintf(strings[0], 1024, "TMF:");
            snprintf(strings[1], 1024, "%.1000s", header);
            snprintf(strings[2], 1024, "%.1000s", line);
            count = 3;
        } else if (count && count < 64) {
            snprintf(strings[count++], 1024, "%.1000s", line);
            if (strcmp(line, "}") == 0) {
                add_proc(m, *offset, *offset + 50, function);
                add_annotation(m, *offset + 10, strings, count);
                *offset += 100;
                count = 0;
            }
        }
    }
    fclose(f);
    free(strings);
}

typedef struct collect_ctx {
    etl_decoder *decoder;
    char *messages;
    size_t length;
    unsigned decoded;
} collect_ctx;

static int collect(const etl_event_record *r, void *p)
{
    collect_ctx *c = p;
    const etl_decoded_event *ev;
    assert_int_equal(etl_decode_event(c->decoder, r, &ev), ETL_OK);
    if (r->kind != ETL_KIND_MESSAGE) return 0;
    assert_int_equal(ev->source, ETL_SOURCE_TMF);
    assert_int_equal(ev->status, ETL_DECODE_OK);
    size_t n = strlen(ev->message) + strlen(ev->task_name) + 2;
    c->messages = realloc(c->messages, c->length + n + 1);
    c->length += (size_t)sprintf(c->messages + c->length, "%s|%s\n", ev->task_name, ev->message);
    c->decoded++;
    return 0;
}

static char *decode_trace(etl_schema_registry *reg, const char *trace, unsigned *decoded)
{
    etl_trace *t;
    etl_error err;
    const char *paths[] = {trace};
    assert_int_equal(etl_open(&t, paths, 1, NULL, &err), ETL_OK);
    collect_ctx c = {etl_decoder_new(reg, t), calloc(1, 1), 0, 0};
    assert_int_equal(etl_process(t, collect, &c), ETL_OK);
    etl_decoder_free(c.decoder);
    etl_close(t);
    *decoded = c.decoded;
    return c.messages;
}

static void test_findneedle_pdb(void **state)
{
    (void)state;
    module m;
    memset(&m, 0, sizeof m);
    snprintf(m.name, sizeof m.name, "findneedle.obj");
    put32(&m.sym, 4);
    m.open_end = -1;
    long offset = 0x100;
    etl_schema_registry *by_tmf = etl_schema_registry_new(), *by_pdb = etl_schema_registry_new();
    etl_error err;
    for (size_t i = 0; i < sizeof findneedle_tmfs / sizeof findneedle_tmfs[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, FINDNEEDLE "/tmf/%s.tmf", findneedle_tmfs[i]);
        annotate_tmf(&m, path, &offset);
    }
    close_before(&m, 0x7FFFFFFF);
    assert_int_equal(etl_schema_load_tmf_path(by_tmf, FINDNEEDLE "/tmf", &err, NULL), ETL_OK);
    bytes tpi = enum_types();
    bytes pdb = build_pdb(&m, 1, &tpi);
    free(tpi.data);
    free(m.sym.data);
    char path[] = "/tmp/etlconv-wpp-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, pdb.data, pdb.size), (ssize_t)pdb.size);
    close(fd);
    const char *keep = getenv("ETLCONV_KEEP_FINDNEEDLE_PDB"); /* for tests/cli_wpp.sh (-pdb, -i) */
    if (keep) {
        FILE *k = fopen(keep, "wb");
        assert_non_null(k);
        assert_int_equal(fwrite(pdb.data, 1, pdb.size, k), pdb.size);
        fclose(k);
    }
    free(pdb.data);
    etl_tmf_load_stats stats;
    assert_int_equal(etl_schema_load_pdb_path(by_pdb, path, &err, &stats), ETL_OK);
    remove(path);
    assert_int_equal(stats.statements, 24);  /* the #typev lines of the ten files (grep -c) */
    assert_int_equal(wpp_store_statement_count(etl_schema_registry_wpp(by_pdb, 0)), 24);
    /* the two enums WppEnum2Emitter's statement names, from the types: as tracepdb's #enumv blocks say */
    assert_int_equal(stats.pdb_enums, 2);
    const wpp_store *ps = etl_schema_registry_wpp(by_pdb, 0), *ts = etl_schema_registry_wpp(by_tmf, 0);
    assert_null(wpp_store_enum(ps, "_UNUSED"));
    for (int i = 0; i < 2; i++) {
        const char *name = i ? "_MYFLAGS" : "_MYSTATE";
        const wpp_enum *x = wpp_store_enum(ps, name), *y = wpp_store_enum(ts, name);
        assert_non_null(x);
        assert_non_null(y);
        assert_int_equal(x->entry_count, y->entry_count);
        for (uint32_t k = 0; k < x->entry_count; k++) {
            assert_string_equal(x->entries[k].name, y->entries[k].name);
            assert_int_equal(x->entries[k].value, y->entries[k].value);
        }
    }
    unsigned a2, b2;
    char *x2 = decode_trace(by_tmf, "testdata/findneedle/wppenum2-sample.etl.gz", &a2);
    char *y2 = decode_trace(by_pdb, "testdata/findneedle/wppenum2-sample.etl.gz", &b2);
    assert_int_equal(a2, 1);
    assert_int_equal(b2, 1);
    assert_string_equal(y2, "main|state=StateActive flags=FlagRead | FlagExec(0x5)\n");
    assert_string_equal(y2, x2);
    free(x2);
    free(y2);

    static const char *const traces[] = {"wppemitter", "wppstr", "wpptypes", "wpptypes2", "wppenum", "wpptime",
                                         "wppbin", "wppndis"};
    static const unsigned counts[] = {45, 4, 5, 5, 2, 2, 2, 1}; /* EXPECTED.md §findneedle */
    for (size_t i = 0; i < 8; i++) {
        char trace[256];
        snprintf(trace, sizeof trace, FINDNEEDLE "/%s-sample.etl.gz", traces[i]);
        unsigned a, b;
        char *x = decode_trace(by_tmf, trace, &a), *y = decode_trace(by_pdb, trace, &b);
        assert_int_equal(a, counts[i]);
        assert_int_equal(b, counts[i]);
        assert_string_equal(y, x);
        free(x);
        free(y);
    }
    etl_schema_registry_free(by_tmf);
    etl_schema_registry_free(by_pdb);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_pdb_annotations), cmocka_unit_test(test_findneedle_pdb)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
