/* Two-way sets for the decoder's fixed-size caches keyed by a description's address (decode_cache.c: walk
 * plans and event names; process_table.c: the PID/TID properties of kernel events). Which descriptions share
 * a set depends on where the heap put them, so it changes from run to run: in a direct-mapped table two busy
 * event types that met in one slot evicted each other on every event (a walk plan costs ~18,000
 * instructions; net.4.5.x86 at -j 2 ran 1.43x the instructions of -j 1 under valgrind, and a 1 GB copy built
 * up to 85,388 plans in a native run). With two ways per set that pattern cannot happen. A miss replaces the
 * way filled longer ago; a hit writes nothing. */
#ifndef ETL_DECODE_TWO_WAY_H
#define ETL_DECODE_TWO_WAY_H

#include <stdint.h>

#define ETL_TWO_WAYS 2u

/* The bits of an address that tell descriptions apart (they are 16-byte aligned, and arenas put them side by
 * side): mix them into a set index. */
static inline uint32_t etl_address_bits(const void *p)
{
    uintptr_t a = (uintptr_t)p;
    return (uint32_t)(a >> 4 ^ a >> 13);
}

/* The way a miss fills in the set whose replacement bit is *older; the other way is the older one next. */
static inline unsigned etl_two_way_fill(uint8_t *older)
{
    unsigned way = *older;
    *older ^= 1;
    return way;
}

#endif
