#!/usr/bin/python3
"""Independent check of typed JSON Lines (issue 15) for one trace.

usage: typed_json_check.py SCHEMAS.json EVENTS.jsonl EVENTS.csv

SCHEMAS.json is `etlconv schemas TRACE -of json` (the descriptions the events were decoded with: names and the
numeric TDH in/out type codes); EVENTS.jsonl and EVENTS.csv are `etlconv -of json` and `-of csv` of the same
trace. The JSON type every field must have is derived here from the in/out type codes with the rule written
in etlconv(1), TYPED OUTPUT (not from the listing's own "json" member), and every value of every decoded event
is checked against it; integers and booleans must spell exactly what the CSV cell of the same event says.
Prints one summary line; exit status 1 on the first mismatches (up to 10 shown)."""
import csv
import json
import sys

HEX_OUT = {16, 17, 18, 19, 29, 30, 31, 32}            # HexInt8..64, ErrorCode, Win32Error, NTSTATUS, HRESULT
TEXT_OUT = {1, 23, 27, 2, 38, 33, 37} | HEX_OUT         # char, IPv4, ETW/date times, code pointer, hex
DECIMAL_OUT = {3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 22}   # (Unsigned)Byte..Long, PID, TID, Port
INTEGER_IN = {3, 4, 5, 6, 7, 8, 9, 10, 20, 21, 308}    # Int8..UInt64, HexInt32/64, SizeT
HEX_IN = {20, 21, 308}


def expected(field):
    """'object', 'string', 'integer', 'number', 'boolean' or 'mapped' for one scalar/struct property."""
    if field.get("fields") is not None or field["in_type"] is None:
        return "object"
    t_in, t_out = field["in_type_code"], field["out_type_code"]
    if t_in in (11, 12):
        return "number"
    if t_in == 13:
        return "mapped" if field["map"] else "boolean"
    if t_in not in INTEGER_IN:
        return "string"
    if field["map"]:
        return "mapped"
    if t_out in TEXT_OUT:
        return "string"
    if t_out == 13:
        return "boolean"
    if t_out in DECIMAL_OUT:
        return "integer"
    return "string" if t_in in HEX_IN else "integer"


def is_char_array(field):
    return field.get("fields") is None and field["out_type_code"] == 1 and field["in_type_code"] in (3, 4, 6)


def is_array(field):
    count = field["count"]
    return count is not None and count != "1" and count != "0" and not is_char_array(field)


class Checker:
    def __init__(self):
        self.errors = []
        self.values = 0
        self.events = 0
        self.cells = []   # CSV cells of the current event's payload, in order
        self.where = ""

    def fail(self, what):
        if len(self.errors) < 10:
            self.errors.append(self.where + ": " + what)
        else:
            self.errors.append(None)

    def next_cell(self):
        return self.cells.pop(0) if self.cells else None

    def scalar(self, field, value, name):
        kind = expected(field)
        self.values += 1
        cell = self.next_cell()
        ok = {
            "string": lambda v: isinstance(v, str),
            "mapped": lambda v: isinstance(v, str),
            "integer": lambda v: v is None or (isinstance(v, int) and not isinstance(v, bool)),
            "number": lambda v: v is None or (isinstance(v, (int, float)) and not isinstance(v, bool)),
            "boolean": lambda v: v is None or isinstance(v, bool),
        }[kind](value)
        if not ok:
            self.fail("%s: %r is not %s (in %s out %s)" % (name, value, kind, field["in_type"], field["out_type"]))
            return
        if kind == "integer" and value is not None and str(value) != cell:
            self.fail("%s: integer %r but CSV says %r" % (name, value, cell))
        if kind == "boolean" and value is not None and ("true" if value else "false") != cell:
            self.fail("%s: boolean %r but CSV says %r" % (name, value, cell))
        if kind in ("string", "mapped") and value != cell:
            self.fail("%s: string %r but CSV says %r" % (name, value, cell))

    def element(self, field, value, name):
        if expected(field) == "object":
            if not isinstance(value, dict):
                self.fail("%s: %r is not an object" % (name, value))
                return
            self.members(field["fields"], value, name + ".")
        else:
            self.scalar(field, value, name)

    def members(self, fields, obj, prefix):
        """Checks obj against the property list; returns False when the shape does not fit at all."""
        seen = set()
        for field in fields:
            name = field["name"]
            if name not in obj:
                continue  # absent: an optional tail or a value after a decode stop
            seen.add(name)
            value = obj[name]
            if is_array(field):
                if not isinstance(value, list):
                    self.fail("%s%s: %r is not an array" % (prefix, name, value))
                    continue
                for i, v in enumerate(value):
                    self.element(field, v, "%s%s[%d]" % (prefix, name, i))
                numbers = obj.get(name + ".value")
                if expected(field) == "mapped":
                    seen.add(name + ".value")
                    if not isinstance(numbers, list) or len(numbers) != len(value) or \
                            any(n is not None and (not isinstance(n, int) or isinstance(n, bool)) for n in numbers):
                        self.fail("%s%s.value: %r is not %d integers" % (prefix, name, numbers, len(value)))
            else:
                self.element(field, value, prefix + name)
                if expected(field) == "mapped":
                    seen.add(name + ".value")
                    n = obj.get(name + ".value", "missing")
                    if n is not None and (not isinstance(n, int) or isinstance(n, bool)):
                        self.fail("%s%s.value: %r is not an integer" % (prefix, name, n))
        for key in obj:
            if key not in seen:
                self.fail("%s%s: member not in the schema" % (prefix, key))


def main():
    listing = json.load(open(sys.argv[1]))
    by_key = {}
    for provider in listing["providers"]:
        for ev in provider["events"]:
            by_key.setdefault((provider["guid"], "id", ev["id"], ev["version"]), []).append(ev)
            if ev["class_guid"]:  # classic layouts: records carry the event-class GUID and the opcode
                by_key.setdefault((ev["class_guid"], "op", ev["opcode"], ev["version"]), []).append(ev)
    rows = csv.reader(open(sys.argv[3], newline="", encoding="utf-8"))
    next(rows)  # header
    c = Checker()
    unmatched = 0
    for lineno, (line, row) in enumerate(zip(open(sys.argv[2], encoding="utf-8"), rows), 1):
        obj = json.loads(line)
        c.where = "%s line %d (%s)" % (sys.argv[2], lineno, obj["event"])
        if obj.get("schema") != 1 or not isinstance(obj["keywords"], int) or not isinstance(obj["keyword_names"], list):
            c.fail("schema/keywords members")
        if int(row[8], 16) != obj["keywords"]:
            c.fail("keywords %r but CSV says %r" % (obj["keywords"], row[8]))
        if obj["status"] != "ok" or not obj["fields"]:
            continue
        version = obj.get("schema_version", obj["version"])
        guid = obj["provider_guid"]
        candidates = by_key.get((guid, "op", obj["opcode"], version)) or by_key.get((guid, "id", obj["id"], version)) or []
        names = [k for k in obj["fields"] if not k.endswith(".value")]
        fit = [e for e in candidates if [f["name"] for f in e["fields"]][:len(names)] == names]
        if not fit:
            fit = [e for e in candidates if set(names) <= {f["name"] for f in e["fields"]}]
        if not fit:
            if obj["fields"].keys() == {""}:
                continue  # a string-only event: one unnamed string, no schema
            unmatched += 1
            c.fail("no schema in the listing for %s" % (names,))
            continue
        c.events += 1
        c.cells = row[19:]
        c.members(fit[0]["fields"], obj["fields"], "")
    shown = [e for e in c.errors if e]
    print("%d events, %d values checked against their in/out types, %d without a listed schema, %d mismatches"
          % (c.events, c.values, unmatched, len(c.errors)))
    for e in shown:
        print("  " + e)
    sys.exit(1 if c.errors else 0)


if __name__ == "__main__":
    main()
