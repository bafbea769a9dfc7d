/* FILETIME → ISO-8601 UTC text, without the C library's time zone machinery (machine-independent). */
#include <stdio.h>

#include "etl/etl.h"

/* Days since 1601-01-01 → civil date (proleptic Gregorian). */
static void civil_from_days(int64_t days, int64_t *y, unsigned *m, unsigned *d)
{
    /* shift epoch to 0000-03-01 as in the well-known days-from-civil inverse */
    int64_t z = days + 584694; /* 1601-01-01 is day 584694 counted from 0000-03-01 */
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

char *etl_filetime_format(int64_t filetime, int digits, char *buf, size_t cap)
{
    if (digits < 0) digits = 0;
    if (digits > 9) digits = 9;
    if (filetime < 0) filetime = 0;
    int64_t secs = filetime / 10000000;
    unsigned frac7 = (unsigned)(filetime % 10000000);
    int64_t days = secs / 86400;
    unsigned sod = (unsigned)(secs % 86400);
    int64_t y;
    unsigned mo, d;
    civil_from_days(days, &y, &mo, &d);
    char frac[16] = "";
    if (digits > 0) {
        char f9[12];
        snprintf(f9, sizeof f9, "%07u00", frac7);
        snprintf(frac, sizeof frac, ".%.*s", digits, f9);
    }
    snprintf(buf, cap, "%04lld-%02u-%02uT%02u:%02u:%02u%sZ", (long long)y, mo, d, sod / 3600, sod / 60 % 60,
             sod % 60, frac);
    return buf;
}
