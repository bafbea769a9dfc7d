/* Packet extraction (src/net) and the pcapng writer over synthetic events: the cases the corpus trace does not
 * hold (truncation, drops, 802.11, NDIS raw layout and fragments, hostile sizes, table bounds). The pcapng is
 * read back with tshark (Wireshark's reader), not with our own parser. Layouts: docs/pcapng.md. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "etl/etl_net.h"
#include "etl/etl_writer.h"

static const etl_guid PKTMON = {0x4d4f80d9, 0xc8bd, 0x4d73, {0xbb, 0x5b, 0x19, 0xc9, 0x04, 0x02, 0xc5, 0xac}};
static const etl_guid NDISCAP = {0x2ed6006e, 0x4729, 0x4609, {0xb4, 0x23, 0x3e, 0xe7, 0xbc, 0xd6, 0x78, 0xef}};
#define KW_802_11 0x10000ull
#define KW_END 0x80000000ull
#define KW_SEND 0x100000000ull
#define KW_RECEIVE 0x200000000ull
#define T0 133625243079225833LL /* 2024-06-10T20:18:27.9225833Z */

typedef struct fake {
    etl_event_record record;
    etl_decoded_event event;
    etl_field fields[16];
    char values[16][512];
    uint8_t payload[2048];
} fake;

static void start(fake *f, const etl_guid *provider, uint16_t id, uint64_t keyword)
{
    memset(f, 0, sizeof *f);
    f->record.header.provider_id = *provider;
    f->record.header.descriptor.id = id;
    f->record.header.descriptor.keyword = keyword;
    f->record.header.timestamp = T0;
    f->record.header.process_id = 4;
    f->record.header.thread_id = 88;
    f->record.pointer_size = 8;
    f->event.record = &f->record;
    f->event.status = ETL_DECODE_OK;
    f->event.provider_name = "P";
    f->event.event_name = "E";
    f->event.fields = f->fields;
}

static void field(fake *f, const char *name, const char *value)
{
    size_t i = f->event.field_count++;
    snprintf(f->values[i], sizeof f->values[i], "%s", value);
    f->fields[i] = (etl_field){ETL_FIELD_VALUE, name, f->values[i], 0, 0, 0, -1, NULL};
}

/* pktmon packet event with decoded fields; payload `n` bytes of 0xAB */
static void pktmon(fake *f, uint16_t id, const char *type, const char *dir, unsigned component, unsigned original,
                   unsigned n)
{
    char num[32], hex[2 * 1024 + 3] = "0x";
    start(f, &PKTMON, id, 0x10);
    field(f, "PktGroupId", "77");
    field(f, "PktNumber", "1");
    field(f, "AppearanceCount", "2");
    field(f, "DirTag", dir);
    field(f, "PacketType", type);
    snprintf(num, sizeof num, "%u", component);
    field(f, "ComponentId", num);
    field(f, "EdgeId", "1");
    field(f, "FilterId", "3");
    field(f, "DropReason", "Filtered VLAN");
    field(f, "DropLocation", "0xE0004");
    snprintf(num, sizeof num, "%u", original);
    field(f, "OriginalPayloadSize", num);
    snprintf(num, sizeof num, "%u", n);
    field(f, "LoggedPayloadSize", num);
    for (unsigned i = 0; i < n && i < 1024; i++) memcpy(hex + 2 + 2 * i, "AB", 3);
    field(f, "Payload", n ? hex : "");
}

/* ndiscap 1001 without a schema: MiniportIfIndex, LowerIfIndex, FragmentSize, Fragment */
static void ndis_raw(fake *f, uint64_t keyword, uint32_t ifindex, const uint8_t *frame, uint32_t size, uint32_t claimed)
{
    start(f, &NDISCAP, 1001, keyword);
    f->event.status = ETL_DECODE_NO_SCHEMA;
    uint8_t *p = f->payload;
    uint32_t v[3] = {ifindex, ifindex, claimed};
    for (int k = 0; k < 3; k++)
        for (int b = 0; b < 4; b++) p[4 * k + b] = (uint8_t)(v[k] >> (8 * b));
    memcpy(p + 12, frame, size);
    f->record.user_data = p;
    f->record.user_data_length = (uint16_t)(12 + size);
}

static void test_pktmon_fields(void **state)
{
    (void)state;
    etl_net_extractor *x = etl_net_extractor_new();
    fake f;
    etl_net_packet p;
    pktmon(&f, 160, "1", "4", 59, 1500, 60);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_int_equal(p.link_type, ETL_NET_LINK_ETHERNET);
    assert_int_equal(p.direction, ETL_NET_DIR_OUT);
    assert_int_equal(p.captured_length, 60);
    assert_int_equal(p.original_length, 1500);  /* truncated: OriginalPayloadSize kept */
    assert_int_equal(p.data[59], 0xAB);
    assert_true(p.group_id == 77);
    assert_false(p.dropped);
    assert_string_equal(p.comment, "PID=4 TID=88 PktGroupId=77 PktNumber=1 Appearance=2 Component=59 Edge=1 Filter=3");
    /* a drop at another component, WiFi, inbound (DirTag 3 = Rx) */
    pktmon(&f, 170, "2", "3", 61, 40, 40);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_true(p.dropped);
    assert_int_equal(p.link_type, ETL_NET_LINK_IEEE802_11);
    assert_int_equal(p.direction, ETL_NET_DIR_IN);
    assert_int_equal(p.interface_index, 1);
    assert_non_null(strstr(p.comment, " Drop: reason=Filtered VLAN location=0xE0004"));
    /* HTTP payloads have no link layer; a Payload shorter than LoggedPayloadSize does not fit */
    pktmon(&f, 160, "4", "4", 59, 10, 10);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    pktmon(&f, 160, "1", "4", 59, 10, 10);
    f.values[12][0] = '\0';
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    assert_int_equal(etl_net_get_stats(x)->undecodable, 2);
    /* component description and address, logged after the packets, name the interface */
    start(&f, &PKTMON, 20, 0x2);
    field(&f, "Id", "59");
    field(&f, "Type", "1");
    field(&f, "Name", "netvsc.sys");
    field(&f, "Description", "Adapter #3");
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    start(&f, &PKTMON, 65, 0x2);
    field(&f, "ComponentId", "59");
    field(&f, "Type", "2");
    field(&f, "IpAddress", "10.9.1.22");
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    const etl_net_interface *in = etl_net_interface_at(x, 0);
    assert_string_equal(in->name, "netvsc.sys");
    assert_string_equal(in->description, "Adapter #3");
    assert_true(in->has_ipv4 && in->ipv4[0] == 10 && in->ipv4[3] == 22);
    assert_string_equal(etl_net_interface_at(x, 1)->name, "pktmon:61");
    etl_net_extractor_free(x);
}

static void test_pktmon_raw_layout(void **state)
{
    (void)state;
    etl_net_extractor *x = etl_net_extractor_new();
    fake f;
    etl_net_packet p;
    start(&f, &PKTMON, 160, 0x10);
    f.event.status = ETL_DECODE_NO_SCHEMA;
    memset(f.payload, 0, 34);
    f.payload[0] = 9;                      /* PktGroupId */
    f.payload[12] = 1;                     /* DirTag In */
    f.payload[14] = 3;                     /* PacketType IP */
    f.payload[16] = 7;                     /* ComponentId */
    f.payload[30] = 200;                   /* OriginalPayloadSize */
    f.payload[32] = 20;                    /* LoggedPayloadSize */
    f.payload[34] = 0x45;
    f.record.user_data = f.payload;
    f.record.user_data_length = 54;
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_int_equal(p.link_type, ETL_NET_LINK_RAW);
    assert_int_equal(p.direction, ETL_NET_DIR_IN);
    assert_int_equal(p.captured_length, 20);
    assert_int_equal(p.original_length, 200);
    assert_int_equal(p.data[0], 0x45);
    f.record.user_data_length = 53;        /* sizes no longer add up: refused, counted */
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    assert_int_equal(etl_net_get_stats(x)->undecodable, 1);
    etl_net_extractor_free(x);
}

static void test_ndiscap(void **state)
{
    (void)state;
    etl_net_extractor *x = etl_net_extractor_new();
    fake f;
    etl_net_packet p;
    /* native 802.11 data frame with the Protected bit (0x40) set: cleared as etl2pcapng does */
    uint8_t wifi[24] = {0x08, 0x41};
    ndis_raw(&f, KW_802_11 | KW_END | KW_RECEIVE, 7, wifi, sizeof wifi, sizeof wifi);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_int_equal(p.link_type, ETL_NET_LINK_IEEE802_11);
    assert_int_equal(p.data[1], 0x01);
    assert_int_equal(p.direction, ETL_NET_DIR_IN);
    assert_string_equal(etl_net_interface_at(x, p.interface_index)->name, "wifi:7");
    assert_string_equal(p.comment, "PID=4 TID=88");
    /* Ethernet + IPv4 header saying 1500 bytes, 54 captured: original length 1514 */
    uint8_t eth[54] = {0};
    eth[12] = 0x08;
    eth[14] = 0x45;
    eth[16] = 0x05;
    eth[17] = 0xDC;
    ndis_raw(&f, KW_END | KW_SEND, 3, eth, sizeof eth, sizeof eth);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_int_equal(p.captured_length, 54);
    assert_int_equal(p.original_length, 1514);
    assert_int_equal(p.direction, ETL_NET_DIR_OUT);
    assert_string_equal(etl_net_interface_at(x, p.interface_index)->name, "eth:3:0");
    /* a packet in two events (before Windows 8.1): only the one with PACKET_END returns it, joined */
    ndis_raw(&f, KW_SEND, 3, eth, 20, 20);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    ndis_raw(&f, KW_END | KW_SEND, 3, eth + 20, 34, 34);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 1);
    assert_int_equal(p.captured_length, 54);
    assert_memory_equal(p.data, eth, 54);
    /* FragmentSize larger than the payload: refused */
    ndis_raw(&f, KW_END, 3, eth, 10, 11);
    assert_int_equal(etl_net_extract(x, &f.event, &p), 0);
    assert_int_equal(etl_net_get_stats(x)->undecodable, 1);
    assert_int_equal(etl_net_interface_count(x), 2);
    etl_net_extractor_free(x);
}

static void test_interface_bound(void **state)
{
    (void)state;
    etl_net_extractor *x = etl_net_extractor_new();
    fake f;
    etl_net_packet p;
    for (unsigned c = 0; c < ETL_NET_MAX_INTERFACES + 3; c++) {
        pktmon(&f, 160, "1", "4", c, 4, 4);
        etl_net_extract(x, &f.event, &p);
    }
    assert_int_equal(etl_net_interface_count(x), ETL_NET_MAX_INTERFACES);
    assert_int_equal(etl_net_get_stats(x)->interface_overflow, 3);
    etl_net_extractor_free(x);
}

static int file_sink(void *ctx, const void *data, size_t length)
{
    return fwrite(data, 1, length, ctx) == length ? 0 : -1;
}

/* pcapng of synthetic events read back by tshark: lengths, flags, verdict, packet id, 802.11 bit. */
static void test_pcapng_tshark(void **state)
{
    (void)state;
    if (system("command -v tshark > /dev/null 2>&1") != 0) fail_msg("tshark is missing (tests/ensure_deps.sh)");
    char path[64];
    snprintf(path, sizeof path, "/tmp/test_net-%ld.pcapng", (long)getpid());
    FILE *out = fopen(path, "wb");
    assert_non_null(out);
    etl_sink sink = {file_sink, out};
    etl_writer_options opt = {0};
    etl_writer *w = etl_writer_new(etl_writer_format_find("pcapng"), &sink, &opt);
    assert_non_null(w);
    assert_int_equal(etl_writer_begin(w), 0);
    fake f;
    pktmon(&f, 170, "1", "4", 59, 1500, 60);
    assert_int_equal(etl_writer_event(w, &f.event), 0);
    uint8_t wifi[24] = {0x08, 0x41};
    ndis_raw(&f, KW_802_11 | KW_END | KW_RECEIVE, 7, wifi, sizeof wifi, sizeof wifi);
    f.record.header.timestamp = T0 + 1;
    assert_int_equal(etl_writer_event(w, &f.event), 0);
    assert_int_equal(etl_writer_end(w, NULL), 0);
    etl_writer_free(w);
    fclose(out);
    char cmd[512], line[512] = "";
    snprintf(cmd, sizeof cmd,
             "tshark -r %s -T fields -E separator=, -e frame.len -e frame.cap_len -e frame.packet_flags_direction "
             "-e frame.packet_id -e frame.verdict.ebpf_xdp -e frame.encap_type -e wlan.fc.protected "
             "-e frame.time_epoch 2>/dev/null", path);
    FILE *t = popen(cmd, "r");
    assert_non_null(t);
    assert_non_null(fgets(line, sizeof line, t));
    assert_string_equal(line, "1500,60,0x00000002,77,1,1,,1718050707.922583300\n");
    assert_non_null(fgets(line, sizeof line, t));
    assert_string_equal(line, "24,24,0x00000001,,,20,0,1718050707.922583400\n");
    assert_int_equal(pclose(t), 0);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pktmon_fields),
        cmocka_unit_test(test_pktmon_raw_layout),
        cmocka_unit_test(test_ndiscap),
        cmocka_unit_test(test_interface_bound),
        cmocka_unit_test(test_pcapng_tshark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
