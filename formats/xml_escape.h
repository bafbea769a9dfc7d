/* XML text in one pass (issue 14): the same bytes as etl_xml_text_clean (util/xml_text.h) followed by
 * libxml2's xmlAttrSerializeTxtContent on a UTF-8 document — & < > " as entities, TAB/LF/CR as character
 * references, other text as is — without the intermediate copies. tests/test_xml_escape.c checks the
 * equivalence against libxml2 on every string of every corpus trace and on crafted bytes. */
#ifndef ETL_FORMATS_XML_ESCAPE_H
#define ETL_FORMATS_XML_ESCAPE_H

#include "format_util.h"

/* Appends text (NUL-terminated; NULL appends nothing) cleaned and escaped. */
void fmt_xml_escape(fmt_buf *out, const char *text);

#endif
