/* Trace messages without their message GUID. WPP names each source file's messages with a message GUID and
 * numbers them from 10 in every file, so (message GUID, number) is the key tracefmt uses. Two record forms do
 * not carry it:
 *  - a control GUID (the provider GUID a session enables) in place of the message GUID: the statements of the
 *    PDB that declared that control in a "TMC:" annotation are searched for the number;
 *  - TRACE_MESSAGE_COMPONENTID: a u32 in place of the GUID, the first four bytes of the GUID the caller passed
 *    (TraceMessage: "the MessageGuid parameter contains the component identifier"): the statements whose
 *    message GUID starts with those bytes are searched.
 * Either search succeeds only when exactly one statement has the number: message numbers repeat across the
 * source files of a driver (BthPS3PSM's five files each have messages 10 to 15), and a guess would print
 * another statement's text. */
#include <stdlib.h>
#include <string.h>

#include "schema/wpp/wpp_match.h"

enum { KEY_ORIGIN = 1, KEY_DATA1 = 2 };
#define AMBIGUOUS UINT32_MAX

typedef struct slot {
    uint64_t key;        /* 0 = empty (kinds are never 0) */
    uint32_t statement;  /* the store index, or AMBIGUOUS */
} slot;

struct wpp_match_index {
    slot *slots;
    size_t capacity, count;
    wpp_control *controls;
    size_t control_count, control_capacity;
};

static uint64_t make_key(int kind, uint32_t value, uint16_t number)
{
    return (uint64_t)kind << 62 | (uint64_t)value << 16 | number;
}

static size_t slot_of(uint64_t key, size_t capacity)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdULL;
    key ^= key >> 33;
    return (size_t)key & (capacity - 1);
}

wpp_match_index *wpp_match_index_new(void) { return calloc(1, sizeof(wpp_match_index)); }

void wpp_match_index_free(wpp_match_index *m)
{
    if (!m) return;
    for (size_t i = 0; i < m->control_count; i++) {
        for (uint16_t f = 0; f < m->controls[i].flag_count; f++) free(m->controls[i].flags[f]);
        free(m->controls[i].flags);
        free(m->controls[i].name);
    }
    free(m->controls);
    free(m->slots);
    free(m);
}

static int grow_slots(wpp_match_index *m)
{
    size_t capacity = m->capacity ? m->capacity * 2 : 256;
    slot *slots = calloc(capacity, sizeof *slots);
    if (!slots) return ETL_ERR_NOMEM;
    for (size_t i = 0; i < m->capacity; i++) {
        if (!m->slots[i].key) continue;
        size_t j = slot_of(m->slots[i].key, capacity);
        while (slots[j].key) j = (j + 1) & (capacity - 1);
        slots[j] = m->slots[i];
    }
    free(m->slots);
    m->slots = slots;
    m->capacity = capacity;
    return ETL_OK;
}

static int put_key(wpp_match_index *m, uint64_t key, uint32_t statement)
{
    if ((m->count + 1) * 2 > m->capacity && grow_slots(m) != ETL_OK) return ETL_ERR_NOMEM;
    size_t i = slot_of(key, m->capacity);
    while (m->slots[i].key && m->slots[i].key != key) i = (i + 1) & (m->capacity - 1);
    if (!m->slots[i].key) {
        m->slots[i] = (slot){key, statement};
        m->count++;
    } else if (m->slots[i].statement != statement) {
        m->slots[i].statement = AMBIGUOUS;
    }
    return ETL_OK;
}

int wpp_match_index_add(wpp_match_index *m, uint32_t origin, const etl_guid *guid, uint16_t number, uint32_t statement)
{
    if (put_key(m, make_key(KEY_ORIGIN, origin, number), statement) != ETL_OK) return ETL_ERR_NOMEM;
    return put_key(m, make_key(KEY_DATA1, guid->data1, number), statement);
}

/* 1 and *statement when one statement has the key, -1 when several do, 0 when none. */
static int find_key(const wpp_match_index *m, uint64_t key, uint32_t *statement)
{
    if (!m || !m->capacity) return 0;
    for (size_t i = slot_of(key, m->capacity); m->slots[i].key; i = (i + 1) & (m->capacity - 1))
        if (m->slots[i].key == key) {
            if (m->slots[i].statement == AMBIGUOUS) return -1;
            *statement = m->slots[i].statement;
            return 1;
        }
    return 0;
}

const wpp_control *wpp_match_index_control(const wpp_match_index *m, const etl_guid *guid)
{
    for (size_t i = 0; m && i < m->control_count; i++)
        if (etl_guid_equal(&m->controls[i].guid, guid)) return &m->controls[i];
    return NULL;
}

size_t wpp_match_index_control_count(const wpp_match_index *m) { return m ? m->control_count : 0; }

int wpp_match_index_add_control(wpp_match_index *m, uint32_t origin, const etl_guid *guid, const char *name,
                                const char *const *flags, size_t flag_count)
{
    if (wpp_match_index_control(m, guid)) return ETL_OK;
    if (m->control_count >= WPP_MAX_CONTROLS) return ETL_ERR_FORMAT;
    if (m->control_count == m->control_capacity) {
        size_t cap = m->control_capacity ? m->control_capacity * 2 : 4;
        wpp_control *c = realloc(m->controls, cap * sizeof *c);
        if (!c) return ETL_ERR_NOMEM;
        m->controls = c;
        m->control_capacity = cap;
    }
    if (flag_count > WPP_MAX_CONTROL_FLAGS) flag_count = WPP_MAX_CONTROL_FLAGS;
    wpp_control c = {*guid, strdup(name ? name : ""), calloc(flag_count ? flag_count : 1, sizeof(char *)), 0, origin};
    int nomem = !c.name || !c.flags;
    for (size_t i = 0; !nomem && i < flag_count; i++, c.flag_count++)
        nomem = !(c.flags[i] = strdup(flags[i]));
    m->controls[m->control_count++] = c; /* freed with the index, complete or not */
    return nomem ? ETL_ERR_NOMEM : ETL_OK;
}

int wpp_store_add_control(wpp_store *store, const etl_guid *guid, const char *name, const char *const *flags,
                          size_t flag_count)
{
    wpp_match_index *m = wpp_store_match_index(store, 1);
    if (!m) return ETL_ERR_NOMEM;
    return wpp_match_index_add_control(m, wpp_store_origin(store), guid, name, flags, flag_count);
}

const wpp_control *wpp_store_control(const wpp_store *store, const etl_guid *guid)
{
    return wpp_match_index_control(wpp_store_match_index(store, 0), guid);
}

size_t wpp_store_control_count(const wpp_store *store)
{
    return wpp_match_index_control_count(wpp_store_match_index(store, 0));
}

const wpp_control *wpp_store_control_at(const wpp_store *store, size_t index)
{
    const wpp_match_index *m = wpp_store_match_index(store, 0);
    return m && index < m->control_count ? &m->controls[index] : NULL;
}

/* A statement found by its control's PDB also has to name one of the control's flags (when both say any):
 * a PDB may declare several controls. */
static int controlled_by(const wpp_statement *st, const wpp_control *c)
{
    if (!*st->flags || !c->flag_count) return 1;
    for (uint16_t i = 0; i < c->flag_count; i++)
        if (strcmp(c->flags[i], st->flags) == 0) return 1;
    return 0;
}

const wpp_statement *wpp_store_lookup(const wpp_store *store, const etl_guid *guid, uint16_t number,
                                      int component_id, wpp_match *how)
{
    *how = WPP_MATCH_NONE;
    if (!store) return NULL;
    const wpp_match_index *m = wpp_store_match_index(store, 0);
    const wpp_control *control = NULL;
    uint64_t key;
    if (component_id) {
        key = make_key(KEY_DATA1, guid->data1, number);
    } else {
        const wpp_statement *st = wpp_store_find(store, guid, number);
        if (st) {
            *how = WPP_MATCH_MESSAGE_GUID;
            return st;
        }
        if (!(control = wpp_match_index_control(m, guid))) return NULL;
        key = make_key(KEY_ORIGIN, control->origin, number);
    }
    uint32_t index;
    int found = find_key(m, key, &index);
    if (found < 0) *how = WPP_MATCH_AMBIGUOUS;
    if (found <= 0) return NULL;
    const wpp_statement *st = wpp_store_statement_at(store, index);
    if (!st || (control && !controlled_by(st, control))) return NULL;
    *how = component_id ? WPP_MATCH_COMPONENT_ID : WPP_MATCH_CONTROL_GUID;
    return st;
}
