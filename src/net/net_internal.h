/* The extractor's state, shared by the per-source code (extract.c) and the interface table (interfaces.c). */
#ifndef ETL_NET_NET_INTERNAL_H
#define ETL_NET_NET_INTERNAL_H

#include "etl/etl_net.h"

/* What pktmon says about one of its components (events 20, 65, 66, 70), whenever it says it. */
typedef struct net_component {
    uint32_t id;
    char name[128];
    char description[256];
    int has_mac, has_ipv4, has_ipv6;
    uint8_t mac[6], ipv4[4], ipv6[16];
} net_component;

struct etl_net_extractor {
    etl_net_interface *interfaces;
    size_t interface_count, interface_capacity;
    size_t last_interface;            /* packets come in runs on one interface */
    net_component *components;
    size_t component_count, component_capacity;
    etl_net_stats stats;
    uint8_t packet[ETL_NET_MAX_PACKET];  /* the packet being returned (NDIS fragments accumulate here) */
    uint32_t pending;                 /* bytes of a multi-event NDIS packet (before Windows 8.1) so far */
    int have_wifi_meta;               /* an NDIS 802.11 metadata event precedes the next packet */
    char wifi_meta[160];
};

/* Index of the interface with this identity (created when new, with pktmon component facts merged in);
 * -1 when the table is full (counted), -2 out of memory. `name` identifies VMSwitch/RAS interfaces. */
long net_interface_find_or_add(etl_net_extractor *x, etl_net_source source, uint32_t key, uint16_t link_type,
                               uint16_t vlan, uint32_t miniport, const char *name, const char *description);

/* The pktmon component `id`, created when new (NULL when the table is full or memory is short). Its facts
 * flow into the interfaces of that component now and later. */
net_component *net_component_get(etl_net_extractor *x, uint32_t id);
void net_component_changed(etl_net_extractor *x, const net_component *c);

#endif
