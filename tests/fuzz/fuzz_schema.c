/* libFuzzer target for the user-supplied schema sources (built by `make fuzz`, never by `make check`).
 *
 * The first input byte selects the parser, the rest is its input:
 *   0 (mod 3): an instrumentation manifest (XML, libxml2 with our hardening),
 *   1: a CRIM blob (WEVT_TEMPLATE resource content) without a message table,
 *   2: a whole PE file (resource directory walk, WEVT_TEMPLATE, RT_MESSAGETABLE).
 * Whatever loads is then exercised the way a conversion would: every loaded event description decodes a
 * payload cut from the input's tail (counts, lengths and maps from a hostile schema against hostile data),
 * and the registry is exported as a manifest that is parsed back. Seeds: tests/fuzz/seeds.sh schema. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl.h"
#include "etl/etl_schema.h"
#include "schema/manifest_model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_DECODED_EVENTS 64

static char path[64];
static volatile uint32_t sink;

typedef struct decode_ctx {
    etl_decoder *decoder;
    const uint8_t *payload;
    size_t payload_size;
    unsigned decoded;
} decode_ctx;

static void touch_text(const char *s)
{
    if (s) sink += (uint32_t)strlen(s);
}

static int decode_with(const etl_event_info *info, etl_schema_key_kind key, void *p)
{
    decode_ctx *c = p;
    if (key != ETL_KEY_MANIFEST || c->decoded++ >= MAX_DECODED_EVENTS) return c->decoded > MAX_DECODED_EVENTS;
    etl_event_record r;
    memset(&r, 0, sizeof r);
    r.kind = ETL_KIND_EVENT64;
    r.pointer_size = (c->decoded & 1) ? 8 : 4;
    r.header.provider_id = info->provider_guid;
    r.header.descriptor = info->descriptor;
    r.header.process_id = 4;
    r.header.thread_id = 8;
    r.kernel_group = 0xFFFF;
    r.user_data = c->payload;
    r.user_data_length = (uint16_t)(c->payload_size > 0xFFFF ? 0xFFFF : c->payload_size);
    const etl_decoded_event *ev = NULL;
    if (etl_decode_event(c->decoder, &r, &ev) != ETL_OK || !ev) abort();
    for (size_t i = 0; i < ev->field_count; i++) {
        touch_text(ev->fields[i].name);
        touch_text(ev->fields[i].value);
    }
    touch_text(ev->message);
    touch_text(ev->event_name);
    touch_text(ev->error);
    for (size_t i = 0; i < ev->undecoded_length; i++) sink += ev->undecoded[i];
    return 0;
}

static void exercise(etl_schema_registry *registry, const uint8_t *data, size_t size)
{
    decode_ctx c = {etl_decoder_new(registry, NULL), NULL, 0, 0};
    if (!c.decoder) abort();
    /* the payload: the input's last quarter, so the fuzzer controls both schema and data */
    c.payload_size = size / 4;
    c.payload = data + size - c.payload_size;
    etl_schema_registry_visit(registry, decode_with, &c);
    etl_decoder_free(c.decoder);

    char *text = NULL;
    size_t length = 0;
    FILE *out = open_memstream(&text, &length);
    if (!out) abort();
    etl_error err;
    int rc = etl_schema_export_manifest(registry, NULL, 0, out, &err);
    fclose(out);
    if (rc == ETL_OK && length) {
        /* what we write, we must read back */
        etl_schema_registry *back = etl_schema_registry_new();
        if (!back) abort();
        if (etl_schema_load_manifest_memory(back, text, length, "exported", ETL_SOURCE_USER_MANIFEST, &err) != ETL_OK) {
            fprintf(stderr, "export not readable: %s\n%.*s\n", err.message, (int)(length > 4000 ? 4000 : length), text);
            abort();
        }
        etl_schema_registry_free(back);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    unsigned selector = data[0] % 3;
    data++;
    size--;
    etl_schema_registry *registry = etl_schema_registry_new();
    if (!registry) abort();
    etl_error err;
    int rc = ETL_OK;
    if (selector == 0) {
        rc = etl_schema_load_manifest_memory(registry, (const char *)data, size, "fuzz.man", ETL_SOURCE_USER_MANIFEST,
                                             &err);
    } else if (selector == 1) {
        etl_schema_set set;
        etl_schema_set_init(&set);
        rc = etl_wevt_parse(&set, data, size, NULL, "fuzz.crim", &err);
        if (set.event_count || set.provider_count) {
            etl_error rerr;
            etl_schema_set_register(&set, registry, ETL_SOURCE_USER_WEVT, &rerr);
        }
        etl_schema_set_free(&set);
    } else {
        if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_schema-%ld.dll", (long)getpid());
        FILE *f = fopen(path, "wb");
        if (!f || (size && fwrite(data, 1, size, f) != size)) abort();
        fclose(f);
        rc = etl_schema_load_pe_file(registry, path, &err);
    }
    if (rc != ETL_OK) touch_text(err.message);
    exercise(registry, data, size);
    etl_schema_registry_free(registry);
    return 0;
}
