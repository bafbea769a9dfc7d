/* Packet extraction from the capture providers' events (sources and field names: docs/pcapng.md). Fields are
 * read by name from whatever schema decoded the event; when no schema is available, pktmon's packet events
 * and NDIS-PacketCapture's fragment events fall back to their fixed layouts (checked to add up exactly). */
#include <arpa/inet.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/event_fields.h"
#include "net/net_internal.h"
#include "util/le.h"

static const etl_guid PKTMON = {0x4d4f80d9, 0xc8bd, 0x4d73, {0xbb, 0x5b, 0x19, 0xc9, 0x04, 0x02, 0xc5, 0xac}};
static const etl_guid NDISCAP = {0x2ed6006e, 0x4729, 0x4609, {0xb4, 0x23, 0x3e, 0xe7, 0xbc, 0xd6, 0x78, 0xef}};
static const etl_guid NDISWAN = {0xd84521f7, 0x2235, 0x4237, {0xa7, 0xc0, 0x14, 0xe3, 0xa9, 0x67, 0x62, 0x86}};

enum {
    PKTMON_COMPONENT = 20, PKTMON_IPV4 = 65, PKTMON_IPV6 = 66, PKTMON_MAC = 70, PKTMON_PACKET = 160,
    PKTMON_DROP = 170,
    NDIS_FRAGMENT = 1001, NDIS_METADATA = 1002, NDIS_VMSWITCH = 1003, RAS_SEND = 5001, RAS_RECEIVE = 5002
};

/* ndiscap keywords (its manifest) */
#define KW_MEDIA_WIRELESS_WAN 0x200ull
#define KW_MEDIA_NATIVE_802_11 0x10000ull
#define KW_PACKET_END 0x80000000ull
#define KW_SEND 0x100000000ull
#define KW_RECEIVE 0x200000000ull

etl_net_extractor *etl_net_extractor_new(void)
{
    return calloc(1, sizeof(etl_net_extractor));
}

void etl_net_extractor_free(etl_net_extractor *x)
{
    if (!x) return;
    free(x->interfaces);
    free(x->components);
    free(x);
}

int etl_net_is_packet_event(const etl_event_record *r)
{
    uint16_t id = r->header.descriptor.id;
    if (etl_guid_equal(&r->header.provider_id, &PKTMON)) return id == PKTMON_PACKET || id == PKTMON_DROP;
    if (etl_guid_equal(&r->header.provider_id, &NDISCAP)) return id == NDIS_FRAGMENT || id == NDIS_VMSWITCH;
    if (etl_guid_equal(&r->header.provider_id, &NDISWAN)) return id == RAS_SEND || id == RAS_RECEIVE;
    return 0;
}

/* ---- pktmon ---------------------------------------------------------------------------------------------- */

typedef struct pktmon_values {
    uint64_t group, number, appearance, dir, type, component, edge, filter, drop_reason, drop_location;
    uint64_t original, logged;
    const char *drop_reason_text;
    long payload;  /* bytes in x->packet */
} pktmon_values;

static int pktmon_from_fields(etl_net_extractor *x, const etl_decoded_event *ev, pktmon_values *v)
{
    if (net_field_u64(ev, "PktGroupId", &v->group) || net_field_u64(ev, "ComponentId", &v->component) ||
        net_field_u64(ev, "PacketType", &v->type) || net_field_u64(ev, "LoggedPayloadSize", &v->logged))
        return -1;
    net_field_u64(ev, "PktNumber", &v->number);
    net_field_u64(ev, "AppearanceCount", &v->appearance);
    if (net_field_u64(ev, "DirTag", &v->dir)) v->dir = 0;
    net_field_u64(ev, "EdgeId", &v->edge);
    net_field_u64(ev, "FilterId", &v->filter);
    net_field_u64(ev, "DropReason", &v->drop_reason);
    net_field_u64(ev, "DropLocation", &v->drop_location);
    v->drop_reason_text = net_field_text(ev, "DropReason");
    if (net_field_u64(ev, "OriginalPayloadSize", &v->original)) v->original = v->logged;
    v->payload = net_field_bytes(ev, "Payload", x->packet, sizeof x->packet);
    return v->payload < 0 || (uint64_t)v->payload != v->logged ? -1 : 0;
}

/* The layout Windows Server 2022's pktmon describes for event 160 in the corpus trace's metadata. */
enum { PKTMON_FIXED = 34 };
static int pktmon_from_bytes(etl_net_extractor *x, const etl_event_record *r, pktmon_values *v)
{
    const uint8_t *p = r->user_data;
    if (r->user_data_length < PKTMON_FIXED) return -1;
    v->group = etl_le64(p);
    v->number = etl_le16(p + 8);
    v->appearance = etl_le16(p + 10);
    v->dir = etl_le16(p + 12);
    v->type = etl_le16(p + 14);
    v->component = etl_le16(p + 16);
    v->edge = etl_le16(p + 18);
    v->filter = etl_le16(p + 20);
    v->drop_reason = etl_le32(p + 22);
    v->drop_location = etl_le32(p + 26);
    v->original = etl_le16(p + 30);
    v->logged = etl_le16(p + 32);
    v->drop_reason_text = "";
    if (PKTMON_FIXED + v->logged != r->user_data_length) return -1;
    memcpy(x->packet, p + PKTMON_FIXED, (size_t)v->logged);
    v->payload = (long)v->logged;
    return 0;
}

static int pktmon_packet(etl_net_extractor *x, const etl_decoded_event *ev, etl_net_packet *out)
{
    pktmon_values v;
    memset(&v, 0, sizeof v);
    int ok = ev->status == ETL_DECODE_OK ? pktmon_from_fields(x, ev, &v) : pktmon_from_bytes(x, ev->record, &v);
    /* PacketType: 1 Ethernet, 2 WiFi, 3 IP; others (unknown, HTTP...) have no link layer to give Wireshark */
    uint16_t link = v.type == 1 ? ETL_NET_LINK_ETHERNET : v.type == 2 ? ETL_NET_LINK_IEEE802_11
                  : v.type == 3 ? ETL_NET_LINK_RAW : 0;
    if (ok != 0 || link == 0 || v.component > UINT32_MAX) {
        x->stats.undecodable++;
        return 0;
    }
    long idx = net_interface_find_or_add(x, ETL_NET_PKTMON, (uint32_t)v.component, link, 0, 0, NULL, NULL);
    if (idx == -2) return ETL_ERR_NOMEM;
    if (idx < 0) {
        x->stats.interface_overflow++;
        return 0;
    }
    out->source = ETL_NET_PKTMON;
    out->interface_index = (uint32_t)idx;
    out->link_type = link;
    /* PacketDirectionTag: 1 In, 2 Out, 3 Rx, 4 Tx, 5 Ingress, 6 Egress */
    out->direction = v.dir == 1 || v.dir == 3 || v.dir == 5 ? ETL_NET_DIR_IN
                   : v.dir == 2 || v.dir == 4 || v.dir == 6 ? ETL_NET_DIR_OUT : ETL_NET_DIR_UNKNOWN;
    out->captured_length = (uint32_t)v.payload;
    out->original_length = v.original > v.logged ? (uint32_t)v.original : (uint32_t)v.logged;
    out->group_id = v.group;
    out->packet_number = (uint32_t)v.number;
    out->appearance = (uint32_t)v.appearance;
    out->edge_id = (uint32_t)v.edge;
    out->filter_id = (uint32_t)v.filter;
    out->dropped = ev->record->header.descriptor.id == PKTMON_DROP;
    out->drop_location = (uint32_t)v.drop_location;
    if (v.drop_reason_text[0]) snprintf(out->drop_reason, sizeof out->drop_reason, "%s", v.drop_reason_text);
    else snprintf(out->drop_reason, sizeof out->drop_reason, "%llu", (unsigned long long)v.drop_reason);
    int n = snprintf(out->comment, sizeof out->comment,
                     "PID=%u TID=%u PktGroupId=%llu PktNumber=%u Appearance=%u Component=%u Edge=%u Filter=%u",
                     (unsigned)out->process_id, (unsigned)out->thread_id, (unsigned long long)v.group,
                     out->packet_number, out->appearance, (unsigned)v.component, out->edge_id, out->filter_id);
    if (out->dropped && n > 0 && (size_t)n < sizeof out->comment)
        snprintf(out->comment + n, sizeof out->comment - (size_t)n, " Drop: reason=%s location=0x%X",
                 out->drop_reason, (unsigned)out->drop_location);
    return 1;
}

/* Component descriptions and addresses: name the interfaces whenever they arrive (pktmon logs them at the
 * end of the capture). */
static int pktmon_component(etl_net_extractor *x, const etl_decoded_event *ev)
{
    uint16_t id = ev->record->header.descriptor.id;
    uint64_t component;
    if (ev->status != ETL_DECODE_OK ||
        net_field_u64(ev, id == PKTMON_COMPONENT ? "Id" : "ComponentId", &component) || component > UINT32_MAX)
        return 0;
    net_component *c = net_component_get(x, (uint32_t)component);
    if (!c) return 0;
    if (id == PKTMON_COMPONENT) {
        snprintf(c->name, sizeof c->name, "%s", net_field_text(ev, "Name"));
        snprintf(c->description, sizeof c->description, "%s", net_field_text(ev, "Description"));
    } else if (id == PKTMON_IPV4) {
        c->has_ipv4 = inet_pton(AF_INET, net_field_text(ev, "IpAddress"), c->ipv4) == 1;
    } else if (id == PKTMON_IPV6) {
        c->has_ipv6 = inet_pton(AF_INET6, net_field_text(ev, "IpAddress"), c->ipv6) == 1;
    } else if (id == PKTMON_MAC) {
        uint8_t mac[16];
        if (net_field_bytes(ev, "Value", mac, sizeof mac) == 6) {
            memcpy(c->mac, mac, 6);
            c->has_mac = 1;
        }
    }
    net_component_changed(x, c);
    return 0;
}

/* ---- NDIS-PacketCapture, VMSwitch, RAS NdisWan --------------------------------------------------------- */

/* DOT11_EXTSTA_RECV_CONTEXT (windot11.h, 64-bit layout, 48 bytes) → the text etl2pcapng puts in the comment */
static void ndis_wifi_metadata(etl_net_extractor *x, const etl_decoded_event *ev)
{
    static const char *const phy[] = {"Unknown", "Fhss", "Dsss", "IrBaseband", "802.11a", "802.11b",
                                      "802.11g", "802.11n", "802.11ac", "802.11ad", "802.11ax"};
    uint8_t m[64];
    long n = net_field_bytes(ev, "Metadata", m, sizeof m);
    x->have_wifi_meta = 0;
    if (n != 48) return;
    uint32_t phy_id = etl_le32(m + 8);
    snprintf(x->wifi_meta, sizeof x->wifi_meta,
             " ReceiveFlags=0x%x PhyType=%s CenterCh=%u NumMPDUsReceived=%u RSSI=%d DataRate=%u",
             (unsigned)etl_le32(m + 4), phy[phy_id < sizeof phy / sizeof phy[0] ? phy_id : 0],
             (unsigned)etl_le32(m + 12), (unsigned)etl_le16(m + 16), (int)(int32_t)etl_le32(m + 20),
             (unsigned)m[24]);
    x->have_wifi_meta = 1;
}

/* Original length of a truncated frame from its IP header, as etl2pcapng infers it (ndiscap logs none). */
static uint32_t inferred_length(const uint8_t *p, uint32_t n, uint16_t link)
{
    uint32_t ip = 0;
    if (link == ETL_NET_LINK_ETHERNET) {
        if (n < 14) return n;
        uint16_t type = (uint16_t)(p[12] << 8 | p[13]);
        if (type != 0x0800 && type != 0x86DD) return n;
        ip = 14;
    } else if (link != ETL_NET_LINK_RAW) {
        return n;
    }
    uint32_t len = 0;
    if (n >= ip + 20 && p[ip] >> 4 == 4) len = ip + (uint32_t)(p[ip + 2] << 8 | p[ip + 3]);
    else if (n >= ip + 40 && p[ip] >> 4 == 6) len = ip + 40 + (uint32_t)(p[ip + 4] << 8 | p[ip + 5]);
    /* LSOv2 packets leave the IP length 0: keep the captured length then */
    return len > n ? len : n;
}

static int ndis_packet(etl_net_extractor *x, const etl_decoded_event *ev, etl_net_packet *out, etl_net_source src)
{
    const etl_event_record *r = ev->record;
    uint64_t kw = r->header.descriptor.keyword, lower = 0xFFFFFFFFu, miniport = 0xFFFFFFFFu, size = 0;
    uint16_t link = src == ETL_NET_NDISWAN ? ETL_NET_LINK_ETHERNET
                  : (kw & KW_MEDIA_NATIVE_802_11) ? ETL_NET_LINK_IEEE802_11
                  : (kw & KW_MEDIA_WIRELESS_WAN) ? ETL_NET_LINK_RAW : ETL_NET_LINK_ETHERNET;
    const uint8_t *fragment = NULL;
    long got = -1;
    uint32_t room = (uint32_t)sizeof x->packet - x->pending;
    if (ev->status == ETL_DECODE_OK) {
        if (src != ETL_NET_NDISWAN && net_field_u64(ev, "LowerIfIndex", &lower)) lower = UINT64_MAX;
        net_field_u64(ev, "MiniportIfIndex", &miniport);
        if (net_field_u64(ev, "FragmentSize", &size) == 0)
            got = net_field_bytes(ev, "Fragment", x->packet + x->pending, room);
    } else if (src == ETL_NET_NDISCAP && r->user_data_length >= 12) {
        /* MiniportIfIndex, LowerIfIndex, FragmentSize, Fragment[FragmentSize] (then optional GFT fields) */
        miniport = etl_le32(r->user_data);
        lower = etl_le32(r->user_data + 4);
        size = etl_le32(r->user_data + 8);
        if (size <= (uint64_t)r->user_data_length - 12 && size <= room) {
            fragment = r->user_data + 12;
            got = (long)size;
        }
    }
    if (got < 0 || (uint64_t)got != size || lower > UINT32_MAX) {
        x->stats.undecodable++;
        x->pending = 0;
        return 0;
    }
    if (fragment) memcpy(x->packet + x->pending, fragment, (size_t)size);
    x->pending += (uint32_t)size;
    /* before Windows 8.1 one packet could span several events: the last one has KW_PACKET_END */
    if (src != ETL_NET_NDISWAN && !(kw & KW_PACKET_END) && (kw & (KW_SEND | KW_RECEIVE))) return 0;
    uint32_t total = x->pending;
    x->pending = 0;

    char name[128] = "";
    uint64_t port = 0, vlan = 0, hash = 0, dests = 0;
    if (src == ETL_NET_VMSWITCH) {
        net_field_u64(ev, "SourcePortId", &port);
        net_field_u64(ev, "DestinationCount", &dests);
        uint8_t oob[8 * 16];  /* NDIS_NET_BUFFER_LIST_INFO pointers: 802.1Q at index 4, hash at index 8 */
        long oob_n = net_field_bytes(ev, "OOBData", oob, sizeof oob);
        size_t ptr = r->pointer_size == 4 ? 4 : 8;
        if (oob_n >= (long)(9 * ptr)) {
            vlan = (etl_le32(oob + 4 * ptr) >> 4) & 0xFFF;
            hash = etl_le32(oob + 8 * ptr);
        }
        snprintf(name, sizeof name, "vNIC:%s:%s:%u:%u", net_field_text(ev, "SourceNicType"),
                 net_field_text(ev, "SourcePortName"), (unsigned)lower, (unsigned)vlan);
    } else if (src == ETL_NET_NDISWAN) {
        snprintf(name, sizeof name, "Rras:%u:%s:%s", (unsigned)lower, net_field_text(ev, "RoutingDomainID"),
                 net_field_text(ev, "RRASUserName"));
    }
    long idx = net_interface_find_or_add(x, src, (uint32_t)lower, link, (uint16_t)vlan,
                                         miniport > UINT32_MAX ? 0xFFFFFFFFu : (uint32_t)miniport, name, NULL);
    if (idx == -2) return ETL_ERR_NOMEM;
    if (idx < 0) {
        x->stats.interface_overflow++;
        return 0;
    }
    /* 802.11: ndiscap logs frames decrypted but with the Protected bit still set, so Wireshark would try to
     * decrypt them; etl2pcapng clears that bit (0x40 of the Frame Control flags), and so do we */
    if (link == ETL_NET_LINK_IEEE802_11 && (kw & KW_MEDIA_NATIVE_802_11) && total >= 2 && (x->packet[1] & 0x40))
        x->packet[1] &= 0xBF;
    out->source = src;
    out->interface_index = (uint32_t)idx;
    out->link_type = link;
    out->direction = src == ETL_NET_NDISWAN ? (r->header.descriptor.id == RAS_SEND ? ETL_NET_DIR_OUT : ETL_NET_DIR_IN)
                   : (kw & KW_SEND) ? ETL_NET_DIR_OUT : (kw & KW_RECEIVE) ? ETL_NET_DIR_IN : ETL_NET_DIR_UNKNOWN;
    out->captured_length = total;
    out->original_length = inferred_length(x->packet, total, link);
    int n = snprintf(out->comment, sizeof out->comment, "PID=%u TID=%u", (unsigned)out->process_id,
                     (unsigned)out->thread_id);
    size_t used = n > 0 ? (size_t)n : 0;
    if (src == ETL_NET_VMSWITCH && used < sizeof out->comment)
        snprintf(out->comment + used, sizeof out->comment - used,
                 " VlanId=%u SrcPortId=%u SrcNicType=%s SrcNicName=%s SrcPortName=%s DstNicCount=%u HashValue=%08x",
                 (unsigned)vlan, (unsigned)port, net_field_text(ev, "SourceNicType"),
                 net_field_text(ev, "SourceNicName"), net_field_text(ev, "SourcePortName"), (unsigned)dests,
                 (unsigned)hash);
    else if (src == ETL_NET_NDISWAN && used < sizeof out->comment)
        snprintf(out->comment + used, sizeof out->comment - used, " RoutingDomainId=%s Username=%s",
                 net_field_text(ev, "RoutingDomainID"), net_field_text(ev, "RRASUserName"));
    else if (x->have_wifi_meta && used < sizeof out->comment)
        snprintf(out->comment + used, sizeof out->comment - used, "%s", x->wifi_meta);
    x->have_wifi_meta = 0;
    return 1;
}

int etl_net_extract(etl_net_extractor *x, const etl_decoded_event *ev, etl_net_packet *out)
{
    const etl_event_record *r = ev->record;
    const etl_guid *provider = &r->header.provider_id;
    uint16_t id = r->header.descriptor.id;
    memset(out, 0, offsetof(etl_net_packet, comment));
    out->comment[0] = '\0';
    out->timestamp = r->header.timestamp;
    out->process_id = r->header.process_id;
    out->thread_id = r->header.thread_id;
    out->data = x->packet;
    int rc = 0;
    if (etl_guid_equal(provider, &PKTMON)) {
        if (id == PKTMON_PACKET || id == PKTMON_DROP) rc = pktmon_packet(x, ev, out);
        else if (id == PKTMON_COMPONENT || id == PKTMON_IPV4 || id == PKTMON_IPV6 || id == PKTMON_MAC)
            rc = pktmon_component(x, ev);
    } else if (etl_guid_equal(provider, &NDISCAP)) {
        if (id == NDIS_FRAGMENT) rc = ndis_packet(x, ev, out, ETL_NET_NDISCAP);
        else if (id == NDIS_VMSWITCH) rc = ndis_packet(x, ev, out, ETL_NET_VMSWITCH);
        else if (id == NDIS_METADATA && ev->status == ETL_DECODE_OK) ndis_wifi_metadata(x, ev);
    } else if (etl_guid_equal(provider, &NDISWAN) && (id == RAS_SEND || id == RAS_RECEIVE)) {
        rc = ndis_packet(x, ev, out, ETL_NET_NDISWAN);
    }
    if (rc == 1) x->stats.packets++;
    return rc;
}
