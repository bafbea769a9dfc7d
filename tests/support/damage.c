/* Builders of damaged and hostile traces (see damage.h). */
#include "support/damage.h"

#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

void damage_put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++) p[i] = (uint8_t)(v >> (8 * i));
}

void damage_put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

uint32_t damage_get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Flag words of MS-XCA plain LZ77: 32 flags, most significant first (0 literal, 1 match), written before
 * the items they describe. */
typedef struct lz_writer {
    uint8_t *out;
    size_t cap, len, flag_pos;
    unsigned flag_bits;
    uint32_t flags;
    int overflow;
} lz_writer;

static void lz_byte(lz_writer *w, uint8_t b)
{
    if (w->len < w->cap) w->out[w->len] = b;
    else w->overflow = 1;
    w->len++;
}

static void lz_flag(lz_writer *w, int bit)
{
    if (w->flag_bits == 32) {
        if (w->flag_pos + 4 <= w->cap) damage_put32(w->out + w->flag_pos, w->flags);
        w->flag_pos = w->len;
        for (int i = 0; i < 4; i++) lz_byte(w, 0);
        w->flag_bits = 0;
        w->flags = 0;
    }
    w->flags |= (uint32_t)bit << (31 - w->flag_bits);
    w->flag_bits++;
}

size_t damage_lz77_bomb(const uint8_t *prefix, size_t prefix_len, size_t total, uint8_t *out, size_t cap)
{
    if (total < prefix_len + 1 + 3 + 22) return 0;
    lz_writer w = {out, cap, 0, 0, 32, 0, 0};
    for (size_t i = 0; i <= prefix_len; i++) {
        lz_flag(&w, 0);
        lz_byte(&w, i < prefix_len ? prefix[i] : 0xFF);
    }
    /* One match: distance 1, length total - prefix_len - 1 through the 32-bit length extension. */
    lz_flag(&w, 1);
    uint32_t length = (uint32_t)(total - prefix_len - 1);
    lz_byte(&w, 0x07);  /* token: distance - 1 = 0, length field 7 (extended) */
    lz_byte(&w, 0x00);
    lz_byte(&w, 0x0F);  /* nibble 15: a byte follows */
    lz_byte(&w, 0xFF);  /* byte 255: 16 bits follow */
    lz_byte(&w, 0x00);  /* 16-bit 0: 32 bits follow */
    lz_byte(&w, 0x00);
    uint8_t l32[4];
    damage_put32(l32, length - 3);
    for (int i = 0; i < 4; i++) lz_byte(&w, l32[i]);
    /* The remaining flags are ones: a match flag with no input left ends the stream. */
    lz_flag(&w, 1);
    while (w.flag_bits < 32) lz_flag(&w, 1);
    if (w.flag_pos + 4 <= w.cap) damage_put32(w.out + w.flag_pos, w.flags);
    return w.overflow ? 0 : w.len;
}

size_t damage_bomb_buffer(uint8_t *out, size_t cap, const uint8_t *records, size_t records_len, uint32_t claim,
                          uint16_t processor, int64_t sequence, uint16_t logger_id)
{
    if (cap < DAMAGE_BUFFER_HEADER) return 0;
    size_t n = damage_lz77_bomb(records, records_len, claim - DAMAGE_BUFFER_HEADER, out + DAMAGE_BUFFER_HEADER,
                                cap - DAMAGE_BUFFER_HEADER);
    if (!n) return 0;
    size_t size = DAMAGE_BUFFER_HEADER + n;  /* no padding: the stream must end where the buffer ends */
    memset(out, 0, DAMAGE_BUFFER_HEADER);
    damage_put32(out + 0x00, (uint32_t)size);
    damage_put32(out + 0x04, claim);           /* SavedOffset */
    damage_put64(out + 0x18, (uint64_t)sequence);
    out[0x28] = (uint8_t)processor;
    out[0x29] = (uint8_t)(processor >> 8);
    out[0x2A] = (uint8_t)logger_id;
    out[0x2B] = (uint8_t)(logger_id >> 8);
    damage_put32(out + 0x2C, 3);               /* State: flushed */
    damage_put32(out + 0x30, claim);           /* Offset: valid bytes once decompressed */
    out[0x34] = 0x20 | 0x40;                   /* PROC_INDEX | COMPRESSED */
    return size;
}

long damage_child_peak_rss_kib(int (*fn)(void *ctx), void *ctx, int *status)
{
    pid_t pid = fork();
    if (pid < 0) return -1;
    if (pid == 0) _exit(fn(ctx) & 0xFF);
    int st = 0;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) return -1;
    *status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return ru.ru_maxrss;
}
