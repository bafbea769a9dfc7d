#include "support/perfview_names.h"

#include <stdio.h>
#include <string.h>

/* PerfView's kernel event names → ours ("<provider>/<event name>" as the decoder names them). TraceEvent renames
 * MOF classes and types; its SysConfig events are KernelTraceControl's. First matching prefix wins. */
static const struct { const char *pv, *ours, *why; } event_renames[] = {
    {"Windows Kernel/EventTrace", "MSNT_SystemTrace/EventTrace/Header", "PerfView drops the type name Header"},
    {"Windows Kernel/EventTrace/RundownComplete", "MSNT_SystemTrace/EventTrace/RDComplete", "MOF type RDComplete"},
    {"Windows Kernel/DiskIO/", "MSNT_SystemTrace/DiskIo/", "MOF class DiskIo"},
    {"Windows Kernel/Memory/", "MSNT_SystemTrace/PageFault/", "MOF class PageFault"},
    {"Windows Kernel/Process/Stop", "MSNT_SystemTrace/Process/End", "MOF type End"},
    {"Windows Kernel/Process/DCStop", "MSNT_SystemTrace/Process/DCEnd", "MOF type DCEnd"},
    {"Windows Kernel/Thread/Stop", "MSNT_SystemTrace/Thread/End", "MOF type End"},
    {"Windows Kernel/Image/Unload", "MSNT_SystemTrace/Image/UnLoad", "MOF type UnLoad"},
    {"Windows Kernel/Image/DCStop", "MSNT_SystemTrace/Image/DCEnd", "MOF type DCEnd"},
    {"Windows Kernel/PerfInfo/Sample", "MSNT_SystemTrace/PerfInfo/SampleProf", "MOF type SampleProf"},
    {"Windows Kernel/TcpIp/Send", "MSNT_SystemTrace/TcpIp/SendIPV4", "the v2 MOF types name the IP version"},
    {"Windows Kernel/TcpIp/Recv", "MSNT_SystemTrace/TcpIp/RecvIPV4", "same"},
    {"Windows Kernel/TcpIp/Accept", "MSNT_SystemTrace/TcpIp/AcceptIPV4", "same"},
    {"Windows Kernel/TcpIp/Connect", "MSNT_SystemTrace/TcpIp/ConnectIPV4", "same"},
    {"Windows Kernel/TcpIp/Disconnect", "MSNT_SystemTrace/TcpIp/DisconnectIPV4", "same"},
    {"Windows Kernel/UdpIp/Send", "MSNT_SystemTrace/UdpIp/SendIPV4", "same"},
    {"Windows Kernel/UdpIp/Recv", "MSNT_SystemTrace/UdpIp/RecvIPV4", "same"},
    {"Windows Kernel/SysConfig/Opcode(", "KernelTraceControl/Opcode(", "no published layout (PerfView has none)"},
    {"Windows Kernel/SysConfig/", "KernelTraceControl/SysConfig/", "KernelTraceControl's SysConfig task"},
    {"Windows Kernel/", "MSNT_SystemTrace/", "TraceEvent's name for the kernel provider"},
    {"KernelTraceControl/ImageID", "KernelTraceControl/ImageID/Info", "PerfView drops the type name Info"},
};

#define RENAME_COUNT (sizeof(event_renames) / sizeof(event_renames[0]))

/* Renames whose name ends in '/' or '(' are prefixes. */
static int is_prefix(const char *s) { size_t n = strlen(s); return n && (s[n - 1] == '/' || s[n - 1] == '('); }

void perfview_our_name(const char *provider, const char *event, char *out, size_t cap)
{
    char full[512];
    snprintf(full, sizeof full, "%s/%s", provider, event);
    for (size_t i = 0; i < RENAME_COUNT; i++) {
        const char *from = event_renames[i].pv;
        size_t n = strlen(from);
        if (is_prefix(from) ? strncmp(full, from, n) == 0 : strcmp(full, from) == 0) {
            snprintf(out, cap, "%s%s", event_renames[i].ours, is_prefix(from) ? full + n : "");
            return;
        }
    }
    snprintf(out, cap, "%s", full);
}

int perfview_name_of(const char *ours, char *out, size_t cap)
{
    for (size_t i = 0; i < RENAME_COUNT; i++) {
        const char *to = event_renames[i].ours;
        size_t n = strlen(to);
        if (is_prefix(to) ? strncmp(ours, to, n) == 0 : strcmp(ours, to) == 0) {
            snprintf(out, cap, "%s%s", event_renames[i].pv, is_prefix(to) ? ours + n : "");
            return 1;
        }
    }
    snprintf(out, cap, "%s", ours);
    return 0;
}
