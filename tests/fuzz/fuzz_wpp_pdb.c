/* libFuzzer target for the PDB reader of WPP annotations (built by `make fuzz`, never by `make check`): the
 * input is a PDB (MSF container, stream directory, DBI module list, module symbol streams); every TMF
 * statement its annotations give is then decoded against the input's last 64 bytes, and looked up by component
 * id; "TMC:" control GUIDs and TPI enums are read on the way. Seeds: tests/fuzz/seeds.sh wpp-pdb (the PDBs
 * tests/test_wpp_pdb.c builds). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/pdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    wpp_store *store = wpp_store_new();
    wpp_decoder *d = wpp_decoder_new();
    etl_error err;
    if (store && d) {
        wpp_pdb_load_memory(store, data, size, "fuzz", &err, NULL);
        size_t tail = size < 64 ? size : 64;
        for (size_t i = 0; i < wpp_store_statement_count(store) && i < 32; i++) {
            const wpp_statement *st = wpp_store_statement_at(store, i);
            etl_event_record rec;
            memset(&rec, 0, sizeof rec);
            rec.kind = ETL_KIND_MESSAGE;
            rec.header.provider_id = st->guid;
            rec.header.descriptor.id = st->number;
            rec.user_data = data + size - tail;
            rec.user_data_length = (uint16_t)tail;
            etl_decoded_event ev;
            memset(&ev, 0, sizeof ev);
            ev.record = &rec;
            etl_render_context ctx = {8, NULL, 0, NULL};
            if (wpp_decode(d, store, &rec, &ctx, &ev) == 1) sink += strlen(ev.message);
            /* the GUID-less forms: TRACE_MESSAGE_COMPONENTID (Data1 only), and a control GUID (TMC:) */
            wpp_match how;
            etl_guid id = {st->guid.data1, 0, 0, {0}};
            sink += wpp_store_lookup(store, &id, st->number, 1, &how) != NULL;
            const wpp_control *c = wpp_store_control_at(store, i % (wpp_store_control_count(store) + 1));
            if (c) sink += c->flag_count + (wpp_store_lookup(store, &c->guid, st->number, 0, &how) != NULL);
        }
    }
    wpp_decoder_free(d);
    wpp_store_free(store);
    return 0;
}
