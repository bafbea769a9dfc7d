#!/usr/bin/python3
"""Checks an EVTX file etlconv wrote against etlconv's own XML of the same trace, with readers nobody here
wrote: libevtx's evtxexport (-f xml) and python-evtx (module Evtx), plus the CRC32s recomputed with zlib.

usage: evtx_compare.py XML EVTX [--python all|edges|every:N|none] [--libevtx yes|no] [--computer NAME]
                       [--manifest FILE]...
  XML may be '-' with --records N: structure and CRC checks only, against N records
  --python all: every record (through python-evtx's parsing API, see FastRecords; the first and last chunk
  also through its XML rendering); edges: the first and the last chunk; every:N: those and every Nth chunk
  --computer NAME: every record's System/Computer must be NAME (etlconv's XML leaves it empty, as tracerpt)

Structure checks (every chunk): "ElfFile"/"ElfChnk" signatures, file header CRC32 over bytes 0-119, chunk
header CRC32 over bytes 0-119 + 128-511, event records CRC32 over 512..free space offset, chunk record
numbers consecutive from 1, chunk count and next record id in the file header, file flagged clean.

Per record, for each reader: provider name and GUID, EventID, Version, Level, Task, Opcode, Keywords,
TimeCreated (to 100 ns), ProcessID, ThreadID, and the payload as (path, value) pairs: EventData/Data
(ComplexData names joined with '/'), the bare string-only Data, BinaryEventData, ProcessingErrorData
(ErrorCode, EventPayload), DebugData (SequenceNumber, FlagsName, LevelName, Component, FileLine, Function, Message).

UserData (events whose manifest template has a <UserData> layout, written as Windows writes them; --manifest
FILE, repeatable, names the manifests, read here with ElementTree): the record's leaf elements must be the
template's, in order, and each must hold the XML's EventData/Data of the property its "%N" names (by position
in the template, as Windows substitutes: ClrEtwAll's ModuleLoadUnload_V2 puts %4, the property Reserved1,
in its ModuleILPath element, and so does this file). The summary counts these records (userdata-READER=N).

Normalisation (what differs only in how a reader prints a value, never in the value):
  * an absent attribute or element equals an empty one (readers leave out null optional values);
  * GUIDs, hex numbers and booleans compare case-insensitively; numbers compare as integers (decimal or
    0x-hex, modulo 2^64: a signed 64-bit value printed unsigned is the same bits);
  * floats compare as numbers (relative difference below 1e-6: readers print fewer digits);
  * times compare as instants (--stable's "+S.fffffff" counts from 1601-01-01, where EVTX's FILETIME puts it): 100 ns where the reader prints 7+ digits (libevtx), microseconds for
    python-evtx, which prints datetime.isoformat; TimeCreated from python-evtx is also compared to 100 ns
    from the raw FILETIME of its substitution value;
  * binary values compare as bytes (etlconv XML: hex; libevtx: hex; python-evtx: base64);
  * line ends compare as LF (libevtx writes a value's CR raw, and XML parsers turn CR LF into LF);
  * characters XML 1.0 forbids (C0 controls) and U+FFFD are dropped from both sides (etlconv's XML writes
    U+FFFD for them, python-evtx drops them).
Known reader bugs accounted for (checked against the other reader and etlconv's XML, which agree):
  * libevtx 20181227 prints negative Int8/16/32 values as minus the value with the sign bit cleared
    (-51 as Int16 prints "-32717"): "-m" is accepted for v when v == -(2^k - m), k in 7/15/31;
  * python-evtx prints a SYSTEMTIME's milliseconds as microseconds (".799" as ".000799"), and converts
    FILETIMEs through a float (seconds since 1601 in a double), up to 4 us off (its raw 100 ns TimeCreated value is compared exactly).
"""
import base64
import datetime
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
import zlib

NS = '{http://schemas.microsoft.com/win/2004/08/events/event}'
BAD_CHARS = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\ufffd]')
TIME_RE = re.compile(r'^(\d{4})-(\d\d)-(\d\d)[T ](\d\d):(\d\d):(\d\d)(?:\.(\d+))?Z?$')
EPOCH = datetime.datetime(1601, 1, 1)


def local(tag):
    return tag.rsplit('}', 1)[-1]


def child(elem, name):
    for c in elem:
        if local(c.tag) == name:
            return c
    return None


def text_of(elem):
    return '' if elem is None or elem.text is None else elem.text


# ---- structure ----------------------------------------------------------------------------------------

def check_structure(path, expected_records, errors):
    data = open(path, 'rb').read()
    if len(data) < 4096 or data[:8] != b'ElfFile\x00':
        errors.append('file header signature')
        return 0
    first, last, next_id, hsize, minor, major, block, count = struct.unpack_from('<QQQIHHHH', data, 8)
    flags, crc = struct.unpack_from('<II', data, 120)
    if crc != zlib.crc32(data[:120]):
        errors.append('file header CRC32')
    if (hsize, major, minor, block) != (128, 3, 1, 4096):
        errors.append('file header size/version/block %r' % ((hsize, major, minor, block),))
    if flags != 0:
        errors.append('file flags 0x%x (not clean)' % flags)
    chunks = (len(data) - 4096) // 65536
    if (len(data) - 4096) % 65536:
        errors.append('file size is not header + whole chunks')
    if count != min(chunks, 0xFFFF) or (chunks and (first, last) != (0, chunks - 1)):
        errors.append('chunk count %d/%d..%d, file has %d' % (count, first, last, chunks))
    record = 1
    for i in range(chunks):
        c = data[4096 + 65536 * i: 4096 + 65536 * (i + 1)]
        if c[:8] != b'ElfChnk\x00':
            errors.append('chunk %d signature' % i)
            continue
        fnum, lnum, fid, lid, csize, last_off, free_off, rec_crc = struct.unpack_from('<QQQQIIII', c, 8)
        hcrc = struct.unpack_from('<I', c, 124)[0]
        if hcrc != zlib.crc32(c[:120] + c[128:512]):
            errors.append('chunk %d header CRC32' % i)
        if not 512 < free_off <= 65536 or rec_crc != zlib.crc32(c[512:free_off]):
            errors.append('chunk %d event records CRC32' % i)
            continue
        if (fnum, fid) != (record, record) or lnum != lid or csize != 128:
            errors.append('chunk %d record numbers %d..%d, expected first %d' % (i, fnum, lnum, record))
        off, n = 512, 0
        while off < free_off:
            magic, size, rid = struct.unpack_from('<IIQ', c, off)
            if magic != 0x2a2a or size < 28 or off + size > free_off or \
               struct.unpack_from('<I', c, off + size - 4)[0] != size or rid != record + n:
                errors.append('chunk %d record at 0x%x' % (i, off))
                break
            last_seen = off
            off += size
            n += 1
        if n and last_seen != last_off:
            errors.append('chunk %d last record offset' % i)
        if n != lnum - fnum + 1:
            errors.append('chunk %d holds %d records, header says %d' % (i, n, lnum - fnum + 1))
        record += n
    if next_id != record:
        errors.append('next record id %d, expected %d' % (next_id, record))
    if record - 1 != expected_records:
        errors.append('%d records, etlconv XML has %d' % (record - 1, expected_records))
    return chunks


# ---- canonical events -------------------------------------------------------------------------------

def payload(event):
    out = []

    def walk(elem, prefix):
        for c in elem:
            name = local(c.tag)
            if name == 'Data':
                out.append((prefix + c.get('Name', ''), text_of(c)))
            elif name == 'ComplexData':
                walk(c, prefix + c.get('Name', '') + '/')
    def walk_user(elem):
        kids = list(elem)
        if not kids:
            out.append(('UserData:' + local(elem.tag), text_of(elem)))
        for c in kids:
            walk_user(c)
    for part in event:
        name = local(part.tag)
        if name == 'EventData':
            walk(part, '')
        elif name == 'UserData':  # the manifest template's layout: leaf elements, named as its properties
            for c in part:
                for leaf in c:
                    walk_user(leaf)
        elif name == 'Data':  # etlconv's XML: tracerpt's bare string-only Data
            out.append(('', text_of(part)))
        elif name == 'BinaryEventData':
            out.append(('BinaryEventData', text_of(part)))
        elif name == 'ProcessingErrorData':
            out.append(('ErrorCode', text_of(child(part, 'ErrorCode'))))
            out.append(('EventPayload', text_of(child(part, 'EventPayload'))))
        elif name == 'DebugData':
            for name in ('SequenceNumber', 'FlagsName', 'LevelName', 'Component', 'FileLine', 'Function',
                         'Message'):
                out.append((name, text_of(child(part, name))))
    return out


def canon(event):
    system = child(event, 'System')
    g = lambda name: child(system, name)
    prov = g('Provider')
    execution = g('Execution')
    return {
        'provider': prov.get('Name', '') if prov is not None else '',
        'guid': prov.get('Guid', '') if prov is not None else '',
        'id': text_of(g('EventID')), 'version': text_of(g('Version')), 'level': text_of(g('Level')),
        'task': text_of(g('Task')), 'opcode': text_of(g('Opcode')), 'keywords': text_of(g('Keywords')),
        'time': g('TimeCreated').get('SystemTime', '') if g('TimeCreated') is not None else '',
        'pid': execution.get('ProcessID', '') if execution is not None else '',
        'tid': execution.get('ThreadID', '') if execution is not None else '',
        'payload': payload(event),
        'computer': text_of(g('Computer')),
        'payload_kind': next((local(p.tag) for p in event if local(p.tag) != 'System'), ''),
    }


# ---- value comparison ------------------------------------------------------------------------------

def as_int(s):
    try:
        return int(s, 0) if re.match(r'^-?(0[xX][0-9a-fA-F]+|\d+)$', s) else None
    except ValueError:
        return int(s, 10) if re.match(r'^-?\d+$', s) else None


def as_ns(s):
    m = re.match(r'^\+(\d+)\.(\d{1,9})$', s)  # --stable: seconds from the first event
    if m:
        return int(m.group(1)) * 10**9 + int((m.group(2) + '000000000')[:9]), len(m.group(2))
    m = TIME_RE.match(s)
    if not m:
        return None, 0
    y, mo, d, h, mi, se, frac = m.groups()
    try:
        t = datetime.datetime(int(y), int(mo), int(d), int(h), int(mi), int(se))
    except ValueError:
        return None, 0
    frac = frac or ''
    ns = int((frac + '000000000')[:9])
    return (t - EPOCH) // datetime.timedelta(seconds=1) * 10**9 + ns, len(frac)


def as_bytes(s, b64):
    t = s[2:] if s[:2] in ('0x', '0X') else s
    if re.match(r'^([0-9a-fA-F]{2})*$', t):
        hexval = bytes.fromhex(t)
    else:
        hexval = None
    if b64:
        try:
            return base64.b64decode(s, validate=True), hexval
        except Exception:
            pass
    return hexval, None


def line_ends(s):
    return s.replace('\r\n', '\n').replace('\r', '\n')


def same(ref, got, reader):
    ref, got = line_ends(BAD_CHARS.sub('', ref)), line_ends(BAD_CHARS.sub('', got))
    if ref == got or ref.lower() == got.lower():
        return True
    a, b = as_int(ref), as_int(got)
    if a is not None and b is not None:
        if a % 2**64 == b % 2**64:
            return True
        if reader == 'libevtx' and b < 0 and any(a == -(2**k + b) for k in (7, 15, 31)):
            return True
    ta, _ = as_ns(ref)
    tb, digits = as_ns(got)
    if ta is not None and tb is not None:
        if ta == tb or (digits <= 6 and abs(ta // 1000 - tb // 1000) <= (4 if reader == 'python-evtx' else 0)):
            return True
        # python-evtx: SYSTEMTIME milliseconds printed as microseconds
        if reader == 'python-evtx' and ta % 10**6 == 0 and tb // 1000 % 10**6 == (ta // 10**6) % 1000 \
                and ta // 10**9 == tb // 10**9:
            return True
    try:
        fa, fb = float(ref), float(got)
        if fa == fb or (fa != 0 and abs(fa - fb) / abs(fa) < 1e-6) or (fa != fa and fb != fb):
            return True
    except ValueError:
        pass
    ba, _ = as_bytes(ref, False)
    bb, bb_hex = as_bytes(got, reader == 'python-evtx')
    if ba is not None and (ba == bb or ba == bb_hex):
        return True
    return False


MANIFESTS = []  # --manifest FILE: where the UserData layouts come from (read with ElementTree on first use)
LAYOUTS = {}


TRACE_GUIDS = set()  # providers of the XML's events: manifests naming none of them are not parsed


def user_data_layout(got):
    """The template's UserData leaves for the record's (provider GUID, event id, version): a list of
    (element local name, name of the property its "%N" stands for, or None for literal text)."""
    if not LAYOUTS and MANIFESTS:
        ns = '{http://schemas.microsoft.com/win/2004/08/events}'
        LAYOUTS[None] = None
        for man in MANIFESTS:
            text = open(man, 'rb').read().decode('utf-8', 'replace').lower()
            if not any(g in text for g in TRACE_GUIDS):
                continue
            for prov in ET.parse(man).getroot().iter(ns + 'provider'):
                guid = prov.get('guid', '').lower().strip('{}')
                templates = {t.get('tid'): t for t in prov.iter(ns + 'template')}
                for ev in prov.iter(ns + 'event'):
                    t = templates.get(ev.get('template'))
                    ud = t.find(ns + 'UserData') if t is not None else None
                    if ud is None:
                        continue
                    fields = [c for c in t if local(c.tag) in ('data', 'struct')]
                    props = [c.get('name') for c in fields]
                    leaves = []
                    plain = True  # every "%N" a single value (not a struct, not an array): else EventData
                    for top in ud:
                        for el in top.iter():
                            if el is top or len(el):
                                continue
                            m = re.match(r'^\s*%(\d+)\s*$', el.text or '')
                            k = int(m.group(1)) if m else 0
                            if 0 < k <= len(fields) and (local(fields[k - 1].tag) == 'struct' or fields[k - 1].get('count')):
                                plain = False
                            leaves.append((local(el.tag), props[k - 1] if 0 < k <= len(props) else None))
                    key = (guid, int(ev.get('value'), 0), int(ev.get('version') or '0', 0))
                    LAYOUTS.setdefault(key, leaves if plain else False)
    try:
        key = (got['guid'].lower().strip('{}'), int(got['id']), int(got['version']))
    except ValueError:
        return None
    return LAYOUTS.get(key) or None


def expected_user_data(refs):
    """Records of the XML whose event has a UserData template of plain values and decoded cleanly."""
    if not MANIFESTS:
        return None
    user_data_layout({'guid': '', 'id': '0', 'version': '0'})  # load
    return sum(1 for r in refs if r is not None and r['payload_kind'] == 'EventData' and
               user_data_layout(r) is not None)


USER_DATA = {}  # per reader: records whose payload came as UserData
SHORTENED = {}  # per reader: records written as BinaryEventData because they do not fit a 64 KiB chunk
COMPUTER = []  # --computer NAME: what every record's System/Computer must say


def compare(ref, got, reader, index, errors):
    if COMPUTER and got['computer'] != COMPUTER[0]:
        errors.append('%s record %d: Computer %r != %r' % (reader, index + 1, got['computer'], COMPUTER[0]))
    for key in ('provider', 'guid', 'id', 'version', 'level', 'task', 'opcode', 'keywords', 'pid', 'tid'):
        if not same(ref[key], got[key], reader):
            errors.append('%s record %d: %s %r != %r' % (reader, index + 1, key, ref[key], got[key]))
    if not same(ref['time'], got['time'], reader):
        errors.append('%s record %d: time %r != %r' % (reader, index + 1, ref['time'], got['time']))
    rp, gp = ref['payload'], got['payload']
    if gp and gp[0][0].startswith('UserData:'):  # etlconv's XML has EventData: map through the manifest
        USER_DATA[reader] = USER_DATA.get(reader, 0) + 1
        layout = user_data_layout(got)
        if layout is None:
            errors.append('%s record %d: UserData, but no manifest template with UserData for the event' % (reader, index + 1))
            return
        by_name = {}
        for n, v in rp:
            by_name.setdefault(n, v)
        if [n[len('UserData:'):] for n, _ in gp] != [n for n, _ in layout]:
            errors.append('%s record %d: UserData elements %r != the template\'s %r' % (reader, index + 1, gp[:4], layout[:4]))
            return
        for (n, gv), (_, prop) in zip(gp, layout):
            want = by_name.get(prop, '') if prop else ''
            if not same(want, gv, reader):
                errors.append('%s record %d: UserData %s (%s) %r != %r' % (reader, index + 1, n, prop, want[:80], gv[:80]))
        return
    if len(gp) == 1 and gp[0][0] == 'BinaryEventData' and rp and rp[0][0] != 'BinaryEventData':
        # etlconv's last resort for an event whose EVTX record cannot fit one chunk (it says how many on
        # stderr); main() checks the count against --shortened
        SHORTENED[reader] = SHORTENED.get(reader, 0) + 1
        return
    if [n for n, _ in rp] != [n for n, _ in gp]:
        errors.append('%s record %d: payload names %r != %r' % (reader, index + 1, rp[:8], gp[:8]))
        return
    for (name, rv), (_, gv) in zip(rp, gp):
        if not same(rv, gv, reader):
            errors.append('%s record %d: %s %r != %r' % (reader, index + 1, name, rv[:80], gv[:80]))


# ---- readers ---------------------------------------------------------------------------------------

def start_libevtx(path):
    """evtxexport runs beside python-evtx (another core), into a temporary file read afterwards."""
    import tempfile
    out, err = tempfile.TemporaryFile(), tempfile.TemporaryFile()
    return subprocess.Popen(['evtxexport', '-f', 'xml', path], stdout=out, stderr=err), out, err


def libevtx_events(started):
    proc, out, err = started
    rc = proc.wait()
    out.seek(0)
    lines = []
    for line in out:  # one record: '<Event xmlns=...' up to '</Event>'
        if lines or line.startswith(b'<Event xmlns'):
            lines.append(line)
            if line.rstrip().endswith(b'</Event>'):
                yield ET.fromstring(b''.join(lines).decode('utf-8', 'replace'))
                lines = []
    if rc != 0:
        err.seek(0)
        raise RuntimeError('evtxexport failed: ' + err.read().decode('utf-8', 'replace')[-400:])


class _Marker(object):
    """A stand-in substitution value: python-evtx's renderer writes its string() where the value goes."""
    def __init__(self, index):
        self.index = index

    def string(self):
        return '\ue000%d\ue001' % self.index


class _TemplateRoot(object):
    """What Views.render_root_node_with_subs needs of a root node: the template."""
    def __init__(self, template):
        self._template = template

    def template(self):
        return self._template


MARKER_RE = re.compile('&#57344;([0-9]+)&#57345;')


def template_names(node, lo, hi, out):
    """Element and attribute names a parsed template takes from outside its own bytes [lo, hi)."""
    import Evtx.Nodes as nodes
    for c in node.children():
        if isinstance(c, (nodes.OpenStartElementNode, nodes.AttributeNode)):
            off = c.string_offset()
            if not lo <= off < hi:
                out.append((off, c._chunk.strings()[off].string()))
        template_names(c, lo, hi, out)
    return out


class FastRecords(object):
    """Records read with python-evtx's parsing API instead of its XML rendering (~10x faster): for each
    record, python-evtx's Record -> RootNode -> TemplateInstanceNode, and each substitution value decoded by
    python-evtx (Nodes.get_variant_value, .string()); the template rendered by python-evtx's own renderer
    (Views.render_root_node_with_subs) once with placeholder values, kept and reused while the template's
    bytes, its place in the chunk and the names it takes from elsewhere in the chunk (checked through
    python-evtx's string table) are the same. The text is then what Record.xml() gives, piece for piece:
    render_root_node_with_subs writes template text and escape_value(value.string()) for each
    substitution. --python all checks that claim on the first and last chunk against Record.xml()."""

    def __init__(self):
        self.skeletons = {}
        self.rendered = 0

    def skeleton(self, chunk, ti):
        import Evtx.Nodes as nodes
        import Evtx.Views as views
        off = ti.template_offset()
        base = chunk.offset() + off
        size = struct.unpack_from('<I', chunk._buf, base + 0x14)[0]
        key = (off, bytes(chunk._buf[base:base + 0x18 + size]))
        hit = self.skeletons.get(key)
        if hit is not None and all(o in chunk.strings() and chunk.strings()[o].string() == name
                                   for o, name in hit[1]):
            return hit[0]
        template = nodes.TemplateNode(chunk._buf, base, chunk, ti)
        count = 1 + max([c.index() for c in walk_nodes(template)
                         if isinstance(c, (nodes.NormalSubstitutionNode, nodes.ConditionalSubstitutionNode))] or [0])
        text = views.render_root_node_with_subs(_TemplateRoot(template), [_Marker(i) for i in range(count)])
        parts = MARKER_RE.split(text)
        names = template_names(template, off, off + 0x18 + size, [])
        self.skeletons[key] = (parts, names)
        self.rendered += 1
        return parts

    def xml(self, chunk, record):
        import Evtx.Nodes as nodes
        import Evtx.Views as views
        root = record.root()
        ti = root.template_instance()
        parts = self.skeleton(chunk, ti)
        # the substitution array follows the template instance (and the template, when it is defined
        # there), as RootNode.substitutions() finds it; each value decoded by python-evtx
        ofs = ti.offset() - root.offset() + ti.length()
        count = root.unpack_dword(ofs)
        ofs += 4
        decl = [(root.unpack_word(ofs + 4 * i), root.unpack_byte(ofs + 4 * i + 2)) for i in range(count)]
        ofs += 4 * count
        subs = []
        for size, type_ in decl:
            val = nodes.get_variant_value(root._buf, root.offset() + ofs, chunk, root, type_, length=size)
            if abs(size - val.length()) > 4:
                raise nodes.ParseException('Invalid substitution value size')
            subs.append(val)
            ofs += size
        out = []
        for i, p in enumerate(parts):
            if i % 2 == 0:
                out.append(p)
                continue
            sub = subs[int(p)]
            if isinstance(sub, nodes.BXmlTypeNode):
                out.append(views.render_root_node(sub.root()))
            else:
                out.append(views.escape_value(sub.string()))
        return ''.join(out), subs


def walk_nodes(node):
    for c in node.children():
        yield c
        for d in walk_nodes(c):
            yield d


def python_events(path, mode, errors):
    """mode: all (every record; the first and last chunk also through Record.xml(), which must give the
    same text), edges (first and last chunk), every:N (those and every Nth chunk)."""
    import Evtx.Evtx as evtx
    fast = FastRecords()
    with evtx.Evtx(path) as log:
        chunks = list(log.chunks())
        last = len(chunks) - 1
        step = int(mode.split(':')[1]) if mode.startswith('every:') else 1 if mode == 'all' else 0
        for ci, chunk in enumerate(chunks):
            edge = ci in (0, last)
            if not edge and not (step and ci % step == 0):
                continue
            for r in chunk.records():
                text, subs = fast.xml(chunk, r)
                if edge and text != r.xml():
                    errors.append('python-evtx record %d: parsed text differs from Record.xml()' % r.record_num())
                e = ET.fromstring(text)
                ticks = subs[8].unpack_qword(0)  # TimeCreated (formats/evtx.c substitution order)
                yield r.record_num() - 1, e, ticks


def read_refs(xml_path, wanted):
    """etlconv's XML, one canonical event per record; only the records in wanted (a set; None: all) are kept."""
    refs = []
    for _, e in ET.iterparse(xml_path):
        if e.tag == NS + 'Event':
            refs.append(canon(e) if wanted is None or len(refs) in wanted else None)
            e.clear()
    return refs


def compare_python(refs, got, mode, errors):
    n = 0
    for index, e, ticks in got:
        n += 1
        if index >= len(refs):
            errors.append('python-evtx record %d beyond the XML' % (index + 1))
            continue
        compare(refs[index], e, 'python-evtx', index, errors)
        want, _ = as_ns(refs[index]['time'])
        if want is not None and want // 100 != ticks:  # raw FILETIME: 100 ns units since 1601
            errors.append('python-evtx record %d: raw TimeCreated %d != %d' % (index + 1, ticks, want // 100))
    if mode == 'all' and n != len(refs):
        errors.append('python-evtx read %d records, expected %d' % (n, len(refs)))
    return n


def main():
    args = sys.argv[1:]
    opts = {'--python': 'all', '--libevtx': 'yes', '--records': None, '--computer': None, '--shortened': '0'}
    files = []
    while args:
        a = args.pop(0)
        if a == '--manifest':
            MANIFESTS.append(args.pop(0))
        elif a in opts:
            opts[a] = args.pop(0)
        else:
            files.append(a)
    xml_path, evtx_path = files
    if opts['--computer'] is not None:
        COMPUTER.append(opts['--computer'])
    errors = []
    counts = {}
    if opts['--records'] is not None:  # structure only, against a known count
        refs = [None] * int(opts['--records'])
        opts['--libevtx'], opts['--python'] = 'no', 'none'
    libevtx = start_libevtx(evtx_path) if opts['--libevtx'] == 'yes' else None
    sampled = opts['--python'] not in ('all', 'none') and not libevtx
    got = []
    if sampled:  # python-evtx first: only its records' XML is kept
        got = [(i, canon(e), t) for i, e, t in python_events(evtx_path, opts['--python'], errors)]
    if opts['--records'] is None:
        refs = read_refs(xml_path, {i for i, _, _ in got} if sampled else None)
    TRACE_GUIDS.update(r['guid'].lower().strip('{}') for r in refs if r is not None and r['guid'])
    if opts['--python'] != 'none' and not sampled:  # streamed: memory for one record at a time
        got = ((i, canon(e), t) for i, e, t in python_events(evtx_path, opts['--python'], errors))
    chunks = check_structure(evtx_path, len(refs), errors)
    if opts['--python'] != 'none':
        counts['python-evtx'] = compare_python(refs, got, opts['--python'], errors)
    if libevtx:
        n = 0
        for n, e in enumerate(libevtx_events(libevtx), 1):
            if n <= len(refs):
                compare(refs[n - 1], canon(e), 'libevtx', n - 1, errors)
        counts['libevtx'] = n
        if n != len(refs):
            errors.append('libevtx read %d records, expected %d' % (n, len(refs)))
    counts.update(('userdata-' + k, v) for k, v in USER_DATA.items())
    counts.update(('shortened-' + k, v) for k, v in SHORTENED.items())
    for reader, n in SHORTENED.items():  # never more than etlconv reported as too large for a chunk
        if n > int(opts['--shortened']):
            errors.append('%s: %d records carry only BinaryEventData, etlconv reported %s too large' % (reader, n, opts['--shortened']))
    want = expected_user_data(refs) if opts['--records'] is None else None
    if want is not None:
        counts['userdata-manifests'] = want
    # An upper bound: events decoded from a trace's embedded metadata (PerfView's, net.4.5.2.x86: 39,854 of
    # them) have no UserData layout, so etlconv writes them as EventData although a bundled manifest has one;
    # the XML does not say which schema source decoded an event, so only an excess is an error here.
    for reader in ('libevtx', 'python-evtx'):
        if want is not None and reader in counts and (reader == 'libevtx' or opts['--python'] == 'all') and \
                USER_DATA.get(reader, 0) > want:
            errors.append('%s: %d records with UserData, more than the manifests give (%d)' % (reader, USER_DATA.get(reader, 0), want))
    print('records=%d chunks=%d %s errors=%d' % (len(refs), chunks,
          ' '.join('%s=%d' % kv for kv in sorted(counts.items())), len(errors)))
    for e in errors[:20]:
        print('  ' + e, file=sys.stderr)
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main())
