/* Binary search over the generated status-name tables (wpp_status.h). */
#include <stddef.h>

#include "schema/wpp/wpp_status.h"

static const char *lookup(const etl_wpp_status_name *table, unsigned count, uint32_t value)
{
    unsigned lo = 0, hi = count;
    while (lo < hi) {
        unsigned mid = lo + (hi - lo) / 2;
        if (table[mid].value < value) lo = mid + 1;
        else hi = mid;
    }
    return lo < count && table[lo].value == value ? table[lo].name : NULL;
}

const char *wpp_ntstatus_name(uint32_t v) { return lookup(etl_wpp_status_ntstatus, etl_wpp_status_ntstatus_count, v); }
const char *wpp_win32_error_name(uint32_t v) { return lookup(etl_wpp_status_win32, etl_wpp_status_win32_count, v); }
const char *wpp_ndis_status_name(uint32_t v)
{
    return lookup(etl_wpp_status_ndis_status, etl_wpp_status_ndis_status_count, v);
}
const char *wpp_ndis_oid_name(uint32_t v) { return lookup(etl_wpp_status_ndis_oid, etl_wpp_status_ndis_oid_count, v); }

const char *wpp_hresult_name(uint32_t v)
{
    if ((v & 0xFFFF0000u) == 0x80070000u) {
        const char *name = wpp_win32_error_name(v & 0xFFFFu);
        if (name) return name;
    }
    return lookup(etl_wpp_status_hresult, etl_wpp_status_hresult_count, v);
}
