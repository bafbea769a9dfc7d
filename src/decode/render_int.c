/* Integer text (see render_int.h). Conventions: docs/etl-format.md §5.6 — decimal, or 0x + upper-case hex
 * without padding for HexInt/Pointer/SizeT/CodePointer, 0x%08X for status codes, true/false. */
#include "decode/render_int.h"

#include "etl/etl_schema.h"

static etl_int_style style_of_in_type(uint16_t in_type)
{
    switch (in_type) {
    case ETL_IN_HEXINT32:
    case ETL_IN_HEXINT64:
    case ETL_IN_POINTER:
    case ETL_IN_SIZET: return ETL_INT_HEX;
    case ETL_IN_BOOLEAN: return ETL_INT_BOOLEAN;
    case ETL_IN_INT8:
    case ETL_IN_INT16:
    case ETL_IN_INT32:
    case ETL_IN_INT64: return ETL_INT_SIGNED;
    default: return ETL_INT_UNSIGNED;
    }
}

etl_int_style etl_int_style_of(uint16_t in_type, uint16_t out_type, size_t size, int with_clock)
{
    switch (out_type) {
    case ETL_OUT_STRING: return size <= 2 ? ETL_INT_OTHER : style_of_in_type(in_type);
    case ETL_OUT_BOOLEAN: return ETL_INT_BOOLEAN;
    case ETL_OUT_HEXINT8:
    case ETL_OUT_HEXINT16:
    case ETL_OUT_HEXINT32:
    case ETL_OUT_HEXINT64:
    case ETL_OUT_CODE_POINTER: return ETL_INT_HEX;
    case ETL_OUT_PORT: return size == 2 ? ETL_INT_OTHER : style_of_in_type(in_type);
    case ETL_OUT_IPV4: return size == 4 ? ETL_INT_OTHER : style_of_in_type(in_type);
    case ETL_OUT_ERRORCODE:
    case ETL_OUT_WIN32ERROR:
    case ETL_OUT_NTSTATUS:
    case ETL_OUT_HRESULT: return ETL_INT_HEX8;
    case ETL_OUT_ETWTIME: return with_clock ? ETL_INT_OTHER : style_of_in_type(in_type);
    case ETL_OUT_DATETIME:
    case ETL_OUT_DATETIME_UTC:
    case ETL_OUT_CULTURE_INSENSITIVE_DATETIME: return size == 8 ? ETL_INT_OTHER : style_of_in_type(in_type);
    case ETL_OUT_BYTE:
    case ETL_OUT_SHORT:
    case ETL_OUT_INT:
    case ETL_OUT_LONG: return ETL_INT_SIGNED;
    case ETL_OUT_UNSIGNEDBYTE:
    case ETL_OUT_UNSIGNEDSHORT:
    case ETL_OUT_UNSIGNEDINT:
    case ETL_OUT_UNSIGNEDLONG:
    case ETL_OUT_PID:
    case ETL_OUT_TID: return ETL_INT_UNSIGNED;
    default: return style_of_in_type(in_type);
    }
}

const char etl_int_digit_pairs[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

const char etl_int_hex_pairs[513] =
    "000102030405060708090A0B0C0D0E0F101112131415161718191A1B1C1D1E1F"
    "202122232425262728292A2B2C2D2E2F303132333435363738393A3B3C3D3E3F"
    "404142434445464748494A4B4C4D4E4F505152535455565758595A5B5C5D5E5F"
    "606162636465666768696A6B6C6D6E6F707172737475767778797A7B7C7D7E7F"
    "808182838485868788898A8B8C8D8E8F909192939495969798999A9B9C9D9E9F"
    "A0A1A2A3A4A5A6A7A8A9AAABACADAEAFB0B1B2B3B4B5B6B7B8B9BABBBCBDBEBF"
    "C0C1C2C3C4C5C6C7C8C9CACBCCCDCECFD0D1D2D3D4D5D6D7D8D9DADBDCDDDEDF"
    "E0E1E2E3E4E5E6E7E8E9EAEBECEDEEEFF0F1F2F3F4F5F6F7F8F9FAFBFCFDFEFF";

const uint64_t etl_int_powers_of_ten[20] = {1ull,
                                            10ull,
                                            100ull,
                                            1000ull,
                                            10000ull,
                                            100000ull,
                                            1000000ull,
                                            10000000ull,
                                            100000000ull,
                                            1000000000ull,
                                            10000000000ull,
                                            100000000000ull,
                                            1000000000000ull,
                                            10000000000000ull,
                                            100000000000000ull,
                                            1000000000000000ull,
                                            10000000000000000ull,
                                            100000000000000000ull,
                                            1000000000000000000ull,
                                            10000000000000000000ull};
