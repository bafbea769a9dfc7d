/* EVTX's <Computer> from the trace itself (see evtx_computer.h). Windows' tracerpt -of EVTX leaves it empty
 * for converted traces; a kernel trace with the SystemConfig rundown names its machine, and an event log
 * that says where its events come from is what the EVTX tools (SIEM forwarders, hayabusa) key on. */
#include <stdlib.h>
#include <string.h>

#include "evtx/evtx_computer.h"
#include "util/utf.h"

#define CPU_CONFIG_TYPE 10
#define COMPUTER_NAME_OFFSET 20  /* MHz, NumberOfProcessors, MemSize, PageSize, AllocationGranularity */
#define COMPUTER_NAME_UNITS 256

static const etl_guid system_config = {0x01853a65, 0x418f, 0x4f36, {0xae, 0xfc, 0xdc, 0x0f, 0x1d, 0x2f, 0xd2, 0x35}};

static int find_cpu_config(const etl_event_record *r, void *ctx)
{
    char *name = ctx;
    if (r->header.descriptor.opcode != CPU_CONFIG_TYPE || r->user_data_length <= COMPUTER_NAME_OFFSET ||
        !etl_guid_equal(&r->header.provider_id, &system_config))
        return 0;
    size_t units = (r->user_data_length - COMPUTER_NAME_OFFSET) / 2;
    if (units > COMPUTER_NAME_UNITS) units = COMPUTER_NAME_UNITS;
    etl_utf16le_to_utf8(r->user_data + COMPUTER_NAME_OFFSET, units, name, EVTX_COMPUTER_MAX);
    return name[0] != '\0';  /* found: stop reading */
}

int evtx_computers_find(const etl_trace *trace, evtx_computers *out)
{
    memset(out, 0, sizeof *out);
    size_t n = etl_trace_file_count(trace);
    if (n == 0) return 0;
    out->names = calloc(n, sizeof *out->names);
    if (!out->names) return -1;
    out->count = n;
    for (size_t i = 0; i < n; i++) {
        const char *path = etl_trace_file_path(trace, i);
        etl_trace *t = NULL;
        etl_open_options options = {0};  /* no diagnostics: the conversion itself reports the file's damage */
        if (!path || etl_open(&t, &path, 1, &options, NULL) != ETL_OK) continue;
        etl_process(t, find_cpu_config, out->names[i]);
        etl_close(t);
    }
    return 0;
}

void evtx_computers_free(evtx_computers *c)
{
    free(c->names);
    memset(c, 0, sizeof *c);
}
