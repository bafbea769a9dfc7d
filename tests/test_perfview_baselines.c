/* Issue 3 acceptance: our decoded events against PerfView's TraceEvent baselines (testdata/perfview/NAME.baseline.txt,
 * line format in corpus-EXPECTED.md §1).
 *
 * For every EVENT line: our event at the same time (ms from the first event, PerfView's three decimals), on the
 * same processor, with the same payload length and the same event (name table below); PID/TID as PerfView
 * attributes them (pid_tid_ok); then every PerfView field maps to one of our fields (same name ignoring case, or
 * the rename table) with an equal value after the normalisations of value_matches(), or is a PerfView-only field
 * listed below with its reason. COUNT lines of the required event types must equal our counts.
 * net.4.5.x86's baseline belongs to another recording of that trace (EXPECTED.md §2.5): format only, see
 * test_baseline_parser.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "etl/etl_schema.h"
#include "support/baseline.h"
#include "support/perfview_names.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* ---- which lines must match -------------------------------------------------------------------------- */

typedef enum line_class { LINE_REQUIRED, LINE_INFORMATIONAL, LINE_SKIPPED } line_class;

/* Providers whose lines must all match: decoded by the sources of issue 3. */
static const char *const required_providers[] = {
    "Windows Kernel", "MSNT_SystemTrace", "KernelTraceControl",           /* kernel MOF + KernelTraceControl */
    "Microsoft-Windows-DNS-Client", "Microsoft-Windows-Immersive-Shell",  /* embedded TDH metadata */
    "Microsoft-Windows-Kernel-EventTracing", "Microsoft-Windows-Kernel-Process",
    "PerfView", "System.Diagnostics.Eventing.FrameworkEventSource",       /* EventSource manifests */
    "System.Threading.Tasks.TplEventSource",
    "solar_system",                                                       /* primitive-types */
};

/* Lines that need the .NET runtime manifests (the manifest issue), skipped here. */
static const char *const skipped_providers[] = {
    "Microsoft-Windows-DotNETRuntime", "Microsoft-Windows-DotNETRuntimeRundown",
    "Microsoft-Windows-DotNETRuntimePrivate",
};

/* Everything else is compared and reported, not required: in net.4.5.2.x86 that is Microsoft-Windows-Kernel-File,
 * which TraceEvent decodes with its own built-in parser (IrpPtr, CreateOptions split into CreateDisposition and
 * options) rather than with the trace's metadata we use (Irp, CreateOptions, ...). */

static int in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0) return 1;
    return 0;
}

static line_class classify(const baseline_event *pv)
{
    if (in_list(pv->provider, skipped_providers, N(skipped_providers))) return LINE_SKIPPED;
    if (in_list(pv->provider, required_providers, N(required_providers))) return LINE_REQUIRED;
    return LINE_INFORMATIONAL;
}

/* ---- names ------------------------------------------------------------------------------------------- */

/* Our name for a PerfView "<provider>/<event>" (rename table: support/perfview_names.c). */
static void our_name_for(const baseline_event *pv, char *out, size_t cap)
{
    perfview_our_name(pv->provider, pv->event_name, out, cap);
}

static int starts_with(const char *s, const char *prefix) { return strncmp(s, prefix, strlen(prefix)) == 0; }

/* Our event name as PerfView would print it: TRACE_EVENT_INFO blobs of KernelTraceControl MetaData events may
 * carry the raw winmeta names ("win:Start", "win:Informational": net.4.5.2.x86 at 577.313 ms), which we show
 * as stored and TraceEvent shows without the "win:" prefix. */
static int same_event_name(const char *ours, const char *want)
{
    char plain[512];
    size_t o = 0;
    for (const char *p = ours; *p && o + 1 < sizeof plain; p++) {
        if ((p == ours || p[-1] == '/') && strncmp(p, "win:", 4) == 0) p += 4;
        plain[o++] = *p;
    }
    plain[o] = '\0';
    return strcasecmp(plain, want) == 0;
}

/* PerfView field names that differ from the MOF names we keep (event prefix, PerfView name, ours, why). */
static const struct { const char *event, *pv, *ours, *why; } field_renames[] = {
    {"Windows Kernel/EventTrace", "SessionName", "SessionNameString", "MOF name of the logger-name string"},
    {"Windows Kernel/EventTrace", "LogFileName", "LogFileNameString", "the MOF's LogFileName is the pointer"},
    {"Windows Kernel/Process/", "PageDirectoryBase", "DirectoryTableBase", "v1 MOF name kept by PerfView"},
    {"Windows Kernel/Process/PerfCtr", "MemoryCount", "PageFaultCount", "PerfView's name of the 2nd field"},
    {"Windows Kernel/Thread/", "StartAddr", "Affinity", "v2 name at the v3 offset (0xff = 8-CPU affinity)"},
    {"Windows Kernel/DiskIO/", "FileKey", "FileObject", "PerfView's name"},
    {"Windows Kernel/Memory/HardFault", "FileKey", "FileObject", "PerfView's name"},
    {"Windows Kernel/PerfInfo/Collection", "SampleSource", "Source", "PerfView's name"},
};

/* PerfView-only fields that are not in the payload and that no rule below can check: skipped. */
static const struct { const char *event, *pv, *why; } perfview_only[] = {
    {"Windows Kernel/DiskIO/", "FileName", "resolved from FileKey through FileIo rundown events"},
    {"Windows Kernel/Memory/HardFault", "FileName", "resolved from FileKey"},
    {"Windows Kernel/Memory/HardFault", "ElapsedTimeMSec", "event time minus InitialTime"},
    {"Windows Kernel/DiskIO/", "DiskServiceTimeMSec", "computed from overlapping disk I/Os"},
    {"Windows Kernel/DiskIO/", "IrpFlags", "flag names of IrpFlags without the priority bits 17-19"},
    {"Windows Kernel/DiskIO/", "Priority", "I/O priority taken from IrpFlags bits 17-19"},
    {"Windows Kernel/Thread/", "ParentThreadID", "thread that logged the Start event (TraceLog state)"},
    {"Windows Kernel/Thread/", "ParentProcessID", "process of that thread"},
    {"Windows Kernel/PerfInfo/Sample", "Priority", "bit field of the MOF Reserved word"},
    {"Windows Kernel/PerfInfo/Sample", "ExecutingDPC", "bit field of Reserved"},
    {"Windows Kernel/PerfInfo/Sample", "ExecutingISR", "bit field of Reserved"},
    {"Windows Kernel/PerfInfo/Sample", "Rank", "bit field of Reserved"},
    {"Windows Kernel/SystemConfig/Services", "ProcessName", "TraceLog's name of ProcessID (the MOF string is empty)"},
    {"Windows Kernel/UdpIp/", "dsize", "Vista (v1) field: PerfView reads v2 records with the v1 layout"},
};

/* ---- our events ------------------------------------------------------------------------------------------ */

typedef struct our_field {
    char *name;
    char *value;
    uint16_t in_type;
} our_field;

typedef struct our_event {
    int64_t ticks;          /* 100 ns from the first event */
    char *name;             /* "<provider>/<event name>" */
    long pid, tid;          /* record header, -1 for none */
    long resolved_pid;      /* decoder's PID (payload/thread table for kernel records without one), -1 unknown */
    int cpu;
    long data_len;
    etl_decode_status status;
    char *process_name;     /* decoder's process context, NULL when unknown */
    size_t field_count;
    our_field *fields;
    int used;
} our_event;

typedef struct run {
    const baseline *base;
    int64_t *times;         /* sorted baseline times in ticks */
    size_t time_count;
    int64_t first;          /* FILETIME of the first event */
    int have_first;
    etl_decoder *decoder;
    our_event *events;
    size_t event_count, event_cap;
    char ntpath[16][128], dospath[16][128];  /* KernelTraceControl VolumeMapping pairs */
    size_t volume_count;
    char (*count_names)[256];                /* our names of the required COUNT keys */
    unsigned long *our_counts;
    size_t count_names_n;
    const etl_logfile_header *header;
} run;

static char *xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) abort();
    return d;
}

static int near_baseline_time(const run *r, int64_t ticks)
{
    size_t lo = 0, hi = r->time_count;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->times[mid] < ticks - 5) lo = mid + 1;
        else hi = mid;
    }
    return lo < r->time_count && r->times[lo] <= ticks + 5;
}

static const our_field *find_field(const our_event *ev, const char *name)
{
    for (size_t i = 0; i < ev->field_count; i++)
        if (strcasecmp(ev->fields[i].name, name) == 0) return &ev->fields[i];
    return NULL;
}

static const char *field_value(const our_event *ev, const char *name)
{
    const our_field *f = find_field(ev, name);
    return f ? f->value : NULL;
}

/* PerfView's count of idle-loop samples: TraceLog drops PerfInfo samples of thread 0 unless the Reserved word
 * says the CPU was in a DPC (bit 0) or an ISR (bit 1); that explains net.4.5.2.x86's 6,810 of 88,809. */
static int perfview_drops_sample(const etl_decoded_event *d)
{
    const char *tid = NULL, *reserved = NULL;
    for (size_t i = 0; i < d->field_count; i++) {
        if (d->fields[i].kind != ETL_FIELD_VALUE) continue;
        if (strcmp(d->fields[i].name, "ThreadId") == 0) tid = d->fields[i].value;
        if (strcmp(d->fields[i].name, "Reserved") == 0) reserved = d->fields[i].value;
    }
    return tid && reserved && strtoul(tid, NULL, 0) == 0 && (strtoul(reserved, NULL, 0) & 3) == 0;
}

static int on_record(const etl_event_record *rec, void *ctx)
{
    run *r = ctx;
    if (!r->have_first) r->first = rec->header.timestamp, r->have_first = 1;
    const etl_decoded_event *d;
    if (etl_decode_event(r->decoder, rec, &d) != ETL_OK) return 1;
    char name[512];
    snprintf(name, sizeof name, "%s/%s", d->provider_name, d->event_name);
    for (size_t i = 0; i < r->count_names_n; i++)
        if (same_event_name(name, r->count_names[i]) &&
            !(strcmp(name, "MSNT_SystemTrace/PerfInfo/SampleProf") == 0 && perfview_drops_sample(d)))
            r->our_counts[i]++;
    if (strcmp(name, "KernelTraceControl/SysConfig/VolumeMapping") == 0 && r->volume_count < 16) {
        for (size_t i = 0; i < d->field_count; i++) {
            if (strcmp(d->fields[i].name, "NtPath") == 0)
                snprintf(r->ntpath[r->volume_count], 128, "%s", d->fields[i].value);
            if (strcmp(d->fields[i].name, "DosPath") == 0)
                snprintf(r->dospath[r->volume_count], 128, "%s", d->fields[i].value);
        }
        r->volume_count++;
    }
    int64_t ticks = rec->header.timestamp - r->first;
    if (!near_baseline_time(r, ticks)) return 0;
    if (r->event_count == r->event_cap) {
        r->event_cap = r->event_cap ? 2 * r->event_cap : 256;
        r->events = realloc(r->events, r->event_cap * sizeof *r->events);
        if (!r->events) abort();
    }
    our_event *ev = &r->events[r->event_count++];
    memset(ev, 0, sizeof *ev);
    ev->ticks = ticks;
    ev->name = xstrdup(name);
    ev->pid = rec->header.process_id == UINT32_MAX ? -1 : (long)rec->header.process_id;
    ev->tid = rec->header.thread_id == UINT32_MAX ? -1 : (long)rec->header.thread_id;
    ev->resolved_pid = d->process_id == UINT32_MAX ? -1 : (long)d->process_id;
    ev->cpu = rec->buffer_context.processor_index;
    ev->data_len = rec->user_data_length;
    ev->status = d->status;
    ev->process_name = d->process_name ? xstrdup(d->process_name) : NULL;
    ev->fields = calloc(d->field_count ? d->field_count : 1, sizeof *ev->fields);
    if (!ev->fields) abort();
    for (size_t i = 0; i < d->field_count; i++) {
        const etl_field *f = &d->fields[i];
        if (f->kind != ETL_FIELD_VALUE || f->depth != 0 || f->array_index >= 0) continue;
        ev->fields[ev->field_count].name = xstrdup(f->name);
        ev->fields[ev->field_count].value = xstrdup(f->value);
        ev->fields[ev->field_count].in_type = f->in_type;
        ev->field_count++;
    }
    return 0;
}

static void free_run(run *r)
{
    for (size_t i = 0; i < r->event_count; i++) {
        for (size_t k = 0; k < r->events[i].field_count; k++) {
            free(r->events[i].fields[k].name);
            free(r->events[i].fields[k].value);
        }
        free(r->events[i].fields);
        free(r->events[i].name);
        free(r->events[i].process_name);
    }
    free(r->events);
    free(r->times);
    free(r->count_names);
    free(r->our_counts);
}

/* ---- values ------------------------------------------------------------------------------------------------
 * Equivalences between PerfView's display strings and ours (each one is a rendering difference, not a value
 * difference):
 *   E1 PerfView cuts values after 20 UTF-16 units + "..." and escapes \n \r        (EXPECTED.md §1)
 *   E2 integers: thousands separators, decimal vs 0x-hex, zero-padded hex addresses
 *   E3 the same bits read signed vs unsigned: PerfView prints some MOF uint32 as int (SessionID=-1,
 *      MaxHashTableSize=-1, TimeDateStamp=-1,726,546,814)
 *   E4 booleans True/False vs true/false
 *   E5 GUIDs without braces (and cut)
 *   E6 dates: PerfView's UTC "yy/MM/dd HH:mm:ss.ffffff" vs our ISO-8601 UTC, or vs a FILETIME integer (the
 *      header's EndTime/BootTime/StartTime are MOF uint64)
 *   E7 kernel paths: PerfView rewrites \Device\HarddiskVolumeN\, \SystemRoot\, \Device\Mup\ ... to DOS form
 *      with the KernelTraceControl VolumeMapping events of the same trace
 *   E8 flag enums by name: "None" is 0; any other name is a non-zero value (PerfView's enum values are not
 *      published independently, so only zero/non-zero is checked)
 *   E9 floating point: equal to 1e-6 relative (EXPECTED.md §1: last digits may differ)
 *   E10 a UTF-16 character (UINT16 with the STRING out-type, .NET char): PerfView prints its code, we the
 *       character, as TDH does
 *   E11 bit maps: PerfView joins the names with "|", we with " | " (TDH's separator)
 *   E12 SYSTEMTIME: PerfView loses wMilliseconds (primitive-types shows ".03" for all five events, whose
 *       payloads hold 799, 239, 671, 48 and 484 ms, matching their FILETIME fields): compared to the second
 *   E13 value-map names: the schema's string keeps its trailing spaces ("dynamic ", pktmon's "Tx "), as
 *       Windows prints them (tracerpt, pktmon: "Direction Tx , Type Ethernet ,"); TraceEvent trims them
 * Fields PerfView derives from payload fields, checked against ours (D rules in derived_matches). */

static int is_cut_equal(const char *pv, const char *ours)
{
    char cut[256];
    baseline_perfview_cut(ours, cut, sizeof cut);
    return strcmp(cut, pv) == 0;
}

/* .NET "N0": "-2,305,843,009,213,693,952" */
static void format_n0(int neg, uint64_t v, char *out, size_t cap)
{
    char digits[32], tmp[48];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v), o = 0;
    if (neg) tmp[o++] = '-';
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    tmp[o] = '\0';
    snprintf(out, cap, "%s", tmp);
}

static int integer_equal(const char *pv, const char *ours)
{
    int pn, on;
    uint64_t pm, om;
    if (baseline_parse_integer(ours, &on, &om)) return 0;
    if (baseline_is_cut(pv)) {
        /* a cut number: compare PerfView's text of our value, read unsigned or signed (E1 + E2/E3) */
        char text[48];
        format_n0(on, om, text, sizeof text);
        if (is_cut_equal(pv, text)) return 1;
        for (int bits = 8; bits <= 64 && !on; bits *= 2) {
            uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1, sign = (uint64_t)1 << (bits - 1);
            if (om > mask || !(om & sign)) continue;
            format_n0(1, (~om + 1) & mask, text, sizeof text);
            if (is_cut_equal(pv, text)) return 1;
        }
        return 0;
    }
    if (baseline_parse_integer(pv, &pn, &pm)) return 0;
    if (pn == on && pm == om) return 1;
    if (pn && !on) /* E3 */
        for (int bits = 8; bits <= 64; bits *= 2) {
            uint64_t mask = bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
            if (om <= mask && ((~pm + 1) & mask) == om) return 1;
        }
    return 0;
}

static int date_equal(const char *pv, const char *ours)
{
    char date[40];
    int neg;
    uint64_t ft;
    if (baseline_iso_to_perfview_date(ours, date, sizeof date) != 0 &&
        (baseline_parse_integer(ours, &neg, &ft) != 0 || neg ||
         baseline_filetime_to_perfview_date(ft, date, sizeof date) != 0))
        return 0;
    return is_cut_equal(pv, date);
}

static int path_equal(const run *r, const char *pv, const char *ours)
{
    if (ours[0] == '\\' && ours[1] != '\\' && strncasecmp(ours, "\\Device\\", 8) != 0) {
        /* a volume-relative path ("\Windows\System32\wow64.dll"): PerfView puts the system drive (of the
         * \SystemRoot\ mapping) in front */
        for (size_t i = 0; i < r->volume_count; i++)
            if (strcasecmp(r->ntpath[i], "\\SystemRoot\\") == 0 && r->dospath[i][0] && r->dospath[i][1] == ':') {
                char dos[1024];
                snprintf(dos, sizeof dos, "%.2s%s", r->dospath[i], ours);
                if (is_cut_equal(pv, dos)) return 1;
            }
    }
    for (size_t i = 0; i < r->volume_count; i++) {
        size_t n = strlen(r->ntpath[i]);
        if (n && strncasecmp(ours, r->ntpath[i], n) == 0) {
            char dos[1024];
            snprintf(dos, sizeof dos, "%s%s", r->dospath[i], ours + n);
            if (is_cut_equal(pv, dos)) return 1;
        }
    }
    return 0;
}

/* Flag enums PerfView prints by name (E8). */
static const struct { const char *event, *pv; } enum_fields[] = {
    {"Windows Kernel/Process/", "Flags"},   /* TraceEvent's ProcessFlags: None, Wow64, Protected, ... */
};

static int value_matches(const run *r, const char *pv, const our_field *of, int enum_field)
{
    const char *ours = of->value;
    char date[40];
    if (of->in_type == ETL_IN_SYSTEMTIME && baseline_iso_to_perfview_date(ours, date, sizeof date) == 0)
        return strlen(pv) >= 17 && strncmp(pv, date, 17) == 0;                          /* E12 */
    if (strcmp(pv, ours) == 0 || is_cut_equal(pv, ours)) return 1;                      /* E1 */
    size_t olen = strlen(ours);
    if (olen > 1 && ours[olen - 1] == ' ' && strlen(pv) < olen && strncmp(pv, ours, strlen(pv)) == 0 &&
        strspn(ours + strlen(pv), " ") == olen - strlen(pv))
        return 1;                                                                        /* E13 */
    if (integer_equal(pv, ours)) return 1;                                               /* E2, E3 */
    if ((strcasecmp(pv, "true") == 0 || strcasecmp(pv, "false") == 0) && strcasecmp(pv, ours) == 0) return 1;
    if (ours[0] == '{') {                                                                /* E5 */
        char bare[64];
        snprintf(bare, sizeof bare, "%.*s", (int)strcspn(ours + 1, "}"), ours + 1);
        if (is_cut_equal(pv, bare)) return 1;
    }
    if (strlen(pv) > 2 && pv[2] == '/' && date_equal(pv, ours)) return 1;                         /* E6 */
    if (path_equal(r, pv, ours)) return 1;                                               /* E7 */
    int neg;
    uint64_t v;
    if (enum_field && baseline_parse_integer(ours, &neg, &v) == 0)                       /* E8 */
        return strcmp(pv, "None") == 0 ? v == 0 : v != 0;
    if (baseline_parse_integer(pv, &neg, &v) == 0 && !neg && v >= 0x20 && v < 0x80 && ours[0] == (char)v &&
        !ours[1])
        return 1;                                                                        /* E10 */
    if (strstr(ours, " | ")) {                                                           /* E11 */
        char joined[1024];
        size_t o = 0;
        for (const char *p = ours; *p && o + 1 < sizeof joined; p++) {
            if (p[0] == ' ' && p[1] == '|' && p[2] == ' ') { joined[o++] = '|'; p += 2; continue; }
            joined[o++] = *p;
        }
        joined[o] = '\0';
        if (is_cut_equal(pv, joined)) return 1;
    }
    char *pe, *oe;
    double pd = strtod(pv, &pe), od = strtod(ours, &oe);                                 /* E9 */
    if (*pv && *ours && !*pe && !*oe && (pd == od || (pd - od) / (pd != 0 ? pd : 1) < 1e-6) &&
        (pd - od) / (pd != 0 ? pd : 1) > -1e-6)
        return 1;
    return 0;
}

/* Fields PerfView computes from payload fields (D1-D8) and PerfView's known misreadings; returns 1 when the
 * rule applies (result in *ok). */
static int derived_matches(const run *r, const baseline_event *pv, const char *event, const char *name,
                           const char *value, const our_event *ev, int *ok)
{
    char buf[64];
    int neg;
    uint64_t v;
    if (strcmp(name, "UtcOffsetMinutes") == 0 && strcmp(event, "Windows Kernel/EventTrace") == 0) {
        /* D1: from TimeZoneInformation.Bias */
        snprintf(buf, sizeof buf, "%ld", (long)etl_logfile_utc_offset_minutes(r->header));
        *ok = integer_equal(value, buf);
        return 1;
    }
    if (strcmp(name, "BuildTime") == 0) {
        /* D2: 1970-01-01 + TimeDateStamp seconds, the stamp read unsigned */
        const char *tds = field_value(ev, "TimeDateStamp");
        *ok = tds && baseline_parse_integer(tds, &neg, &v) == 0 && !neg &&
              baseline_filetime_to_perfview_date((uint64_t)116444736000000000ull + (v & 0xFFFFFFFFu) * 10000000u,
                                                 buf, sizeof buf) == 0 &&
              is_cut_equal(value, buf);
        return 1;
    }
    if (strcmp(name, "ProcessorNumber") == 0 && starts_with(event, "Windows Kernel/PerfInfo/Sample")) {
        snprintf(buf, sizeof buf, "%d", ev->cpu); /* D3: the record's processor */
        *ok = integer_equal(value, buf);
        return 1;
    }
    if (strcmp(name, "ElapsedTimeMSec") == 0 && starts_with(event, "Windows Kernel/DiskIO/")) {
        /* D4: HighResResponseTime in ticks of PerfFreq, as milliseconds with three decimals */
        const char *hr = field_value(ev, "HighResResponseTime");
        *ok = hr && baseline_parse_integer(hr, &neg, &v) == 0 && r->header->perf_freq > 0 && v < UINT64_MAX / 2000000;
        if (*ok) {
            /* thousandths of a ms, rounded half up (.NET "N3"), in exact integer arithmetic */
            uint64_t f = (uint64_t)r->header->perf_freq, th = (v * 2000000u + f) / (2 * f);
            char n0[48];
            format_n0(0, th / 1000, n0, sizeof n0);
            snprintf(buf, sizeof buf, "%s.%03llu", n0, (unsigned long long)(th % 1000));
            *ok = strcmp(buf, value) == 0;
        }
        return 1;
    }
    if (strcmp(name, "context") == 0 && starts_with(event, "Windows Kernel/UdpIp/")) {
        /* D5: PerfView reads the v2 PID and size (two u32) as the v1 pointer "context" */
        const char *pid = field_value(ev, "PID"), *size = field_value(ev, "size");
        uint64_t p, s;
        *ok = pid && size && baseline_parse_integer(pid, &neg, &p) == 0 && baseline_parse_integer(size, &neg, &s) == 0;
        if (*ok) {
            snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)(s << 32 | p));
            *ok = integer_equal(value, buf);
        }
        return 1;
    }
    size_t elen = strlen(event);
    if (strcmp(name, "PayloadLength") == 0 && elen > 13 && strcmp(event + elen - 13, "/ManifestData") == 0) {
        /* D8: PerfView's length of the manifest chunk event = DataLen */
        snprintf(buf, sizeof buf, "%ld", pv->data_len);
        *ok = integer_equal(value, buf);
        return 1;
    }
    if (strcmp(name, "ProcessID") == 0 && strcmp(event, "KernelTraceControl/ImageID") == 0) {
        /* D6: PerfView reads ProcessID at offset 12, the high half of the 64-bit ImageSize; the payload's
         * ProcessId (offset 16) equals the record's PID */
        const char *ours = field_value(ev, "ProcessId");
        snprintf(buf, sizeof buf, "%ld", pv->pid);
        *ok = strcmp(value, "0") == 0 && ours && integer_equal(buf, ours);
        return 1;
    }
    return 0;
}

static const char *find_rename(const char *event, const char *name)
{
    for (size_t i = 0; i < N(field_renames); i++)
        if (starts_with(event, field_renames[i].event) && strcmp(name, field_renames[i].pv) == 0)
            return field_renames[i].ours;
    return NULL;
}

static int perfview_only_field(const char *event, const char *name)
{
    for (size_t i = 0; i < N(perfview_only); i++)
        if (starts_with(event, perfview_only[i].event) && strcmp(name, perfview_only[i].pv) == 0) return 1;
    return 0;
}

/* PID/TID: PerfView's TraceLog attributes kernel events itself. Accepted: the record's ids (P1); for kernel
 * events ids taken from the payload (P2: ProcessId/PID; TThreadId, ThreadId, IssuingThreadId) or, when the record has no PID (PERFINFO
 * headers), the PID our decoder resolves the same way through its thread table (P3); a TID of -1 where
 * PerfView has no thread for the event; and PerfView's misreading of DiskIO/FlushBuffers, whose TID is the low
 * half of HighResResponseTime (P4, offset 8). */
static int pid_tid_ok(const baseline_event *pv, const char *event, const our_event *ev, int *unresolved)
{
    char buf[32];
    int kernel = starts_with(event, "Windows Kernel/") || starts_with(event, "KernelTraceControl/") ||
                 starts_with(event, "MSNT_SystemTrace/");
    int pid_ok = pv->pid == ev->pid, tid_ok = pv->tid == ev->tid;
    if (kernel) {
        snprintf(buf, sizeof buf, "%ld", pv->pid);
        const char *p = field_value(ev, "ProcessId") ? field_value(ev, "ProcessId") : field_value(ev, "PID");
        pid_ok = pid_ok || (p && integer_equal(buf, p)) || (ev->pid == -1 && pv->pid == ev->resolved_pid);
        /* our process table cannot resolve the thread yet (its Thread DCStart comes later; TraceLog also learns
         * from record headers that carry both ids): accepted, counted and printed as "PID unresolved" */
        if (!pid_ok && ev->pid == -1 && ev->resolved_pid == -1) pid_ok = 1, *unresolved = 1;
        snprintf(buf, sizeof buf, "%ld", pv->tid);
        static const char *const thread_fields[] = {"TThreadId", "ThreadId", "IssuingThreadId"};
        tid_ok = tid_ok || pv->tid == -1;
        for (size_t i = 0; i < N(thread_fields) && !tid_ok; i++) {
            const char *t = field_value(ev, thread_fields[i]);
            tid_ok = t && integer_equal(buf, t);
        }
        if (strcmp(event, "Windows Kernel/DiskIO/FlushBuffers") == 0) {
            const char *hr = field_value(ev, "HighResResponseTime");
            tid_ok = hr && integer_equal(buf, hr);
        }
    }
    return pid_ok && tid_ok;
}

/* Compares one PerfView line with one of our events; describes the first difference in why. */
static int event_matches(const run *r, const baseline_event *pv, const our_event *ev, int *unresolved, char *why,
                         size_t cap)
{
    char event[512];
    snprintf(event, sizeof event, "%s/%s", pv->provider, pv->event_name);
    *unresolved = 0;
    if (!pid_tid_ok(pv, event, ev, unresolved)) {
        snprintf(why, cap, "PID/TID %ld/%ld, ours %ld/%ld", pv->pid, pv->tid, ev->pid, ev->tid);
        return 0;
    }
    for (size_t i = 0; i < pv->field_count; i++) {
        const char *name = pv->fields[i].name, *value = pv->fields[i].value;
        int ok;
        if (derived_matches(r, pv, event, name, value, ev, &ok)) {
            if (!ok) { snprintf(why, cap, "derived field %s=%s does not follow from ours", name, value); return 0; }
            continue;
        }
        if (perfview_only_field(event, name)) continue;
        const char *rename = find_rename(event, name);
        const our_field *ours = find_field(ev, rename ? rename : name);
        if (!ours) {
            /* D7: PerfView shows an empty ThreadName for Thread v3 events, which have none */
            if (strcmp(name, "ThreadName") == 0 && !*value && starts_with(event, "Windows Kernel/Thread/")) continue;
            snprintf(why, cap, "no field %s (PerfView %s)", rename ? rename : name, value);
            return 0;
        }
        int enum_field = 0;
        for (size_t k = 0; k < N(enum_fields); k++)
            enum_field |= starts_with(event, enum_fields[k].event) && strcmp(name, enum_fields[k].pv) == 0;
        if (!value_matches(r, value, ours, enum_field)) {
            snprintf(why, cap, "%s=%s, ours %s", name, value, ours->value);
            return 0;
        }
    }
    return 1;
}

/* ---- one trace --------------------------------------------------------------------------------------------- */

typedef struct tally {
    int matched, mismatched, missing, skipped, info_matched, info_failed;
    int pname_same, pname_compared;   /* PerfView's PName vs our process context (matched lines) */
    int pname_bad;                    /* required lines whose PName differs: must be 0 */
    int pid_unresolved;               /* matched, but our decoder had no PID where PerfView has one */
    int counts_ok, counts_bad;
} tally;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* COUNT keys whose counts must match: required providers, and PerfView's key maps to one of our names. */
static void prepare_counts(run *r)
{
    r->count_names = calloc(r->base->count_count + 1, sizeof *r->count_names);
    r->our_counts = calloc(r->base->count_count + 1, sizeof *r->our_counts);
    if (!r->count_names || !r->our_counts) abort();
    for (size_t i = 0; i < r->base->count_count; i++) {
        baseline_event key = {0};
        char *slash = strchr(r->base->counts[i].key, '/');
        if (!slash) continue;
        key.provider = strndup(r->base->counts[i].key, (size_t)(slash - r->base->counts[i].key));
        key.event_name = slash + 1;
        if (classify(&key) == LINE_REQUIRED) our_name_for(&key, r->count_names[i], sizeof r->count_names[0]);
        free(key.provider);
    }
    r->count_names_n = r->base->count_count;
}

static int on_learn(const etl_event_record *rec, void *ctx)
{
    return etl_decoder_learn(ctx, rec) != ETL_OK;
}

/* The first pass etlconv makes (src/cli/convert.c): process names from rundowns logged after the events. */
static void learn_processes(const char *etl_path, etl_decoder *decoder)
{
    etl_trace *trace;
    etl_error e;
    const char *paths[1] = {etl_path};
    assert_int_equal(etl_open(&trace, paths, 1, NULL, &e), ETL_OK);
    assert_int_equal(etl_process(trace, on_learn, decoder), ETL_OK);
    etl_close(trace);
}

static void compare_trace(const char *etl_path, const char *baseline_path, tally *t)
{
    baseline base;
    char err[256];
    if (baseline_load(baseline_path, &base, err, sizeof err) != 0) fail_msg("%s", err);
    run r;
    memset(&r, 0, sizeof r);
    r.base = &base;
    r.times = calloc(base.event_count + 1, sizeof *r.times);
    if (!r.times) abort();
    for (size_t i = 0; i < base.event_count; i++) r.times[r.time_count++] = base.events[i].time_us * 10;
    qsort(r.times, r.time_count, sizeof *r.times, cmp_i64);
    prepare_counts(&r);

    etl_trace *trace;
    etl_error e;
    const char *paths[1] = {etl_path};
    assert_int_equal(etl_open(&trace, paths, 1, NULL, &e), ETL_OK);
    r.header = etl_trace_logfile_header(trace, 0);
    assert_non_null(r.header);
    etl_schema_registry *registry = etl_schema_registry_new();
    assert_non_null(registry);
    r.decoder = etl_decoder_new(registry, trace);
    assert_non_null(r.decoder);
    learn_processes(etl_path, r.decoder);
    assert_int_equal(etl_process(trace, on_record, &r), ETL_OK);

    memset(t, 0, sizeof *t);
    for (size_t i = 0; i < base.event_count; i++) {
        const baseline_event *pv = &base.events[i];
        line_class cls = classify(pv);
        if (cls == LINE_SKIPPED) { t->skipped++; continue; }
        char want[512], why[512] = "no event at this time with this name, length and processor";
        our_name_for(pv, want, sizeof want);
        our_event *best = NULL;
        int ok = 0, unresolved = 0;
        for (size_t k = 0; k < r.event_count && !ok; k++) {
            our_event *ev = &r.events[k];
            if (ev->used || ev->ticks < pv->time_us * 10 - 5 || ev->ticks > pv->time_us * 10 + 5 ||
                ev->data_len != pv->data_len || ev->cpu != pv->proc_num || !same_event_name(ev->name, want))
                continue;
            char w[512];
            if (event_matches(&r, pv, ev, &unresolved, w, sizeof w)) best = ev, ok = 1;
            else if (!best) best = ev, snprintf(why, sizeof why, "%s", w);
        }
        if (ok) {
            best->used = 1;
            if (unresolved) {
                t->pid_unresolved++;
                printf("  PID unresolved %s:%d %s/%s: PerfView PID %ld\n", baseline_path, pv->line, pv->provider,
                       pv->event_name, pv->pid);
            }
            /* PName: image name without extension; "Process(N)" when TraceLog had none (source 5 of issue 3) */
            if (pv->pname[0] && strncmp(pv->pname, "Process(", 8) != 0) {
                t->pname_compared++;
                const char *ours = best->process_name ? best->process_name : "";
                size_t n = strlen(pv->pname);
                int same = strncasecmp(ours, pv->pname, n) == 0 && (ours[n] == '\0' || ours[n] == '.');
                t->pname_same += same;
                if (!same && cls == LINE_REQUIRED) {
                    t->pname_bad++;
                    printf("  PNAME %s:%d %s/%s: PerfView %s, ours %s\n", baseline_path, pv->line, pv->provider,
                           pv->event_name, pv->pname, best->process_name ? best->process_name : "(none)");
                }
            }
        }
        if (cls == LINE_REQUIRED) {
            if (ok) t->matched++;
            else {
                if (best) t->mismatched++;
                else t->missing++;
                printf("  MISMATCH %s:%d %s/%s: %s\n", baseline_path, pv->line, pv->provider, pv->event_name, why);
            }
        } else if (ok) t->info_matched++;
        else {
            t->info_failed++;
            printf("  (informational) %s:%d %s/%s: %s\n", baseline_path, pv->line, pv->provider, pv->event_name, why);
        }
    }
    for (size_t i = 0; i < r.count_names_n; i++) {
        if (!r.count_names[i][0]) continue;
        if (r.our_counts[i] == base.counts[i].count) t->counts_ok++;
        else {
            t->counts_bad++;
            printf("  COUNT %s: PerfView %lu, ours %lu (%s)\n", base.counts[i].key, base.counts[i].count,
                   r.our_counts[i], r.count_names[i]);
        }
    }
    printf("%s: required %d matched, %d mismatched, %d missing; %d skipped (manifest issue); "
           "informational %d matched, %d not; COUNT %d equal, %d differ; PName %d of %d the same "
           "(%d required lines differ); PID unresolved %d\n",
           etl_path, t->matched, t->mismatched, t->missing, t->skipped, t->info_matched, t->info_failed,
           t->counts_ok, t->counts_bad, t->pname_same, t->pname_compared, t->pname_bad, t->pid_unresolved);
    etl_decoder_free(r.decoder);
    etl_schema_registry_free(registry);
    etl_close(trace);
    free_run(&r);
    baseline_free(&base);
}

static void expect_all_required(const char *etl, const char *baseline_path, int required_lines)
{
    tally t;
    compare_trace(etl, baseline_path, &t);
    assert_int_equal(t.matched, required_lines);
    assert_int_equal(t.mismatched, 0);
    assert_int_equal(t.missing, 0);
    assert_int_equal(t.counts_bad, 0);
    assert_int_equal(t.pname_bad, 0);
}

/* Required lines per baseline, counted with grep on the provider names of required_providers: primitive-types
 * 6 (all), gcevents and gcrundownevents 1 (the header; the rest are .NET runtime events), net.4.5.2.x86 277 (164
 * kernel, 35 embedded-metadata, 78 KernelTraceControl and EventSource lines). */
static void test_primitive_types(void **state)
{
    (void)state;
    expect_all_required("testdata/perfview/primitive-types.etl.gz", "testdata/perfview/primitive-types.baseline.txt", 6);
}

static void test_gcevents(void **state)
{
    (void)state;
    expect_all_required("testdata/perfview/gcevents.PerfViewData.etl.gz", "testdata/perfview/gcevents.baseline.txt", 1);
}

static void test_gcrundownevents(void **state)
{
    (void)state;
    expect_all_required("testdata/perfview/gcrundownevents.PerfViewData.clrRundown.etl.gz",
                        "testdata/perfview/gcrundownevents.baseline.txt", 1);
}

static void test_net452(void **state)
{
    (void)state;
    expect_all_required("testdata/perfview/net.4.5.2.x86.etl.gz", "testdata/perfview/net.4.5.2.x86.baseline.txt", 277);
}

/* The diaghub set (EXPECTED.md §3): TraceEvent's name of every merged event, in order. Per name, the kernel and
 * KernelTraceControl events must be as many as ours (decoded file by file; TraceLog reports every one of these
 * record kinds, and reports no Thread or StackWalk events of this set). Names map to ours through the same
 * rename table (support/perfview_names.c), with the provider TraceEvent's kernel parser gives the class. */
static void test_diaghub_kernel_names(void **state)
{
    (void)state;
    static const char *const files[] = {
        "testdata/perfview/diaghub.etl.gz", "testdata/perfview/diaghub.kernel.1.etl.gz",
        "testdata/perfview/diaghub.user_injected.1.etl.gz", "testdata/perfview/diaghub.user_paged.1.etl.gz",
    };
    static const char *const ktc_classes[] = {"ImageID", "MetaData"};
    static const char *const kernel_classes[] = {"EventTrace", "Image", "Process", "Thread", "SystemConfig",
                                                 "SysConfig", "DiskIO", "Memory", "PerfInfo", "TcpIp", "UdpIp"};
    char names[64][256];
    unsigned long want[64] = {0}, got[64] = {0};
    size_t n = 0;
    FILE *f = fopen("testdata/perfview/diaghub-etls.all-events.txt", "r");
    assert_non_null(f);
    char line[512];
    unsigned long total = 0;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\r\n")] = '\0';
        total++;
        char cls[128];
        snprintf(cls, sizeof cls, "%.*s", (int)strcspn(line, "/"), line);
        const char *provider = in_list(cls, ktc_classes, N(ktc_classes))        ? "KernelTraceControl"
                               : in_list(cls, kernel_classes, N(kernel_classes)) ? "Windows Kernel"
                                                                                 : NULL;
        if (!provider) continue;
        baseline_event key = {0};
        key.provider = (char *)provider;
        key.event_name = line;
        char ours[256];
        our_name_for(&key, ours, sizeof ours);
        size_t i;
        for (i = 0; i < n && strcmp(names[i], ours) != 0; i++) {}
        if (i == n) {
            assert_true(n < 64);
            snprintf(names[n++], sizeof names[0], "%s", ours);
        }
        want[i]++;
    }
    fclose(f);
    assert_int_equal(total, 95506);   /* EXPECTED.md §3 */
    for (size_t k = 0; k < N(files); k++) {
        etl_trace *trace;
        etl_error e;
        const char *paths[1] = {files[k]};
        assert_int_equal(etl_open(&trace, paths, 1, NULL, &e), ETL_OK);
        etl_schema_registry *registry = etl_schema_registry_new();
        etl_decoder *decoder = etl_decoder_new(registry, trace);
        assert_non_null(decoder);
        run r;
        memset(&r, 0, sizeof r);
        r.decoder = decoder;
        r.count_names = names;
        r.our_counts = got;
        r.count_names_n = n;
        assert_int_equal(etl_process(trace, on_record, &r), ETL_OK);
        r.count_names = NULL;
        r.our_counts = NULL;
        free_run(&r);
        etl_decoder_free(decoder);
        etl_schema_registry_free(registry);
        etl_close(trace);
    }
    int differ = 0;
    for (size_t i = 0; i < n; i++)
        if (want[i] != got[i]) {
            printf("  diaghub %s: TraceEvent %lu, ours %lu\n", names[i], want[i], got[i]);
            differ++;
        }
    printf("diaghub: %zu kernel/KernelTraceControl event names, %d counts differ\n", n, differ);
    assert_true(n >= 40);
    assert_int_equal(differ, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_primitive_types),
        cmocka_unit_test(test_gcevents),
        cmocka_unit_test(test_gcrundownevents),
        cmocka_unit_test(test_net452),
        cmocka_unit_test(test_diaghub_kernel_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
