#!/usr/bin/env python3
"""KernelTime/UserTime check over traces (used by tests/cli_batch.sh): for each FILE, etlconv's XML
Execution attributes and CSV Kernel(ms)/User(ms) columns, as multisets, against etl_cpu_ticks.py's
independent walk of the raw records with the TimerResolution that `etlconv --info` reports. Compressed
traces (which the walk cannot read): every value must be one the conversion can produce, and CSV = XML.
Prints one TAP-style verdict line per check: "ok|not ok <text>" (the caller numbers them)."""
import collections
import csv
import io
import os
import re
import subprocess
import sys

ETLCONV = sys.argv[1]
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
ATTR = re.compile(rb'KernelTime="(\d+)" UserTime="(\d+)"')

def run(*args):
    return subprocess.run([ETLCONV, '-q'] + list(args), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout

def info(path):
    out = subprocess.run([ETLCONV, '--info', path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
    return dict(line.split('\t', 1) for line in out.decode('utf-8', 'replace').splitlines() if '\t' in line)

def in_image(v, res):
    t = v * 10000 // res
    while t * res // 10000 < v:
        t += 1
    return t * res // 10000 == v

def verdict(good, text):
    print(('ok ' if good else 'not ok ') + text)

for path in sys.argv[2:]:
    name = os.path.basename(path)
    facts = info(path)
    if 'TimerResolution' not in facts:
        continue  # no log-file header (empty.etl)
    res = int(facts['TimerResolution'])
    xml = collections.Counter(ATTR.findall(run(path, '-of', 'xml')))
    xml = collections.Counter({(int(k), int(u)): n for (k, u), n in xml.items()})
    rows = csv.reader(io.StringIO(run(path, '-of', 'csv').decode('utf-8', 'replace')))
    next(rows)
    csvc = collections.Counter((int(r[17]), int(r[18])) for r in rows)
    nonzero = sum(n for (k, u), n in xml.items() if k or u)
    records = sum(xml.values())
    if facts.get('buffers.compressed', '0') == '0':
        walk = subprocess.run([sys.executable, os.path.join(HERE, 'etl_cpu_ticks.py'), path, str(res)],
                              stdout=subprocess.PIPE).stdout.decode().split()
        oracle = collections.Counter((int(walk[i]), int(walk[i + 1])) for i in range(0, len(walk), 2))
        verdict(xml == oracle, '%s: XML KernelTime/UserTime = ticks x %d / 10000 (%d records, %d non-zero)'
                % (name, res, records, nonzero))
        verdict(csvc == oracle, '%s: CSV Kernel(ms)/User(ms) the same' % name)
    else:
        bad = sum(1 for (k, u) in xml if not (in_image(k, res) and in_image(u, res)))
        verdict(bad == 0 and records > 0, '%s (compressed): every XML time is a converted value (%d records, %d non-zero)'
                % (name, records, nonzero))
        verdict(csvc == xml, '%s (compressed): CSV equals XML' % name)
