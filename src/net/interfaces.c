/* Interfaces (one pcapng IDB each) and the pktmon components that name them. One interface per
 * (source, interface index or component id, link type[, VLAN, VMSwitch port/RAS connection]), as
 * microsoft/etl2pcapng separates them. Both tables are bounded (ETL_NET_MAX_*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "net/net_internal.h"

static void copy_text(char *dst, size_t cap, const char *src)
{
    snprintf(dst, cap, "%s", src ? src : "");
}

static void apply_component(etl_net_interface *i, const net_component *c)
{
    if (c->name[0]) copy_text(i->name, sizeof i->name, c->name);
    if (c->description[0]) copy_text(i->description, sizeof i->description, c->description);
    if (c->has_mac) { i->has_mac = 1; memcpy(i->mac, c->mac, 6); }
    if (c->has_ipv4) { i->has_ipv4 = 1; memcpy(i->ipv4, c->ipv4, 4); }
    if (c->has_ipv6) { i->has_ipv6 = 1; memcpy(i->ipv6, c->ipv6, 16); }
}

static const net_component *find_component(const etl_net_extractor *x, uint32_t id)
{
    for (size_t k = 0; k < x->component_count; k++)
        if (x->components[k].id == id) return &x->components[k];
    return NULL;
}

static int same_interface(const etl_net_interface *i, etl_net_source source, uint32_t key, uint16_t link_type,
                          uint16_t vlan, const char *name)
{
    if (i->source != source || i->key != key || i->link_type != link_type || i->vlan_id != vlan) return 0;
    /* VMSwitch ports and RAS connections are told apart by their name */
    return (source != ETL_NET_VMSWITCH && source != ETL_NET_NDISWAN) || strcmp(i->name, name) == 0;
}

static void default_name(etl_net_interface *i, const char *name)
{
    if (name && name[0]) {
        copy_text(i->name, sizeof i->name, name);
        return;
    }
    const char *medium = i->link_type == ETL_NET_LINK_IEEE802_11 ? "wifi" : i->link_type == ETL_NET_LINK_RAW ? "mbb"
                                                                                                             : "eth";
    if (i->source == ETL_NET_PKTMON)
        snprintf(i->name, sizeof i->name, "pktmon:%u", (unsigned)i->key);
    else if (i->link_type == ETL_NET_LINK_ETHERNET)
        snprintf(i->name, sizeof i->name, "eth:%u:%u", (unsigned)i->key, (unsigned)i->vlan_id);
    else
        snprintf(i->name, sizeof i->name, "%s:%u", medium, (unsigned)i->key);
}

long net_interface_find_or_add(etl_net_extractor *x, etl_net_source source, uint32_t key, uint16_t link_type,
                               uint16_t vlan, uint32_t miniport, const char *name, const char *description)
{
    if (x->last_interface < x->interface_count &&
        same_interface(&x->interfaces[x->last_interface], source, key, link_type, vlan, name ? name : ""))
        return (long)x->last_interface;
    for (size_t k = 0; k < x->interface_count; k++)
        if (same_interface(&x->interfaces[k], source, key, link_type, vlan, name ? name : "")) {
            x->last_interface = k;
            return (long)k;
        }
    if (x->interface_count >= ETL_NET_MAX_INTERFACES) return -1;
    if (x->interface_count == x->interface_capacity) {
        size_t cap = x->interface_capacity ? x->interface_capacity * 2 : 8;
        etl_net_interface *grown = realloc(x->interfaces, cap * sizeof *grown);
        if (!grown) return -2;
        x->interfaces = grown;
        x->interface_capacity = cap;
    }
    etl_net_interface *i = &x->interfaces[x->interface_count];
    memset(i, 0, sizeof *i);
    i->source = source;
    i->key = key;
    i->link_type = link_type;
    i->vlan_id = vlan;
    i->miniport_if_index = miniport;
    default_name(i, name);
    if (description && description[0]) copy_text(i->description, sizeof i->description, description);
    else if (source == ETL_NET_NDISCAP && miniport != key)
        snprintf(i->description, sizeof i->description, "LWF over IfIndex %u", (unsigned)miniport);
    if (source == ETL_NET_PKTMON) {
        const net_component *c = find_component(x, key);
        if (c) apply_component(i, c);
    }
    x->last_interface = x->interface_count;
    return (long)x->interface_count++;
}

net_component *net_component_get(etl_net_extractor *x, uint32_t id)
{
    for (size_t k = 0; k < x->component_count; k++)
        if (x->components[k].id == id) return &x->components[k];
    if (x->component_count >= ETL_NET_MAX_COMPONENTS) return NULL;
    if (x->component_count == x->component_capacity) {
        size_t cap = x->component_capacity ? x->component_capacity * 2 : 16;
        net_component *grown = realloc(x->components, cap * sizeof *grown);
        if (!grown) return NULL;
        x->components = grown;
        x->component_capacity = cap;
    }
    net_component *c = &x->components[x->component_count++];
    memset(c, 0, sizeof *c);
    c->id = id;
    return c;
}

void net_component_changed(etl_net_extractor *x, const net_component *c)
{
    for (size_t k = 0; k < x->interface_count; k++)
        if (x->interfaces[k].source == ETL_NET_PKTMON && x->interfaces[k].key == c->id)
            apply_component(&x->interfaces[k], c);
}

size_t etl_net_interface_count(const etl_net_extractor *x)
{
    return x ? x->interface_count : 0;
}

const etl_net_interface *etl_net_interface_at(const etl_net_extractor *x, size_t index)
{
    return x && index < x->interface_count ? &x->interfaces[index] : NULL;
}

const etl_net_stats *etl_net_get_stats(const etl_net_extractor *x)
{
    return &x->stats;
}
