/* The WPP store's second index, for trace messages that carry no message GUID: (origin, number) for records
 * that carry a control GUID, (Data1 of the message GUID, number) for TRACE_MESSAGE_COMPONENTID records; and
 * the control GUIDs themselves. Private to src/schema/wpp/. */
#ifndef ETL_SCHEMA_WPP_MATCH_H
#define ETL_SCHEMA_WPP_MATCH_H

#include "schema/wpp/wpp.h"

typedef struct wpp_match_index wpp_match_index;

wpp_match_index *wpp_match_index_new(void);
void wpp_match_index_free(wpp_match_index *index);

/* Indexes statement `statement` (its index in the store) of component origin `origin`. */
int wpp_match_index_add(wpp_match_index *index, uint32_t origin, const etl_guid *guid, uint16_t number,
                        uint32_t statement);

int wpp_match_index_add_control(wpp_match_index *index, uint32_t origin, const etl_guid *guid, const char *name,
                                const char *const *flags, size_t flag_count);
const wpp_control *wpp_match_index_control(const wpp_match_index *index, const etl_guid *guid);
size_t wpp_match_index_control_count(const wpp_match_index *index);

/* The store's match index (NULL until something was added). */
wpp_match_index *wpp_store_match_index(const wpp_store *store, int create);
uint32_t wpp_store_origin(const wpp_store *store);

#endif
