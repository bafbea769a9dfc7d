/* Symbolic names of status codes for WPP's ItemNTSTATUS, ItemWINERROR, ItemHRESULT, ItemNDIS_STATUS and
 * ItemNDIS_OID. The tables are generated at build time from mingw-w64's public-domain ntstatus.h, winerror.h,
 * ddk/ndis.h and ntddndis.h (Makefile, wpp_status_gen.awk); the first name defined for a value wins
 * (STATUS_SUCCESS, not STATUS_WAIT_0). */
#ifndef ETL_SCHEMA_WPP_STATUS_H
#define ETL_SCHEMA_WPP_STATUS_H

#include <stdint.h>

typedef struct etl_wpp_status_name {
    uint32_t value;
    const char *name;
} etl_wpp_status_name;

extern const etl_wpp_status_name etl_wpp_status_ntstatus[], etl_wpp_status_win32[], etl_wpp_status_hresult[],
    etl_wpp_status_ndis_status[], etl_wpp_status_ndis_oid[];
extern const unsigned etl_wpp_status_ntstatus_count, etl_wpp_status_win32_count, etl_wpp_status_hresult_count,
    etl_wpp_status_ndis_status_count, etl_wpp_status_ndis_oid_count;

/* NULL when the value has no name. HRESULTs of FACILITY_WIN32 (0x8007xxxx) take the Win32 error's name, as
 * tracefmt prints them (0x80070005 → ERROR_ACCESS_DENIED). */
const char *wpp_ntstatus_name(uint32_t value);
const char *wpp_win32_error_name(uint32_t value);
const char *wpp_hresult_name(uint32_t value);
const char *wpp_ndis_status_name(uint32_t value);
const char *wpp_ndis_oid_name(uint32_t value);

#endif
