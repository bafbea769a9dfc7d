#!/usr/bin/env python3
"""Mutation test of etlconv against damaged and hostile traces (issue 11), run by tests/cli_mutants.sh.

Every mutant is made here from a corpus trace, by class:
  truncation   cut at every buffer boundary, a few bytes either side, and with short all-zero tails
  duplicate    a buffer written twice (next to itself, at the end)
  foreign      a buffer of another trace (other LoggerId; other BufferSize)
  reordered    two buffers swapped: NOT damage - the output must equal the original's, exit 0
  clock        log-file header clock fields: PerfFreq 0/-1 with QPC, CPU cycles without CPU speed, unknown type
  zero_width   manifests whose arrays have elements of no payload bytes (amplification)
  bomb         compressed buffers claiming more than BufferSize; many streams of 16 MiB buffers
Rules: no signal, no sanitizer report; a damaged input exits 1 or 2 with a line on stderr naming the file and a
byte offset (exit 2: naming the file); output stays bounded; peak RSS of every run (getrusage of the child)
stays under a bound. Prints TAP lines and, per class, how many mutants ran."""
import gzip
import os
import resource
import struct
import subprocess
import sys

ETLCONV = sys.argv[1]
TMP = sys.argv[2]
RSS_LIMIT_KIB = int(os.environ.get("MUTANT_RSS_LIMIT_KIB", str(900 * 1024)))
OUT_LIMIT = 4 << 20           # bytes of JSON any mutant may produce (the originals: < 1.1 MB)

n_test = 0
counts = {}
failures = {}


def load(rel):
    with gzip.open(os.path.join("testdata", rel), "rb") as f:
        return bytearray(f.read())


def buffers(data):
    """Offsets and sizes of the buffers of a trace (uniform or compressed)."""
    out, pos = [], 0
    while pos + 0x48 <= len(data):
        size = struct.unpack_from("<I", data, pos)[0]
        if size < 0x48 or pos + size > len(data):
            break
        out.append((pos, size))
        pos += size
    return out


def run(data, args=(), name="mutant"):
    path = os.path.join(TMP, name + ".etl")
    with open(path, "wb") as f:
        f.write(data)
    out = os.path.join(TMP, "out.json")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    p = subprocess.run([ETLCONV, "-of", "json", "-o", out, "-y", *args, path], capture_output=True,
                       timeout=300)
    rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # max over children so far
    size = os.path.getsize(out) if os.path.exists(out) else 0
    text = open(out, "rb").read() if size and size <= OUT_LIMIT else b""
    if os.path.exists(out):
        os.unlink(out)
    os.unlink(path)
    return p.returncode, p.stderr.decode("utf-8", "replace"), size, text, max(rss, before), path


def verdict(cls, label, result, damaged=True, same_as=None, also_named=()):
    rc, err, size, text, rss, path = result
    counts[cls] = counts.get(cls, 0) + 1
    why = None
    if rc < 0:
        why = "killed by signal %d" % -rc
    elif "Sanitizer" in err or "runtime error" in err:
        why = "sanitizer report"
    elif size > OUT_LIMIT:
        why = "output of %d bytes" % size
    elif rss > RSS_LIMIT_KIB:
        why = "peak RSS %d KiB" % rss
    elif damaged:
        if rc not in (1, 2):
            why = "exit %d (damage not reported)" % rc
        elif not any(n in err for n in (path,) + tuple(also_named)) or (rc == 1 and "offset 0x" not in err):
            why = "exit %d without a line naming the file and offset" % rc
    else:
        if rc != 0:
            why = "exit %d on an undamaged input: %s" % (rc, err.strip()[:200])
        elif same_as is not None and text != same_as:
            why = "output differs from the original's"
    if why:
        failures.setdefault(cls, []).append("%s: %s" % (label, why))


def put32(d, off, v):
    struct.pack_into("<I", d, off, v & 0xFFFFFFFF)


def put64(d, off, v):
    struct.pack_into("<Q", d, off, v & 0xFFFFFFFFFFFFFFFF)


# ---- classes ---------------------------------------------------------------------------------------------

UNIFORM = ["airbus-cert/lxcore_kernel.etl.gz", "perfview/primitive-types.etl.gz", "tx/CrossMachineHTTP.etl.gz"]
COMPRESSED = ["perfview/SelfDescribingSingleEvent.etl.gz", "terraingen2d/PerfViewData.etl.gz"]


def truncation():
    for rel in UNIFORM + COMPRESSED:
        d = load(rel)
        bufs = buffers(d)
        picks = sorted({1, 2, len(bufs) // 2, len(bufs) - 1} & set(range(1, len(bufs))))
        for k in picks:
            cut = bufs[k][0]
            for delta in (0, -1, 5, 0x48):
                at = cut + delta
                if 0 < at < len(d):
                    verdict("truncation", "%s cut at 0x%x" % (rel, at), run(d[:at]))
            for zeros in (100, 4000):
                verdict("truncation", "%s cut at 0x%x + %d zero bytes" % (rel, cut, zeros),
                        run(d[:cut] + bytes(zeros)))


def duplicate():
    for rel in UNIFORM + COMPRESSED:
        d = load(rel)
        bufs = buffers(d)
        for k in sorted({1, len(bufs) - 1}):
            off, size = bufs[k]
            b = d[off:off + size]
            verdict("duplicate", "%s buffer %d twice in a row" % (rel, k), run(d[:off + size] + b + d[off + size:]))
            verdict("duplicate", "%s buffer %d again at the end" % (rel, k), run(d + b))


def foreign():
    lx, pt, http = (load(r) for r in UNIFORM)
    # same BufferSize (8 KiB), other LoggerId
    for host, guest, name in ((lx, pt, "primitive-types into lxcore"), (pt, http, "CrossMachineHTTP into primitive-types"),
                              (http, lx, "lxcore into CrossMachineHTTP")):
        off, size = buffers(guest)[1]
        verdict("foreign", name + " (appended)", run(host + guest[off:off + size]))
        hoff = buffers(host)[1][0]
        verdict("foreign", name + " (inserted)", run(host[:hoff] + guest[off:off + size] + host[hoff:]))
    # same LoggerId, other BufferSize: a buffer of the host padded to 16 KiB with a new SequenceNumber
    for host, name in ((lx, "lxcore"), (http, "CrossMachineHTTP")):
        off, size = buffers(host)[1]
        b = bytearray(host[off:off + size]) + bytes(size)
        put32(b, 0, 2 * size)
        put64(b, 0x18, 99999)
        verdict("foreign", name + " 16 KiB buffer", run(host + b))


def reordered():
    for rel in UNIFORM:
        d = load(rel)
        original = run(d, name="original")
        bufs = buffers(d)
        for i, j in sorted({(1, 2), (1, len(bufs) - 1)}):
            if j <= i or j >= len(bufs):
                continue
            (oi, si), (oj, sj) = bufs[i], bufs[j]
            m = d[:oi] + d[oj:oj + sj] + d[oi + si:oj] + d[oi:oi + si] + d[oj + sj:]
            verdict("reordered", "%s buffers %d and %d swapped" % (rel, i, j), run(m), damaged=False,
                    same_as=original[3])


LFH = 0x48 + 0x20  # TRACE_LOGFILE_HEADER: first record's user data (64-bit layout)


def clock():
    for rel in ("perfview/primitive-types.etl.gz", "airbus-cert/lxcore_kernel.etl.gz", "tx/CrossMachineHTTP.etl.gz"):
        d = load(rel)
        assert struct.unpack_from("<I", d, LFH)[0] == buffers(d)[0][1], rel  # BufferSize where we expect it
        for flags, freq, mhz in ((1, 0, 2000), (1, -1, 2000), (0, 0, 2000), (3, 10000000, 0), (7, 10000000, 2000),
                                 (0xFFFFFFFF, 0, 0)):
            m = bytearray(d)
            put32(m, LFH + 0x110, flags)
            put64(m, LFH + 0x100, freq)
            put32(m, LFH + 0x34, mhz)
            verdict("clock", "%s ReservedFlags %d PerfFreq %d CPUSpeed %d" % (rel, flags, freq, mhz), run(m))


ZERO_WIDTH_TEMPLATES = [
    '<data name="B" inType="win:UInt8"/><data name="Z" inType="win:Binary" length="B" count="N"/>',
    '<data name="B" inType="win:UInt8"/><data name="Z" inType="win:AnsiString" length="B" count="N"/>',
    '<data name="B" inType="win:UInt8"/><data name="Z" inType="win:Binary" length="B" count="65535"/>',
    '<data name="B" inType="win:UInt8"/><data name="Z" inType="win:Binary" length="B" count="200"/>'
    '<data name="Y" inType="win:AnsiString" length="B" count="200"/>',
]


def zero_width():
    d = load("perfview/primitive-types.etl.gz")
    for i, tail in enumerate(ZERO_WIDTH_TEMPLATES):
        # primitive-types' payload: "Mercury\0", 00 (B = 0), 4D, CD FF (N = 65485) ...
        man = ('<?xml version="1.0"?><instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events" '
               'xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"><instrumentation><events>'
               '<provider name="solar_system" guid="{d3dd3dd4-aac2-4e2a-8dd4-a8fb61b77615}" symbol="S"><templates>'
               '<template tid="T"><data name="S" inType="win:AnsiString"/>' +
               tail.replace('<data name="B" inType="win:UInt8"/>',
                            '<data name="B" inType="win:UInt8"/><data name="C" inType="win:UInt8"/>'
                            '<data name="N" inType="win:UInt16"/>', 1) +
               '</template></templates><events><event value="0" version="0" template="T" symbol="E"/></events>'
               '</provider></events></instrumentation></instrumentationManifest>')
        mpath = os.path.join(TMP, "zw%d.man" % i)
        with open(mpath, "w") as f:
            f.write(man)
        verdict("zero_width", "template %d" % i, run(d, ("--no-trace-schemas", "-import", mpath)), also_named=(mpath,))


def lz77_bomb(prefix, total):
    """MS-XCA plain LZ77: `prefix`, one 0xFF, then a distance-1 match up to `total` bytes (as damage.c)."""
    out = bytearray()
    state = {"pos": None, "flags": 0, "bits": 32}

    def flag(bit):
        if state["bits"] == 32:
            if state["pos"] is not None:
                struct.pack_into("<I", out, state["pos"], state["flags"])
            state.update(pos=len(out), flags=0, bits=0)
            out.extend(bytes(4))
        state["flags"] |= bit << (31 - state["bits"])
        state["bits"] += 1

    for b in prefix + b"\xff":
        flag(0)
        out.append(b)
    flag(1)
    out.extend(b"\x07\x00\x0f\xff\x00\x00" + struct.pack("<I", total - len(prefix) - 1 - 3))
    flag(1)  # a match flag with no input left ends the stream
    while state["bits"] < 32:
        flag(1)
    struct.pack_into("<I", out, state["pos"], state["flags"])
    return bytes(out)


def bomb_trace(streams, claim, header_buffer_size):
    pt = load("perfview/primitive-types.etl.gz")
    head = bytearray(pt[:8192])
    put32(head, LFH, header_buffer_size)
    rec_end = struct.unpack_from("<I", pt, 8192 + 0x30)[0]
    records = bytes(pt[8192 + 0x48:8192 + rec_end])
    logger = struct.unpack_from("<H", pt, 8192 + 0x2A)[0]
    stream = lz77_bomb(records, claim - 0x48)
    out = bytearray(head)
    for i in range(streams):
        h = bytearray(0x48)
        put32(h, 0, 0x48 + len(stream))
        put32(h, 4, claim)
        put64(h, 0x18, 100 + i)
        struct.pack_into("<HH", h, 0x28, i, logger)
        put32(h, 0x2C, 3)
        put32(h, 0x30, claim)
        struct.pack_into("<H", h, 0x34, 0x60)
        out += h + stream
    return out


def bomb():
    for streams, claim in ((1, 1 << 20), (16, 16 << 20), (64, 4 << 20), (4, 8193)):
        verdict("bomb", "%d buffers claiming %d bytes, BufferSize 8192" % (streams, claim),
                run(bomb_trace(streams, claim, 8192)))
    # within a hostile header BufferSize (clamped to 16 MiB, a warning): many streams, memory stays bounded
    for streams in (24, 40):
        verdict("bomb", "%d streams x 16 MiB, header BufferSize 2 GiB" % streams,
                run(bomb_trace(streams, 16 << 20, 0x80000000)))


def main():
    for cls in (truncation, duplicate, foreign, reordered, clock, zero_width, bomb):
        cls()
        name = cls.__name__
        global n_test
        n_test += 1
        bad = failures.get(name, [])
        for line in bad[:5]:
            print("# %s" % line)
        print("%s %d - %s: %d mutants, %d failed (signals, sanitizer reports, unreported damage, unbounded output "
              "or memory)" % ("not ok" if bad else "ok", n_test, name, counts.get(name, 0), len(bad)))
    print("# mutants per class: " + ", ".join("%s %d" % kv for kv in counts.items()) +
          "; peak RSS of any run %d KiB" % resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)


main()
