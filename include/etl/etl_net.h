/* libetl — network captures: the packets that Windows' capture providers log as ETW events, with the
 * interface they were seen on. Feed every decoded event (in record order) to an etl_net_extractor; it
 * returns the packet an event carries and learns interface descriptions (pktmon component names and
 * addresses) from the others. Sources and layouts: docs/pcapng.md.
 *
 *   Microsoft-Windows-PktMon                 {4d4f80d9-c8bd-4d73-bb5b-19c90402c5ac} events 160 (packet), 170 (drop)
 *   Microsoft-Windows-NDIS-PacketCapture     {2ed6006e-4729-4609-b423-3ee7bcd678ef} events 1001, 1003 (VMSwitch)
 *   Microsoft-Windows-Ras-NdisWanPacketCapture {d84521f7-2235-4237-a7c0-14e3a9676286} events 5001 (send), 5002
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef ETL_ETL_NET_H
#define ETL_ETL_NET_H

#include "etl_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* pcapng/libpcap link types */
enum { ETL_NET_LINK_ETHERNET = 1, ETL_NET_LINK_RAW = 101, ETL_NET_LINK_IEEE802_11 = 105 };

typedef enum etl_net_source {
    ETL_NET_PKTMON = 1,
    ETL_NET_NDISCAP = 2,
    ETL_NET_VMSWITCH = 3,
    ETL_NET_NDISWAN = 4
} etl_net_source;

typedef enum etl_net_direction { ETL_NET_DIR_UNKNOWN = 0, ETL_NET_DIR_IN = 1, ETL_NET_DIR_OUT = 2 } etl_net_direction;

/* Room for one captured packet: ETW payloads are below 64 KiB. */
#define ETL_NET_MAX_PACKET 65536u
/* Interfaces (pcapng IDBs) and pktmon components remembered; more are counted as overflow. */
#define ETL_NET_MAX_INTERFACES 4096u
#define ETL_NET_MAX_COMPONENTS 4096u

typedef struct etl_net_interface {
    etl_net_source source;
    uint32_t key;              /* pktmon component id, NDIS LowerIfIndex, VMSwitch source port id */
    uint16_t link_type;        /* ETL_NET_LINK_* */
    uint16_t vlan_id;          /* VMSwitch */
    uint32_t miniport_if_index;/* NDIS: the miniport under a filter (LowerIfIndex != MiniportIfIndex: a LWF) */
    char name[128];            /* pktmon component name, else "eth:IFINDEX", "wifi:…", "mbb:…", "vNIC:…", "Rras:…" */
    char description[256];     /* pktmon component description, else "" */
    int has_mac, has_ipv4, has_ipv6;
    uint8_t mac[6];
    uint8_t ipv4[4];
    uint8_t ipv6[16];
} etl_net_interface;

typedef struct etl_net_packet {
    etl_net_source source;
    uint32_t interface_index;  /* index for etl_net_interface_at: the pcapng interface id */
    uint16_t link_type;
    etl_net_direction direction;
    int64_t timestamp;         /* the event's FILETIME */
    uint32_t process_id, thread_id;
    const uint8_t *data;       /* valid until the next etl_net_extract */
    uint32_t captured_length;
    uint32_t original_length;  /* >= captured_length; larger when the capture was truncated */
    /* pktmon */
    uint64_t group_id;         /* PktGroupId: one packet seen at several components shares it */
    uint32_t packet_number, appearance, edge_id, filter_id;
    int dropped;               /* event 170 */
    char drop_reason[96];      /* DropReason as the schema names it */
    uint32_t drop_location;
    /* one line for the pcapng comment: PID/TID and the source's metadata */
    char comment[512];
} etl_net_packet;

typedef struct etl_net_stats {
    uint64_t packets;          /* packets returned */
    uint64_t undecodable;      /* packet events whose fields were missing or did not fit (skipped) */
    uint64_t interface_overflow; /* packets of interfaces beyond ETL_NET_MAX_INTERFACES (skipped) */
} etl_net_stats;

typedef struct etl_net_extractor etl_net_extractor;

etl_net_extractor *etl_net_extractor_new(void);
void etl_net_extractor_free(etl_net_extractor *x);

/* 1: the event carried a packet, *out describes it; 0: no packet (interface metadata may have been learnt);
 * ETL_ERR_NOMEM. */
int etl_net_extract(etl_net_extractor *x, const etl_decoded_event *event, etl_net_packet *out);

/* Is this one of the events above that carry packets (whether or not they decode)? */
int etl_net_is_packet_event(const etl_event_record *record);

/* The interfaces packets were assigned to, in first-seen order, with what the trace said about them (pktmon
 * component descriptions may come after the packets: ask after the last event). */
size_t etl_net_interface_count(const etl_net_extractor *x);
const etl_net_interface *etl_net_interface_at(const etl_net_extractor *x, size_t index);
const etl_net_stats *etl_net_get_stats(const etl_net_extractor *x);

#ifdef __cplusplus
}
#endif

#endif /* ETL_ETL_NET_H */
