#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""tests/cli/hprofscan.py - a second, independent reading of a heap dump for
tests/cli/audit_corpus.sh (issue #50): does it hold data?

Usage: hprofscan.py FILE...
  Prints, a line a file: "clean FILE" or "data FILE: WHY" (the first data
  found). FILE may be plain, gzip or zstd. Written from
  ../shared/docs/hprof-format.md and the privacy preset's rules in
  hprof-strip(1), sharing no code with hprof-strip. Data is:
  - a STRING record nothing refers to (LOAD_CLASS, STACK_FRAME,
    START_THREAD, CLASS_DUMP statics and fields, HEAP_DUMP_INFO), or one
    over 1 MiB whose text is not all zero;
  - a record of unknown tag; bytes after the last record;
  - a non-zero primitive value: array element, instance field, static
    field, constant-pool value, CLASS_DUMP's reserved ids; except the
    documented keeps, typed: java.lang.String's byte coder (0 or 1) when one
    class of that name, of the boot loader, declares it, and the long
    statics Class$Atomic.annotationDataOffset/annotationTypeOffset and
    FutureTask.runnerOffset/waitersOffset;
  - any non-zero byte of an instance whose class (or a superclass) has no
    CLASS_DUMP, or two different ones.
The walk reads the file twice (classes first: ART writes objects before
their classes) and stops at the first data found.
"""
import gzip
import struct
import subprocess
import sys

SIZES = {2: None, 1: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
KEPT_STATICS = {
    ("java.lang.Class$Atomic", "annotationDataOffset"), ("java.lang.Class$Atomic", "annotationTypeOffset"),
    ("java.util.concurrent.FutureTask", "runnerOffset"), ("java.util.concurrent.FutureTask", "waitersOffset"),
}
# heap sub-records of fixed size: tag -> (ids, other bytes)
FIXED = {0xFF: (1, 0), 0x01: (2, 0), 0x02: (1, 8), 0x03: (1, 8), 0x04: (1, 4), 0x05: (1, 0),
         0x06: (1, 4), 0x07: (1, 0), 0x08: (1, 8), 0x89: (1, 0), 0x8A: (1, 0), 0x8B: (1, 0),
         0x8C: (1, 0), 0x8D: (1, 0), 0x8E: (1, 8), 0x90: (1, 0), 0xC3: (1, 9)}
KNOWN_TOP = {0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x1C, 0x2C}


class Data(Exception):
    """the first data found: the verdict"""


class Malformed(Exception):
    pass


def open_stream(path):
    head = open(path, "rb").read(4)
    if head[:2] == b"\x1f\x8b":
        return gzip.open(path, "rb"), None
    if head == b"\x28\xb5\x2f\xfd" or (head[1:] == b"\x2a\x4d\x18" and head[0] & 0xF0 == 0x50):
        p = subprocess.Popen(["zstd", "-dcq", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        return p.stdout, p
    return open(path, "rb", buffering=1 << 20), None


class Reader:
    def __init__(self, path):
        self.f, self.proc = open_stream(path)
        self.pos = 0

    def read(self, n):
        b = self.f.read(n)
        if len(b) != n:
            raise Malformed("ends inside a record at byte %d" % (self.pos + len(b)))
        self.pos += n
        return b

    def nonzero(self, n):
        """reads N bytes; true when one is not zero"""
        found = False
        while n:
            b = self.read(min(n, 1 << 20))
            n -= len(b)
            found = found or b.count(0) != len(b)
        return found

    def close(self):
        self.f.close()
        if self.proc:
            self.proc.wait()


def name_of(s):
    return s.replace("/", ".")


class Scan:
    def __init__(self, path):
        self.path = path
        self.strings = {}       # id -> (offset, length)
        self.used = set()
        self.class_names = {}   # class id -> name string id
        self.dumps = {}         # class id -> set of (super, loader, field layout)
        self.texts = {}         # string id -> text (names only: up to 4 KiB)
        self.long_data = []     # STRINGs over 1 MiB holding data
        self.statics = []       # (class id, (name id, type, offset)) holding data

    def ident(self, r):
        return int.from_bytes(r.read(self.idsz), "big")

    def header(self, r):
        version = b""
        while not version.endswith(b"\0"):
            version += r.read(1)
            if len(version) > 64:
                raise Malformed("no header")
        self.idsz = struct.unpack(">I", r.read(4))[0]
        r.read(8)
        if self.idsz not in (4, 8):
            raise Malformed("id size %d" % self.idsz)

    def records(self, r, heap):
        """walks every record; HEAP(r, end) reads each heap record's body"""
        while True:
            tag = r.f.read(1)
            if not tag:
                return
            r.pos += 1
            tag = tag[0]
            rest = r.f.read(8)
            if len(rest) != 8:
                raise Data("%d bytes after the last record at byte %d" % (len(rest) + 1, r.pos - 1))
            r.pos += 8
            length = struct.unpack(">I", rest[4:])[0]
            start, end = r.pos - 9, r.pos + length
            if tag in (0x0C, 0x1C):
                heap(r, end)
            elif tag in KNOWN_TOP:
                self.top(r, tag, length, start)
            else:
                raise Data("a record of unknown tag %#x at byte %d" % (tag, start))
            if r.pos != end:
                raise Malformed("record at %d: length %d, read %d" % (start, length, r.pos - start - 9))

    def top(self, r, tag, length, start):
        I = self.idsz
        if tag == 0x01:
            sid = self.ident(r)
            n = length - I
            if n <= 4096:  # a name, kept for the keeps' class and field names
                self.texts[sid] = r.read(n).decode("latin-1")
            elif r.nonzero(n) and n > 1 << 20:
                self.long_data.append(sid)
            self.strings[sid] = (start, n)
        elif tag == 0x02:
            r.read(4)
            cid = self.ident(r)
            r.read(4)
            sid = self.ident(r)
            self.used.add(sid)
            self.class_names[cid] = sid
        elif tag == 0x04:
            r.read(I)
            for _ in range(3):
                self.used.add(self.ident(r))
            r.read(8)
        elif tag == 0x0A:
            r.read(4 + I + 4)
            for _ in range(3):
                self.used.add(self.ident(r))
        else:
            r.read(length)

    # ---- pass 1: classes, strings, arrays, statics ----------------------------

    def heap1(self, r, end):
        I = self.idsz
        while r.pos < end:
            sub = r.read(1)[0]
            at = r.pos - 1
            if sub in FIXED:
                ids, extra = FIXED[sub]
                r.read(ids * I + extra)
            elif sub == 0xFE:
                r.read(4)
                self.used.add(self.ident(r))
            elif sub == 0x20:
                self.class_dump(r, at)
            elif sub == 0x21:
                r.read(I + 4 + I)
                r.read(struct.unpack(">I", r.read(4))[0])
            elif sub == 0x22:
                r.read(I + 4)
                n = struct.unpack(">I", r.read(4))[0]
                r.read(I + n * I)
            elif sub == 0x23:
                r.read(I + 4)
                n = struct.unpack(">I", r.read(4))[0]
                t = r.read(1)[0]
                if t not in SIZES or SIZES[t] is None:
                    raise Malformed("array type %d at %d" % (t, at))
                if r.nonzero(n * SIZES[t]):
                    raise Data("a primitive array of type %d holding data at byte %d" % (t, at))
            else:
                raise Malformed("sub-record tag %#x at %d" % (sub, at))

    def value(self, r, t):
        if t in (1, 2):
            r.read(self.idsz)
            return None
        if t not in SIZES:
            raise Malformed("type %d" % t)
        return int.from_bytes(r.read(SIZES[t]), "big")

    def class_dump(self, r, at):
        I = self.idsz
        cid = self.ident(r)
        r.read(4)
        sup, loader = self.ident(r), self.ident(r)
        r.read(2 * I)
        if self.ident(r) or self.ident(r):
            raise Data("CLASS_DUMP %#x at byte %d: a reserved id holds data" % (cid, at))
        r.read(4)
        for _ in range(struct.unpack(">H", r.read(2))[0]):
            r.read(2)
            if self.value(r, r.read(1)[0]):
                raise Data("CLASS_DUMP %#x at byte %d: a constant-pool value" % (cid, at))
        statics = []
        for _ in range(struct.unpack(">H", r.read(2))[0]):
            sid = self.ident(r)
            self.used.add(sid)
            t = r.read(1)[0]
            v = self.value(r, t)
            if v:
                statics.append((sid, t, at))
        fields = []
        for _ in range(struct.unpack(">H", r.read(2))[0]):
            sid = self.ident(r)
            self.used.add(sid)
            fields.append((sid, r.read(1)[0]))
        self.dumps.setdefault(cid, set()).add((sup, loader, tuple(fields)))
        self.statics += [(cid, s) for s in statics]

    def class_name(self, cid):
        return name_of(self.texts.get(self.class_names.get(cid), "?"))

    def check_pass1(self):
        for sid in self.strings:
            if sid not in self.used:
                off, n = self.strings[sid]
                raise Data("STRING %#x (%d bytes) at byte %d: nothing uses it" % (sid, n, off))
        for sid in self.long_data:
            raise Data("STRING %#x over 1 MiB holds data" % sid)
        for cid, (sid, t, at) in self.statics:
            key = (self.class_name(cid), self.texts.get(sid, "?"))
            if not (t == 11 and key in KEPT_STATICS):
                raise Data("static %s.%s (type %d) at byte %d holds data" % (key + (t, at)))

    # ---- pass 2: instances -------------------------------------------------------

    def layouts(self):
        """class id -> [(type, is_coder_keep)], or None when not known for sure"""
        strings = [c for c in self.dumps if self.class_name(c) == "java.lang.String"]
        self.layout = {}

        def layout(cid, depth=0):
            if cid in self.layout:
                return self.layout[cid]
            d = self.dumps.get(cid)
            out = None
            if d and len(d) == 1 and depth < 1000:
                sup, loader, fields = next(iter(d))
                real_string = cid in strings and len(strings) == 1 and loader == 0
                own = [(t, real_string and t == 8 and self.texts.get(s) == "coder") for s, t in fields]
                rest = layout(sup, depth + 1) if sup else []
                out = None if rest is None else own + rest
            self.layout[cid] = out
            return out
        for cid in self.dumps:
            layout(cid)

    def heap2(self, r, end):
        I = self.idsz
        while r.pos < end:
            sub = r.read(1)[0]
            at = r.pos - 1
            if sub == 0x21:
                r.read(I + 4)
                cid = self.ident(r)
                n = struct.unpack(">I", r.read(4))[0]
                self.instance(cid, r.read(n), at)
            elif sub in FIXED:
                ids, extra = FIXED[sub]
                r.read(ids * I + extra)
            elif sub == 0xFE:
                r.read(4 + I)
            elif sub == 0x20:  # read again to pass it; pass 1 judged it
                self.class_dump(r, at)
            elif sub == 0x22:
                r.read(I + 4)
                n = struct.unpack(">I", r.read(4))[0]
                r.read(I + n * I)
            elif sub == 0x23:
                r.read(I + 4)
                n = struct.unpack(">I", r.read(4))[0]
                r.nonzero(n * SIZES[r.read(1)[0]])  # in pieces: arrays may be huge

    def instance(self, cid, data, at):
        lay = self.layout.get(cid)
        if lay is None:
            if data.count(0) != len(data):
                raise Data("an instance of %s at byte %d, its class not known for sure, holds data"
                           % (self.class_name(cid), at))
            return
        i = 0
        for t, coder in lay:
            w = self.idsz if t in (1, 2) else SIZES.get(t)
            if w is None or i + w > len(data):
                break
            v = data[i:i + w]
            if t not in (1, 2) and v.count(0) != w and not (coder and v[0] in (0, 1)):
                raise Data("field %d of an instance of %s at byte %d holds data"
                           % (i, self.class_name(cid), at))
            i += w
        if i != len(data) and data[i:].count(0) != len(data) - i:
            raise Data("an instance of %s at byte %d: bytes beyond its layout" % (self.class_name(cid), at))


def verdict(path):
    s = Scan(path)
    try:
        r = Reader(path)
        try:
            s.header(r)
            s.records(r, s.heap1)
        finally:
            r.close()
        s.check_pass1()
        s.layouts()
        s.dumps = {}  # pass 2 reads the class dumps again: keep the first layouts
        r = Reader(path)
        try:
            s.header(r)
            s.records(r, s.heap2)
        finally:
            r.close()
    except Data as d:
        return "data %s: %s" % (path, d)
    except (Malformed, OSError, EOFError, ValueError) as m:  # gzip's and zstd's errors too
        return "malformed %s: %s" % (path, m)
    return "clean " + path


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    for p in sys.argv[1:]:
        print(verdict(p), flush=True)
