/* FILETIME = StartTime + (raw − raw_header) × 10^7 / frequency, in split arithmetic so that neither the
 * multiplication overflows nor the result drifts; floor division keeps the mapping monotonic for raw values
 * before the anchor. */
#include "reader/clock.h"

#include <string.h>

enum { CLOCK_RAW = 0, CLOCK_QPC = 1, CLOCK_SYSTEM_TIME = 2, CLOCK_CPU_CYCLES = 3 };
static const int64_t HUNDRED_NS_PER_SECOND = 10000000;

static const char *init_rate(etl_clock *clock, const etl_logfile_header *h)
{
    memset(clock, 0, sizeof *clock);
    if (!h) return NULL;
    clock->start_time = h->start_time;
    clock->anchor_raw = h->header_raw_timestamp;
    uint32_t type = h->reserved_flags;
    const char *unusable = NULL;
    if (type == CLOCK_SYSTEM_TIME) {
        clock->kind = CLOCK_SYSTEM_TIME;
        return NULL;
    }
    if (type == CLOCK_CPU_CYCLES) {
        if (h->cpu_speed_mhz != 0) {
            clock->kind = CLOCK_CPU_CYCLES;
            clock->ticks_per_second = (int64_t)h->cpu_speed_mhz * 1000000;
            return NULL;
        }
        unusable = "CPU-cycle clock (ReservedFlags 3) without a CPU speed";
    } else if (type == CLOCK_QPC || type == CLOCK_RAW) {
        if (h->perf_freq > 0) {
            clock->kind = CLOCK_QPC; /* also ReservedFlags 0 ("raw") with a known frequency */
            clock->ticks_per_second = h->perf_freq;
            return NULL;
        }
        unusable = "QPC clock with PerfFreq 0 or negative";
    } else {
        unusable = "unknown clock type (ReservedFlags not 0-3)";
    }
    /* Fallback: raw ticks of 100 ns from the header's StartTime (Windows 10's QPC rate): order and start
     * are kept, spacing may be wrong, and no event lands in 1601. */
    clock->kind = CLOCK_QPC;
    clock->ticks_per_second = ETL_CLOCK_FALLBACK_HZ;
    return unusable;
}

/* Below this magnitude (2^61) nothing in the general conversion overflows. */
#define PLAIN_RANGE ((int64_t)1 << 61)

const char *etl_clock_init(etl_clock *clock, const etl_logfile_header *h)
{
    const char *unusable = init_rate(clock, h);
    clock->hundred_ns = (clock->kind == CLOCK_QPC || clock->kind == CLOCK_CPU_CYCLES) &&
                        clock->ticks_per_second == HUNDRED_NS_PER_SECOND && clock->start_time > -PLAIN_RANGE &&
                        clock->start_time < PLAIN_RANGE && clock->anchor_raw > -PLAIN_RANGE &&
                        clock->anchor_raw < PLAIN_RANGE;
    return unusable;
}

int64_t etl_clock_to_filetime(const etl_clock *clock, int64_t raw)
{
    /* Ticks of 100 ns (Windows 10's QPC rate): the general formula below reduces to this exactly when nothing
     * overflows, which the ranges guarantee. */
    if (clock->hundred_ns && raw > -PLAIN_RANGE && raw < PLAIN_RANGE) return clock->start_time + (raw - clock->anchor_raw);
    if (clock->kind == CLOCK_RAW || clock->kind == CLOCK_SYSTEM_TIME) return raw;
    int64_t f = clock->ticks_per_second;
    /* Differences of two int64 raw values can overflow; clamp absurd ones (corrupt timestamps). */
    int64_t delta;
    if (__builtin_sub_overflow(raw, clock->anchor_raw, &delta)) delta = raw < clock->anchor_raw ? INT64_MIN / 2 : INT64_MAX / 2;
    int64_t q = delta / f, r = delta % f;
    if (r < 0) { r += f; q -= 1; }
    int64_t whole;
    if (__builtin_mul_overflow(q, HUNDRED_NS_PER_SECOND, &whole)) return q < 0 ? 0 : INT64_MAX;
    /* r < f ≤ ~2^40 for any real clock, so r × 10^7 fits in 64 bits; guard anyway. */
    int64_t frac = (f <= INT64_MAX / HUNDRED_NS_PER_SECOND) ? r * HUNDRED_NS_PER_SECOND / f
                                                            : (int64_t)((double)r * 1e7 / (double)f);
    int64_t out;
    if (__builtin_add_overflow(clock->start_time, whole, &out) || __builtin_add_overflow(out, frac, &out))
        return whole < 0 ? 0 : INT64_MAX;
    return out;
}
