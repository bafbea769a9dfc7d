/* pcapng: the packets of a trace (src/net extracts them) as Enhanced Packet Blocks, one Interface Description
 * Block per capture interface, timestamps in 100 ns (if_tsresol 7). pktmon logs its component names at the
 * end of a capture, so packet blocks are spooled to an unnamed temporary file and written after the IDBs
 * at the end (memory stays bounded). With --pcapng-events the other events become systemd journal export
 * blocks between the packets, as etl2pcapng 1.12 writes them. Block layouts: the pcapng specification
 * (draft-ietf-opsawg-pcapng); what each field carries: docs/pcapng.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "etl/etl_net.h"
#include "format_util.h"

enum {
    BT_SHB = 0x0A0D0D0A, BT_IDB = 1, BT_EPB = 6, BT_JOURNAL = 9,
    OPT_END = 0, OPT_COMMENT = 1,
    SHB_USERAPPL = 4,
    IDB_NAME = 2, IDB_DESCRIPTION = 3, IDB_IPV4 = 4, IDB_IPV6 = 5, IDB_MAC = 6, IDB_TSRESOL = 9,
    EPB_FLAGS = 2, EPB_PACKETID = 5, EPB_VERDICT = 7,
    VERDICT_TYPE_XDP = 2, XDP_DROP = 1   /* what etl2pcapng writes for a pktmon drop */
};
#define FILETIME_UNIX_EPOCH 116444736000000000LL

typedef struct pcapng_state {
    etl_sink sink;
    etl_writer_options options;
    etl_net_extractor *net;
    FILE *spool;
    fmt_buf block;
    fmt_buf text;
    int failed;
} pcapng_state;

static void store_le(uint8_t *dst, uint64_t v, int bytes)
{
    for (int k = 0; k < bytes; k++) dst[k] = (uint8_t)(v >> (8 * k));
}

static void put_u16(fmt_buf *b, uint16_t v)
{
    char c[2] = {(char)(v & 0xFF), (char)(v >> 8)};
    etl_textbuf_append(b, c, 2);
}

static void put_u32(fmt_buf *b, uint32_t v)
{
    char c[4] = {(char)(v & 0xFF), (char)(v >> 8 & 0xFF), (char)(v >> 16 & 0xFF), (char)(v >> 24)};
    etl_textbuf_append(b, c, 4);
}

static void put_u64(fmt_buf *b, uint64_t v)
{
    put_u32(b, (uint32_t)v);
    put_u32(b, (uint32_t)(v >> 32));
}

static void pad4(fmt_buf *b)
{
    static const char zeros[4] = {0};
    etl_textbuf_append(b, zeros, (4 - b->length % 4) % 4);
}

static void put_option(fmt_buf *b, uint16_t code, const void *value, size_t length)
{
    if (length > 0xFFFF) length = 0xFFFF;
    put_u16(b, code);
    put_u16(b, (uint16_t)length);
    etl_textbuf_append(b, value, length);
    pad4(b);
}

static void begin_block(fmt_buf *b, uint32_t type)
{
    etl_textbuf_reset(b);
    put_u32(b, type);
    put_u32(b, 0);  /* total length, patched by end_block */
}

/* Closes the block (end-of-options when any were written, trailing length) and patches the length. */
static void end_block(fmt_buf *b, int had_options)
{
    if (had_options) put_option(b, OPT_END, NULL, 0);
    put_u32(b, (uint32_t)(b->length + 4));
    if (b->failed) return;
    uint32_t total = (uint32_t)b->length;
    for (int k = 0; k < 4; k++) b->data[4 + k] = (char)(total >> (8 * k) & 0xFF);
}

static void *pcapng_create(const etl_sink *sink, const etl_writer_options *options)
{
    pcapng_state *st = calloc(1, sizeof *st);
    if (!st) return NULL;
    st->sink = *sink;
    st->options = *options;
    st->net = etl_net_extractor_new();
    if (!st->net) {
        free(st);
        return NULL;
    }
    return st;
}

static int pcapng_begin(void *state)
{
    pcapng_state *st = state;
    st->spool = tmpfile();
    if (!st->spool) {
        perror("etlconv: pcapng: temporary file");
        return -1;
    }
    return 0;
}

static int spool(pcapng_state *st)
{
    if (st->block.failed || fwrite(st->block.data, 1, st->block.length, st->spool) != st->block.length) {
        st->failed = 1;
        return -1;
    }
    return 0;
}

static uint64_t unix_100ns(int64_t filetime)
{
    return filetime > FILETIME_UNIX_EPOCH ? (uint64_t)(filetime - FILETIME_UNIX_EPOCH) : 0;
}

static int write_packet(pcapng_state *st, const etl_net_packet *p)
{
    fmt_buf *b = &st->block;
    /* --stable: times are relative to the trace's first event; they stay relative (from the Unix epoch) */
    uint64_t ts = st->options.stable ? (uint64_t)(p->timestamp > 0 ? p->timestamp : 0) : unix_100ns(p->timestamp);
    begin_block(b, BT_EPB);
    put_u32(b, p->interface_index);
    put_u32(b, (uint32_t)(ts >> 32));
    put_u32(b, (uint32_t)ts);
    put_u32(b, p->captured_length);
    put_u32(b, p->original_length);
    etl_textbuf_append(b, (const char *)p->data, p->captured_length);
    pad4(b);
    if (p->comment[0]) put_option(b, OPT_COMMENT, p->comment, strlen(p->comment));
    uint8_t v[9];
    if (p->direction != ETL_NET_DIR_UNKNOWN) {
        store_le(v, p->direction == ETL_NET_DIR_IN ? 1 : 2, 4);  /* epb_flags bits 0-1: 1 inbound, 2 outbound */
        put_option(b, EPB_FLAGS, v, 4);
    }
    if (p->source == ETL_NET_PKTMON) {
        store_le(v, p->group_id, 8);
        put_option(b, EPB_PACKETID, v, 8);
        if (p->dropped) {
            v[0] = VERDICT_TYPE_XDP;
            store_le(v + 1, XDP_DROP, 8);
            put_option(b, EPB_VERDICT, v, 9);
        }
    }
    end_block(b, 1);
    return spool(st);
}

/* One journal field line "NAME=value\n"; newlines inside the value become spaces (the export format's
 * binary form for them is not worth a reader's surprise). */
static void journal_field(fmt_buf *b, const char *name, const char *value)
{
    etl_textbuf_puts(b, name);
    etl_textbuf_putc(b, '=');
    for (const char *s = value ? value : ""; *s; s++) etl_textbuf_putc(b, *s == '\n' || *s == '\r' ? ' ' : *s);
    etl_textbuf_putc(b, '\n');
}

static int write_journal(pcapng_state *st, const etl_decoded_event *ev)
{
    const etl_event_header *h = &ev->record->header;
    fmt_buf *t = &st->text;
    etl_textbuf_reset(t);
    if (ev->message) {
        etl_textbuf_puts(t, ev->message);
    } else {
        etl_textbuf_puts(t, ev->event_name);
        for (size_t i = 0; i < ev->field_count; i++)
            if (ev->fields[i].kind == ETL_FIELD_VALUE)
                etl_textbuf_printf(t, " %s=%s", ev->fields[i].name ? ev->fields[i].name : "",
                                   ev->fields[i].value ? ev->fields[i].value : "");
    }
    fmt_buf *b = &st->block;
    begin_block(b, BT_JOURNAL);
    char num[FMT_INT_CAP];
    journal_field(b, "__REALTIME_TIMESTAMP", fmt_u64(unix_100ns(h->timestamp) / 10, num));
    /* syslog priorities for ETW levels 1 critical .. 5 verbose */
    static const char *const priority[] = {"6", "2", "3", "4", "6", "7"};
    journal_field(b, "PRIORITY", priority[h->descriptor.level <= 5 ? h->descriptor.level : 5]);
    journal_field(b, "_COMM", ev->provider_name);
    journal_field(b, "_PID", fmt_u64(h->process_id, num));
    journal_field(b, "SYSLOG_IDENTIFIER", ev->event_name);
    journal_field(b, "MESSAGE", fmt_buf_cstr(t));
    pad4(b);
    end_block(b, 0);
    return spool(st);
}

static int pcapng_event(void *state, const etl_decoded_event *ev)
{
    pcapng_state *st = state;
    etl_net_packet packet;
    int rc = etl_net_extract(st->net, ev, &packet);
    if (rc < 0) return -1;
    if (rc == 1) return write_packet(st, &packet);
    if (st->options.pcapng_events && !etl_net_is_packet_event(ev->record))
        return write_journal(st, ev);
    return 0;
}

static int emit(pcapng_state *st)
{
    if (st->block.failed) return -1;
    return st->sink.write(st->sink.ctx, st->block.data, st->block.length);
}

static int write_header_blocks(pcapng_state *st)
{
    fmt_buf *b = &st->block;
    begin_block(b, BT_SHB);
    put_u32(b, 0x1A2B3C4D);
    put_u16(b, 1);
    put_u16(b, 0);
    put_u64(b, UINT64_MAX);  /* section length not given */
    static const char appl[] = "etlconv " ETL_VERSION_STRING;
    put_option(b, SHB_USERAPPL, appl, sizeof appl - 1);
    end_block(b, 1);
    if (emit(st) != 0) return -1;
    for (size_t i = 0; i < etl_net_interface_count(st->net); i++) {
        const etl_net_interface *in = etl_net_interface_at(st->net, i);
        begin_block(b, BT_IDB);
        put_u16(b, in->link_type);
        put_u16(b, 0);
        put_u32(b, 0);  /* no snap length */
        if (in->name[0]) put_option(b, IDB_NAME, in->name, strlen(in->name));
        if (in->description[0]) put_option(b, IDB_DESCRIPTION, in->description, strlen(in->description));
        if (in->has_ipv4) {
            uint8_t v[8] = {in->ipv4[0], in->ipv4[1], in->ipv4[2], in->ipv4[3], 255, 255, 255, 255};
            put_option(b, IDB_IPV4, v, sizeof v);
        }
        if (in->has_ipv6) {
            uint8_t v[17];
            memcpy(v, in->ipv6, 16);
            v[16] = 128;
            put_option(b, IDB_IPV6, v, sizeof v);
        }
        if (in->has_mac) put_option(b, IDB_MAC, in->mac, 6);
        static const char tsresol = 7;  /* 10^-7 s: ETW's 100 ns */
        put_option(b, IDB_TSRESOL, &tsresol, 1);
        end_block(b, 1);
        if (emit(st) != 0) return -1;
    }
    return 0;
}

static int pcapng_end(void *state, const etl_run_totals *totals)
{
    (void)totals;
    pcapng_state *st = state;
    if (st->failed || write_header_blocks(st) != 0 || fflush(st->spool) != 0) return -1;
    rewind(st->spool);
    char chunk[1 << 16];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, st->spool)) > 0)
        if (st->sink.write(st->sink.ctx, chunk, n) != 0) return -1;
    if (ferror(st->spool)) return -1;
    const etl_net_stats *s = etl_net_get_stats(st->net);
    if (s->undecodable)
        fprintf(stderr, "etlconv: warning: pcapng: %llu packet events could not be decoded and are not in the "
                        "capture\n", (unsigned long long)s->undecodable);
    if (s->interface_overflow)
        fprintf(stderr, "etlconv: warning: pcapng: %llu packets of interfaces beyond the first %u were left out\n",
                (unsigned long long)s->interface_overflow, ETL_NET_MAX_INTERFACES);
    return 0;
}

static void pcapng_destroy(void *state)
{
    pcapng_state *st = state;
    if (!st) return;
    if (st->spool) fclose(st->spool);
    etl_net_extractor_free(st->net);
    etl_textbuf_free(&st->block);
    etl_textbuf_free(&st->text);
    free(st);
}

const etl_writer_format etl_writer_pcapng = {
    "pcapng", "", ".pcapng", "pcapng capture of the packets the trace carries (Wireshark, tshark)",
    pcapng_create, pcapng_begin, pcapng_event, pcapng_end, pcapng_destroy,
    .header_ids_only = 1,
};
