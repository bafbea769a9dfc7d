/* Item types: sizes in the packed argument blob and rendering (wpp_items.c). */
#ifndef ETL_SCHEMA_WPP_ITEMS_H
#define ETL_SCHEMA_WPP_ITEMS_H

#include "schema/wpp/wpp.h"

/* Sizes one argument at `p` with `left` bytes remaining: its value starts at p + *value_offset (counted
 * types skip their u16 length) and has *value_size bytes; *consumed is what the argument takes in the blob.
 * Returns NULL, or why it does not fit. */
const char *wpp_item_measure(wpp_item item, const uint8_t *p, size_t left, unsigned pointer_size,
                             size_t *value_offset, size_t *value_size, size_t *consumed);

/* Appends the argument's text as tracefmt prints it for `spec` (status codes with their names, lists and
 * sets with theirs, GUIDs without braces, times in UTC...). `en` is the #enumv of ItemEnum/ItemFlagsEnum (or
 * NULL); `scratch` is working space. */
void wpp_item_render(etl_textbuf *out, etl_textbuf *scratch, const wpp_arg *arg, const wpp_enum *en,
                     const uint8_t *p, size_t size, const wpp_spec *spec);

#endif
