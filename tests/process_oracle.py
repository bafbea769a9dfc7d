#!/usr/bin/python3
"""Process names an event must carry, worked out again from the process events of the same trace (the rules of
src/decode/process_table.h, restricted to the cases they settle alone). Reads a trace's JSON Lines on stdin;
prints "checked WRONG" where checked counts the events whose name it settles and WRONG those etlconv named
otherwise, followed by up to 5 examples.

Settled: events logged by a process (not the kernel logger's classic events, whose process comes from their
payload) whose PID has one image name among all process events of the trace: named so from the trace start
when the PID's events are rundowns or ends only (a process running since before the trace), from its start
event on otherwise. Names are the image name without directory and extension (PerfView's ProcessName)."""
import json
import sys

RUNDOWN, START, END = "rundown", "start", "end"


def display(image):
    base = image.replace("/", "\\").split("\\")[-1]
    dot = base.rfind(".")
    return base[:dot] if dot > 0 else base


def process_event(e):
    """(pid, image, kind) of a process start/end/rundown event, else None."""
    f, ev = e.get("fields") or {}, e["event"]
    if e["provider"] == "MSNT_SystemTrace" and ev.startswith("Process/"):
        kind = {"Process/Start": START, "Process/End": END, "Process/Defunct": END,
                "Process/DCStart": RUNDOWN, "Process/DCEnd": RUNDOWN}.get(ev)
        pid, image = f.get("ProcessId"), f.get("ImageFileName")
    elif e["provider"] == "Microsoft-Windows-Kernel-Process":
        kind = {1: START, 2: END, 15: RUNDOWN}.get(e["id"])
        pid, image = f.get("ProcessID"), f.get("ImageName")
    else:
        return None
    if not kind or pid is None or not image:
        return None
    return int(str(pid), 0), image, kind


def main():
    events = [json.loads(line) for line in sys.stdin]
    names, starts, has_start = {}, {}, set()
    for e in events:
        p = process_event(e)
        if not p:
            continue
        pid, image, kind = p
        names.setdefault(pid, set()).add(display(image))
        if kind == START:
            has_start.add(pid)
            starts.setdefault(pid, e["time"])
    checked, wrong = 0, []
    for e in events:
        pid = e["pid"]
        if e["provider"] in ("MSNT_SystemTrace", "KernelTraceControl") or len(names.get(pid, ())) != 1:
            continue
        if pid in has_start and e["time"] < starts[pid]:
            continue
        checked += 1
        want = next(iter(names[pid]))
        if e.get("process") != want:
            wrong.append("%s pid %d %s: %r, want %r" % (e["time"], pid, e["event"], e.get("process"), want))
    print(checked, len(wrong))
    for w in wrong[:5]:
        print(w)


if __name__ == "__main__":
    main()
