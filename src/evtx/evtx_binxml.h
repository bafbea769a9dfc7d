/* One event as BinXml with a template (MS-EVEN6 2.2.12; libevtx documentation "Binary XML").
 *
 * The caller describes the event's XML once per event: elements, attributes, literal text and
 * substitution values. The structure (without the values) is the template: it is kept as a compact byte
 * string that is both the chunk's template cache key and what gets encoded as the template definition the
 * first time a chunk meets that layout. Every later event of the same layout in the chunk writes only a
 * template instance: a reference to the definition and its typed values. */
#ifndef ETL_EVTX_BINXML_H
#define ETL_EVTX_BINXML_H

#include <stddef.h>
#include <stdint.h>

#include "evtx_chunk.h"
#include "util/textbuf.h"

/* The element and attribute names the writer uses (names live in the chunk's string table). */
typedef enum evtx_name {
    EVTX_N_EVENT, EVTX_N_XMLNS, EVTX_N_SYSTEM, EVTX_N_PROVIDER, EVTX_N_NAME, EVTX_N_GUID, EVTX_N_EVENTID,
    EVTX_N_VERSION, EVTX_N_LEVEL, EVTX_N_TASK, EVTX_N_OPCODE, EVTX_N_KEYWORDS, EVTX_N_TIMECREATED,
    EVTX_N_SYSTEMTIME, EVTX_N_EVENTRECORDID, EVTX_N_CORRELATION, EVTX_N_ACTIVITYID, EVTX_N_RELATEDACTIVITYID,
    EVTX_N_EXECUTION, EVTX_N_PROCESSID, EVTX_N_THREADID, EVTX_N_PROCESSORID, EVTX_N_KERNELTIME,
    EVTX_N_USERTIME, EVTX_N_CHANNEL, EVTX_N_COMPUTER, EVTX_N_SECURITY, EVTX_N_USERID, EVTX_N_EVENTDATA,
    EVTX_N_DATA, EVTX_N_COMPLEXDATA, EVTX_N_TYPE, EVTX_N_BINARYEVENTDATA, EVTX_N_PROCESSINGERRORDATA,
    EVTX_N_ERRORCODE, EVTX_N_DATAITEMNAME, EVTX_N_EVENTPAYLOAD, EVTX_N_DEBUGDATA, EVTX_N_SEQUENCENUMBER,
    EVTX_N_FLAGSNAME, EVTX_N_LEVELNAME, EVTX_N_COMPONENT, EVTX_N_SUBCOMPONENT, EVTX_N_FILELINE,
    EVTX_N_FUNCTION, EVTX_N_MESSAGE, EVTX_N_RENDERINGINFO, EVTX_N_CULTURE, EVTX_N_KEYWORD, EVTX_N_EVENTNAME,
    EVTX_N_EXTENDEDTRACINGINFO, EVTX_N_EVENTGUID, EVTX_N_USERDATA, EVTX_N_COUNT
} evtx_name;

typedef struct evtx_event {
    etl_textbuf layout;       /* the template: structure ops (see evtx_binxml.c) */
    etl_textbuf descriptors;  /* per value: u16 size, u8 type, u8 0 */
    etl_textbuf values;       /* the values' bytes, in substitution order */
    uint32_t value_count;
    int too_large;            /* a value exceeded 65535 bytes (the descriptor's size field) */
} evtx_event;

void evtx_event_reset(evtx_event *ev);
void evtx_event_free(evtx_event *ev);

/* <name ... : attributes follow, then content, then evtx_end. */
void evtx_open(evtx_event *ev, evtx_name name);
/* </name> (or "/>" when the element got no content). */
void evtx_end(evtx_event *ev);
/* An attribute with literal text (part of the template). */
void evtx_attr_text(evtx_event *ev, evtx_name name, const char *text);
/* Literal content text (part of the template). */
void evtx_text(evtx_event *ev, const char *text);
/* The same with a name of the event's own (a manifest's UserData layout): printable ASCII, no spaces. */
void evtx_open_named(evtx_event *ev, const char *name);
void evtx_attr_text_named(evtx_event *ev, const char *name, const char *text);
/* <name>text</name> with literal text. */
void evtx_element_text(evtx_event *ev, evtx_name name, const char *text);

/* Substitutions. `declared` is the value type in the template; the value itself is appended by the caller
 * to ev->values between evtx_value_begin and evtx_value_end (its type may be EVTX_NULL for an absent
 * optional value: readers then leave the attribute or element out). */
void evtx_attr_subst(evtx_event *ev, evtx_name name, uint8_t declared, int optional);
void evtx_subst(evtx_event *ev, uint8_t declared, int optional);
size_t evtx_value_begin(evtx_event *ev);
void evtx_value_end(evtx_event *ev, size_t begin, uint8_t type);

/* Writes the event as one record of `chunk` (template definition when the chunk has none for this layout,
 * else a reference): evtx_record_end's result (0 written, 1 does not fit, -1 no memory). */
int evtx_event_write(const evtx_event *ev, evtx_chunk *chunk, int64_t filetime);

#endif
