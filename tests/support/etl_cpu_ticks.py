#!/usr/bin/env python3
"""Independent oracle for KernelTime/UserTime: walks an uncompressed .etl[.gz] file buffer by buffer (public
layout facts: WMI_BUFFER_HEADER is 0x48 bytes, BufferSize at 0x00, SavedOffset at 0x04, Offset at 0x30;
record markers and header types as documented by Geoff Chappell's ETW pages) and prints, per record, the
KernelTime and UserTime converted to ms with TimerResolution given on the command line:
    etl_cpu_ticks.py FILE TIMER_RESOLUTION  ->  one "kernel_ms user_ms" line per record
Records of header kinds without CPU times (compact, perfinfo, WPP message) print "0 0", and so do EVENT_HEADER
records of private sessions / NO_CPUTIME loggers (flags 0x0002 / 0x0200), whose fields are ProcessorTime."""
import gzip
import struct
import sys

def main():
    path, res = sys.argv[1], int(sys.argv[2])
    opener = gzip.open if open(path, 'rb').read(2) == b'\x1f\x8b' else open
    data = opener(path, 'rb').read()
    off = 0
    out = []
    while off + 0x48 <= len(data):
        bsize = struct.unpack_from('<I', data, off)[0]
        if bsize < 0x48 or off + bsize > len(data):
            break
        valid = struct.unpack_from('<I', data, off + 0x30)[0]
        if not (0x48 <= valid <= bsize):
            valid = struct.unpack_from('<I', data, off + 4)[0]
        if not (0x48 <= valid <= bsize):
            valid = 0x48
        p, end = off + 0x48, off + valid
        while p + 8 <= end:
            marker = struct.unpack_from('<I', data, p)[0]
            if marker == 0xFFFFFFFF:
                break
            k = u = 0
            if marker & 0xC0000000 == 0xC0000000:
                ht = (marker >> 16) & 0xFF
                if ht in (1, 2, 3, 4, 0x10, 0x11):
                    size = struct.unpack_from('<H', data, p + 4)[0]
                    if ht in (1, 2):
                        k, u = struct.unpack_from('<II', data, p + 24)
                elif ht in (0x0A, 0x0B, 0x14, 0x15):
                    size = marker & 0xFFFF
                    k, u = struct.unpack_from('<II', data, p + 40)
                elif ht in (0x12, 0x13, 0x0D):
                    size = marker & 0xFFFF
                    flags = struct.unpack_from('<H', data, p + 4)[0]
                    if not flags & 0x0202:
                        k, u = struct.unpack_from('<II', data, p + 56)
                else:
                    break
            elif marker & 0xD0000000 == 0x90000000:  # TRACE_MESSAGE (WPP)
                size = marker & 0xFFFF
            else:
                break
            if size < 8 or p + size > end:
                break
            out.append('%d %d' % (k * res // 10000, u * res // 10000))
            p += (size + 7) & ~7
        off += bsize
    sys.stdout.write('\n'.join(out) + ('\n' if out else ''))

main()
