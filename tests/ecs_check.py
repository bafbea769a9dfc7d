#!/usr/bin/python3
"""Validates `etlconv -of json --style ecs` lines against a JSON schema written here from the published field
lists: ECS (elastic.co/guide/en/ecs: @timestamp date; event.code/kind/provider keyword, event.severity long;
log.level keyword; message text; process.pid long, process.thread.id long) and Filebeat's ETW input
(x-pack/filebeat/input/etw/_meta/fields.yml and its buildEvent: winlog.activity_id, channel, event_data
object, event_id, flags, keywords, level, opcode, process_id, provider_guid, provider_name, task, thread_id,
version, plus the *_raw and provider_message members buildEvent adds). python3-jsonschema is not installed
on Debian here, so a small validator for the keywords used (type, properties, required,
additionalProperties, items, pattern, enum, minimum) follows. usage: ecs_check.py FILE.json"""
import json
import re
import sys

KEYWORD = {"type": "string"}
GUID = {"type": "string", "pattern": r"^\{[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}\}$"}
HEX = {"type": "string", "pattern": r"^0x[0-9A-F]+$"}
UINT = {"type": "integer", "minimum": 0}
DIGITS = {"type": "string", "pattern": r"^[0-9]+$"}  # Filebeat writes these integer fields as strings
STRINGS = {"type": "array", "items": KEYWORD}

SCHEMA = {
    "type": "object",
    "required": ["@timestamp", "event", "process", "winlog"],
    "additionalProperties": False,
    "properties": {
        "@timestamp": {"type": "string", "pattern": r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$"},
        "event": {"type": "object", "required": ["code", "kind", "severity"], "additionalProperties": False,
                  "properties": {"code": DIGITS, "kind": {"enum": ["event"]}, "severity": UINT,
                                 "provider": KEYWORD}},
        "log": {"type": "object", "additionalProperties": False, "properties": {
            "level": {"enum": ["information", "critical", "error", "warning", "verbose"]}}},
        "message": {"type": "string"},
        "process": {"type": "object", "required": ["pid", "thread"], "additionalProperties": False,
                    "properties": {"pid": UINT, "thread": {"type": "object", "required": ["id"],
                                                           "additionalProperties": False,
                                                           "properties": {"id": UINT}}}},
        "winlog": {"type": "object", "additionalProperties": False,
                   "required": ["event_id", "flags_raw", "keywords_raw", "level_raw", "opcode_raw", "task_raw",
                                "process_id", "thread_id", "version"],
                   "properties": {
                       "activity_id": GUID, "channel": KEYWORD, "event_data": {"type": "object"},
                       "event_id": UINT, "flags": STRINGS, "flags_raw": HEX, "keywords": STRINGS,
                       "keywords_raw": HEX, "level": KEYWORD, "level_raw": UINT, "opcode": KEYWORD,
                       "opcode_raw": UINT, "process_id": DIGITS, "provider_guid": GUID, "provider_message": KEYWORD,
                       "provider_name": KEYWORD, "task": KEYWORD, "task_raw": UINT, "thread_id": DIGITS,
                       "version": UINT}},
        "etlconv": {"type": "object", "required": ["status", "payload"], "additionalProperties": False,
                    "properties": {"status": {"enum": ["no_schema", "error"]},
                                   "payload": {"type": "string", "pattern": "^[0-9A-F]*$"},
                                   "error": {"type": "string"}}},
    },
}

TYPES = {"object": dict, "array": list, "string": str}


def validate(value, schema, path, errors):
    t = schema.get("type")
    if t == "integer":
        if not isinstance(value, int) or isinstance(value, bool):
            errors.append("%s: %r is not an integer" % (path, value))
            return
    elif t and not isinstance(value, TYPES[t]):
        errors.append("%s: %r is not %s" % (path, value, t))
        return
    if "enum" in schema and value not in schema["enum"]:
        errors.append("%s: %r not one of %s" % (path, value, schema["enum"]))
    if "pattern" in schema and not re.search(schema["pattern"], value):
        errors.append("%s: %r does not match %s" % (path, value, schema["pattern"]))
    if "minimum" in schema and value < schema["minimum"]:
        errors.append("%s: %r below %s" % (path, value, schema["minimum"]))
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                errors.append("%s: %s missing" % (path, key))
        props = schema.get("properties", {})
        for key, v in value.items():
            if key in props:
                validate(v, props[key], path + "." + key, errors)
            elif schema.get("additionalProperties") is False:
                errors.append("%s: %s is not an ECS/winlog field" % (path, key))
        if path.endswith("event_data"):
            for key in value:
                if "." in key:  # Elasticsearch would read a dot as an object path
                    errors.append("%s: key %r has a dot" % (path, key))
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            validate(v, schema["items"], "%s[%d]" % (path, i), errors)


def main():
    lines = errors_total = 0
    shown = []
    for lineno, line in enumerate(open(sys.argv[1], encoding="utf-8"), 1):
        errors = []
        validate(json.loads(line), SCHEMA, "line %d" % lineno, errors)
        lines += 1
        errors_total += len(errors)
        shown.extend(errors[: max(0, 10 - len(shown))])
    print("%d ECS lines, %d schema violations" % (lines, errors_total))
    for e in shown:
        print("  " + e)
    sys.exit(1 if errors_total or lines == 0 else 0)


if __name__ == "__main__":
    main()
