#!/usr/bin/python3
"""Independent count of providers, events and fields in instrumentation manifests, compared with a listing.

usage: schema_count_check.py LISTING.json MANIFEST.man...

For every <provider> of the manifests (XML read with the standard library's ElementTree, not etlconv's
reader): its events, and for each event the <data> and <struct> elements of the template it names (struct
members included). The listing (`etlconv schemas -import ... -of json`) must hold the same providers (by GUID)
with the same number of events and the same total of fields. Prints one line per provider; exit 1 on a
difference."""
import json
import sys
import xml.etree.ElementTree as ET


def local(tag):
    return tag.rsplit("}", 1)[-1]


def count_manifest(path, out):
    root = ET.parse(path).getroot()
    for prov in root.iter():
        if local(prov.tag) != "provider" or prov.get("guid") is None:
            continue
        guid = prov.get("guid").strip().lower()
        if not guid.startswith("{"):
            guid = "{" + guid + "}"
        templates = {}
        events = []
        for el in prov.iter():
            if local(el.tag) == "template":
                templates[el.get("tid")] = sum(1 for x in el.iter() if local(x.tag) in ("data", "struct"))
            elif local(el.tag) == "event":
                events.append(el.get("template"))
        fields = sum(templates.get(t, 0) for t in events if t)
        name = prov.get("name")
        e, f = out.get(guid, (name, 0, 0))[1:]
        out[guid] = (name, e + len(events), f + fields)


def count_listing(fields):
    return sum(1 + count_listing(f["fields"] or []) if f.get("fields") is not None else 1 for f in fields)


def main():
    listing = json.load(open(sys.argv[1]))
    got = {}
    for p in listing["providers"]:
        e, f = got.get(p["guid"], (0, 0))
        got[p["guid"]] = (e + len(p["events"]), f + sum(count_listing(ev["fields"]) for ev in p["events"]))
    want = {}
    for path in sys.argv[2:]:
        count_manifest(path, want)
    bad = 0
    for guid, (name, events, fields) in sorted(want.items()):
        if events == 0 and guid not in got:
            print("ok provider %s %s defines no event: not listed (a listing is of events)" % (name, guid))
            continue
        have = got.get(guid)
        ok = have == (events, fields)
        bad += not ok
        print("%s provider %s %s: manifest %d events %d fields, listing %s" %
              ("ok" if ok else "DIFF", name, guid, events, fields,
               "%d events %d fields" % have if have else "absent"))
    for guid in got.keys() - want.keys():
        bad += 1
        print("DIFF listing has provider %s the manifests do not" % guid)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
