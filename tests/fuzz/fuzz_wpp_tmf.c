/* libFuzzer target for WPP (built by `make fuzz`, never by `make check`): the TMF parser and the argument
 * walker. The first byte selects:
 *   even: the rest is "<TMF text>\0<payload>": the text is parsed, then every statement it loaded (up to 64)
 *         decodes the payload as a classic trace message with 4- and 8-byte pointers and as a
 *         TRACE_MESSAGE_COMPONENTID one, and the tracefmt prefix is expanded with the statement's message;
 *   odd:  the rest is "<message number byte><payload>" decoded with a fixed TMF that holds every item type
 *         (the walker and renderers against hostile payloads).
 * Seeds: tests/fuzz/seeds.sh wpp. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/wpp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile size_t sink;

static const char every_item[] =
    "00000000-0000-0000-0000-000000000001 Fuzz // SRC=f.c\n"
    "#typev f_c1 1 \"%10!d! %11!u! %12!x! %13!I64X! %14!p! %15!s! %16!-9.3s! %17!s! %18!s!\" // LEVEL=L FUNC=F\n"
    "{\na, ItemChar -- 10\nb, ItemShort -- 11\nc, ItemLong -- 12\nd, ItemLongLongXX -- 13\ne, ItemPtr -- 14\n"
    "f, ItemString -- 15\ng, ItemWString -- 16\nh, ItemPString -- 17\ni, ItemPWString -- 18\n}\n"
    "#typev f_c2 2 \"%10!s! %11!s! %12!s! %13!s! %14!s! %15!s! %16!s! %17!s! %18!s! %19!s!\" // LEVEL=L\n"
    "{\na, ItemSid -- 10\nb, ItemGuid -- 11\nc, ItemNTSTATUS -- 12\nd, ItemHRESULT -- 13\ne, ItemWINERROR -- 14\n"
    "f, ItemNDIS_STATUS -- 15\ng, ItemNDIS_OID -- 16\nh, ItemIPAddr -- 17\ni, ItemIPV6Addr -- 18\nj, ItemPort -- 19\n}\n"
    "#typev f_c3 3 \"%10!s! %11!s! %12!s! %13!s! %14!s! %15!.2f! %16!s! %17!s! %18!s! %19!s!\" // LEVEL=L\n"
    "{\na, ItemChar4 -- 10\nb, ItemTimestamp -- 11\nc, ItemWaitTime -- 12\nd, ItemTimeDelta -- 13\ne, ItemHexDump -- 14\n"
    "f, ItemDouble -- 15\ng, ItemListByte(a,b,c) -- 16\nh, ItemSetShort(x,y) -- 17\ni, ItemEnum(E) -- 18\n"
    "j, ItemFlagsEnum(E) -- 19\n}\n"
    "#typev f_c4 4 \"%10!s! %11!08X! %12!s!\" // LEVEL=L\n"
    "{\na, ItemRString -- 10\nb, ItemListLong(false,true) -- 11\nc, ItemSetLong(1,2,3) -- 12\n}\n"
    "#enumv E\n{\nA,0\nB,1\nC,0x4\n}\n";

static void decode_all(const wpp_store *store, const wpp_statement *st, const uint8_t *payload, size_t n)
{
    wpp_decoder *d = wpp_decoder_new();
    if (!d) return;
    for (int pass = 0; pass < 3; pass++) {
        unsigned ptr = pass ? 8 : 4;
        etl_event_record rec;
        memset(&rec, 0, sizeof rec);
        rec.kind = ETL_KIND_MESSAGE;
        rec.header.provider_id = st->guid;
        if (pass == 2) { /* TRACE_MESSAGE_COMPONENTID: only the GUID's Data1, found through the second index */
            rec.wpp_option_flags = WPP_TRACE_MESSAGE_COMPONENTID;
            memset(&rec.header.provider_id, 0, sizeof rec.header.provider_id);
            rec.header.provider_id.data1 = st->guid.data1;
        }
        rec.header.descriptor.id = st->number;
        rec.user_data = payload;
        rec.user_data_length = (uint16_t)(n > 65535 ? 65535 : n);
        rec.pointer_size = (uint8_t)ptr;
        etl_decoded_event ev;
        memset(&ev, 0, sizeof ev);
        ev.record = &rec;
        etl_render_context ctx = {(uint8_t)ptr, NULL, 0, NULL};
        if (wpp_decode(d, store, &rec, &ctx, &ev) == 1) {
            sink += strlen(ev.message);
            for (size_t i = 0; i < ev.field_count; i++) sink += strlen(ev.fields[i].value);
            etl_textbuf t = {0}, scratch = {0};
            wpp_expand_prefix(&t, st->format, &ev, "time", &scratch);
            sink += t.length;
            etl_textbuf_free(&t);
            etl_textbuf_free(&scratch);
        }
    }
    wpp_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    wpp_store *store = wpp_store_new();
    if (!store) return 0;
    etl_error err;
    if (data[0] % 2 == 0) {
        const uint8_t *text = data + 1;
        size_t left = size - 1;
        const uint8_t *nul = memchr(text, 0, left);
        size_t text_len = nul ? (size_t)(nul - text) : left;
        const uint8_t *payload = nul ? nul + 1 : text + left;
        size_t payload_len = nul ? left - text_len - 1 : 0;
        wpp_store_parse(store, (const char *)text, text_len, "fuzz", NULL, &err);
        size_t n = wpp_store_statement_count(store);
        for (size_t i = 0; i < n && i < 64; i++) decode_all(store, wpp_store_statement_at(store, i), payload, payload_len);
    } else if (size >= 2 && wpp_store_parse(store, every_item, sizeof every_item - 1, "fixed", NULL, &err) == ETL_OK) {
        etl_guid g = {1, 0, 0, {0}};
        g.data1 = 0;
        g.data4[7] = 1;
        const wpp_statement *st = wpp_store_find(store, &g, (uint16_t)(1 + data[1] % 4));
        if (st) decode_all(store, st, data + 2, size - 2);
    }
    wpp_store_free(store);
    return 0;
}
