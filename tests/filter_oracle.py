#!/usr/bin/python3
"""The event filters of etlconv (README "Filters", etlconv.1), implemented again over JSON Lines: reads the
unfiltered JSON Lines of a trace on stdin and prints the lines a filter keeps, unchanged. Used by
tests/cli_prefilter.sh to check that filtering before decoding keeps exactly these events.

usage: filter_oracle.py TRACE_START_ISO [--from T] [--to T] [--pid N,..] [--tid N,..] [--event N,..]
                        [--level N] [--keywords MASK] [--provider NAME]...
T is seconds from TRACE_START_ISO or an ISO-8601 UTC time ending in Z."""
import datetime
import json
import sys

EPOCH = datetime.datetime(1601, 1, 1, tzinfo=datetime.timezone.utc)


def ticks(iso):
    """100 ns ticks since 1601 of 'YYYY-MM-DDTHH:MM:SS[.fffffff]Z' (exact: no float)."""
    assert iso.endswith("Z"), iso
    main, _, frac = iso[:-1].partition(".")
    t = datetime.datetime.strptime(main, "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc)
    delta = t - EPOCH
    whole = (delta.days * 86400 + delta.seconds) * 10_000_000
    return whole + int((frac + "0000000")[:7]) if frac else whole


def when(text, start):
    if text.endswith("Z"):
        return ticks(text)
    return start + int(float(text) * 10_000_000 + 0.5)


def main():
    args = sys.argv[1:]
    start = ticks(args.pop(0))
    lo = hi = None
    pids = tids = ids = None
    level = None
    mask = 0
    providers = []
    while args:
        opt, val = args.pop(0), args.pop(0)
        if opt == "--from":
            lo = when(val, start)
        elif opt == "--to":
            hi = when(val, start)
        elif opt == "--pid":
            pids = {int(v, 0) for v in val.split(",")}
        elif opt == "--tid":
            tids = {int(v, 0) for v in val.split(",")}
        elif opt == "--event":
            ids = {int(v, 0) for v in val.split(",")}
        elif opt == "--level":
            level = int(val)
        elif opt == "--keywords":
            mask = int(val, 0)
        elif opt == "--provider":
            providers.append(val.lower())
        else:
            sys.exit("unknown option " + opt)
    for line in sys.stdin:
        e = json.loads(line)
        t = ticks(e["time"])
        if lo is not None and t < lo:
            continue
        if hi is not None and t > hi:
            continue
        if pids is not None and e["pid"] not in pids:
            continue
        if tids is not None and e["tid"] not in tids:
            continue
        if ids is not None and e["id"] not in ids:
            continue
        if level is not None and e["level"] > level and e["level"] != 0:
            continue
        if mask and not int(e["keywords"]) & mask:
            continue
        if providers and e["provider"].lower() not in providers:
            continue
        sys.stdout.write(line)


if __name__ == "__main__":
    main()
