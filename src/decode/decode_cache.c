/* The decoder's caches (see decode_cache.h). */
#include "decode/decode_cache.h"

#include <stdlib.h>
#include <string.h>

#include "decode/two_way.h"
#include "schema/sources.h"

#define LOOKUP_SLOTS 512u
#define NAMES_SLOTS 512u
#define PLAN_SLOTS 512u
#define NAME_MAX_CACHED 120u
#define WAYS ETL_TWO_WAYS  /* names and plans: keyed by description address (two_way.h) */
_Static_assert(WAYS == 2, "the lookups below test two ways");

typedef struct lookup_slot {
    etl_guid guid;
    uint16_t id;
    uint8_t version;
    uint8_t kind;      /* etl_schema_key_kind + 1; 0 = empty */
    const etl_event_info *info;
} lookup_slot;

typedef struct names_slot {
    etl_names_key key;  /* key.info NULL = empty */
    etl_event_names names;
    const char *keywords[8];
    char event_name[NAME_MAX_CACHED];
} names_slot;

typedef struct plan_slot {
    const etl_event_info *info;
    etl_walk_plan plan;
    etl_message_plan message;
    int message_state;  /* 0: not compiled yet, 1: compiled, -1: could not be */
} plan_slot;

struct etl_decode_cache {
    uint64_t generation;  /* the registry generation the lookups belong to */
    lookup_slot lookups[LOOKUP_SLOTS];
    names_slot names[NAMES_SLOTS];
    plan_slot plans[PLAN_SLOTS];
    uint8_t names_older[NAMES_SLOTS / WAYS];  /* per set: the way filled first, replaced next */
    uint8_t plans_older[PLAN_SLOTS / WAYS];
};

etl_decode_cache *etl_decode_cache_new(void) { return calloc(1, sizeof(etl_decode_cache)); }

static void forget_plans(etl_decode_cache *c)
{
    for (size_t i = 0; i < PLAN_SLOTS; i++) {
        etl_walk_plan_free(&c->plans[i].plan);
        etl_message_plan_free(&c->plans[i].message);
        c->plans[i].message_state = 0;
        c->plans[i].info = NULL;
    }
}

void etl_decode_cache_free(etl_decode_cache *c)
{
    if (!c) return;
    forget_plans(c);
    free(c);
}

void etl_decode_cache_forget(etl_decode_cache *c)
{
    forget_plans(c);
    memset(c->names, 0, sizeof c->names);
}

const etl_event_info *etl_decode_cache_find(etl_decode_cache *c, const etl_schema_registry *registry,
                                            etl_schema_key_kind kind, const etl_guid *guid, uint16_t id_or_opcode,
                                            uint8_t version)
{
    uint64_t generation = etl_schema_registry_generation(registry);
    if (generation != c->generation) {
        memset(c->lookups, 0, sizeof c->lookups);
        c->generation = generation;
    }
    uint32_t h = (guid->data1 ^ (uint32_t)guid->data2 << 16 ^ guid->data3) * 2654435761u;
    h ^= (uint32_t)id_or_opcode * 40503u ^ (uint32_t)version << 7 ^ (uint32_t)kind;
    lookup_slot *s = &c->lookups[(h ^ h >> 15) & (LOOKUP_SLOTS - 1)];
    if (s->kind == (uint8_t)(kind + 1) && s->id == id_or_opcode && s->version == version && memcmp(&s->guid, guid, sizeof *guid) == 0)
        return s->info;
    const etl_event_info *info = etl_schema_registry_find(registry, kind, guid, id_or_opcode, version);
    generation = etl_schema_registry_generation(registry); /* the find may have loaded deferred files */
    if (generation != c->generation) {
        memset(c->lookups, 0, sizeof c->lookups);
        c->generation = generation;
    }
    *s = (lookup_slot){*guid, id_or_opcode, version, (uint8_t)(kind + 1), info};
    return info;
}

static size_t names_set_of(const etl_names_key *key)
{
    uint32_t h = etl_address_bits(key->info) ^ (uint32_t)key->opcode * 31u ^ (uint32_t)key->level * 977u ^
                 (uint32_t)key->channel * 7919u ^ (uint32_t)key->keyword_bits * 104729u ^ (uint32_t)key->id * 65599u ^ key->classic;
    return (h ^ h >> 11) & (NAMES_SLOTS / WAYS - 1);
}

static int same_names_key(const etl_names_key *a, const etl_names_key *b)
{
    return a->info == b->info && a->id == b->id && a->opcode == b->opcode && a->level == b->level &&
           a->channel == b->channel && a->keyword_bits == b->keyword_bits && a->classic == b->classic;
}

const etl_event_names *etl_decode_cache_names(etl_decode_cache *c, const etl_names_key *key)
{
    names_slot *s = &c->names[names_set_of(key) * WAYS];
    if (s[0].key.info && same_names_key(&s[0].key, key)) return &s[0].names;
    return s[1].key.info && same_names_key(&s[1].key, key) ? &s[1].names : NULL;
}

const etl_event_names *etl_decode_cache_keep_names(etl_decode_cache *c, const etl_names_key *key,
                                                   const etl_event_names *names)
{
    size_t n = strlen(names->event_name);
    if (!key->info || n >= NAME_MAX_CACHED || names->keyword_name_count > 8) return NULL;
    size_t set = names_set_of(key);
    names_slot *s = &c->names[set * WAYS];
    /* the key's own entry when it has one (never two entries for a key), else the older; the other is older then */
    unsigned way = s[0].key.info && same_names_key(&s[0].key, key)   ? 0
                   : s[1].key.info && same_names_key(&s[1].key, key) ? 1
                                                                     : c->names_older[set];
    c->names_older[set] = (uint8_t)(way ^ 1);
    s += way;
    s->key = *key;
    s->names = *names;
    memcpy(s->event_name, names->event_name, n + 1);
    s->names.event_name = s->event_name;
    if (names->keyword_names && names->keyword_names != key->info->keyword_names) {
        /* keyword names from the reserved bits: the decoder's array is reused per event */
        for (uint32_t i = 0; i < names->keyword_name_count; i++) s->keywords[i] = names->keyword_names[i];
        s->names.keyword_names = s->keywords;
    }
    return &s->names;
}

static size_t plan_set_of(const etl_event_info *info)
{
    return etl_address_bits(info) & (PLAN_SLOTS / WAYS - 1);
}

/* info's slot, or NULL */
static plan_slot *plan_slot_of(etl_decode_cache *c, const etl_event_info *info)
{
    size_t set = plan_set_of(info);
    plan_slot *s = &c->plans[set * WAYS];
    if (s[0].info == info) return &s[0];
    return s[1].info == info ? &s[1] : NULL;
}

const etl_walk_plan *etl_decode_cache_plan(etl_decode_cache *c, const etl_event_info *info)
{
    plan_slot *s = plan_slot_of(c, info);
    if (s) return &s->plan;
    size_t set = plan_set_of(info);
    s = &c->plans[set * WAYS + etl_two_way_fill(&c->plans_older[set])];
    etl_walk_plan_free(&s->plan);
    etl_message_plan_free(&s->message);
    s->message_state = 0;
    s->info = NULL;
    if (etl_walk_plan_build(&s->plan, info) != 0) return NULL;
    s->info = info;
    return &s->plan;
}

const etl_message_plan *etl_decode_cache_message(etl_decode_cache *c, const etl_event_info *info,
                                                 size_t insert_count)
{
    plan_slot *s = plan_slot_of(c, info);
    if (!info->message || !s) return NULL; /* the walk just asked for the plan: it is there */
    if (!s->message_state) s->message_state = etl_message_compile(&s->message, info->message, insert_count) == 0 ? 1 : -1;
    return s->message_state == 1 && s->message.insert_count == insert_count ? &s->message : NULL;
}
