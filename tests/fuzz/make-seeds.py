#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make-seeds.py - builds the fuzzing seeds in tests/fuzz/seeds/.

Each seed is one selector byte (see fuzz_filter.c: preset, repack, small
segment cap, small read buffer, read chunking) followed by an HPROF dump.

  - hand-made dumps: every header variant (1.0, 1.0.1, 1.0.2, 1.0.3; id size
    4 and 8), every top-level record kind, every heap sub-record kind, and the
    quirks the filter handles (zero-length HEAP_DUMP running to the end of the
    input, segments left open, Android heap switches, an array larger than a
    small segment);
  - with --corpus DIR: small excerpts of the real dumps there (header, the
    first records, then a sample of each sub-record kind found in the first
    heap record, re-wrapped in a heap record of the right length).

Only the Python 3 standard library is used.

    python3 tests/fuzz/make-seeds.py --out tests/fuzz/seeds [--corpus ../shared/corpus]
"""
import argparse
import gzip
import os
import struct
import sys

# ---- encoding helpers -------------------------------------------------------


def u1(v):
    return struct.pack(">B", v & 0xFF)


def u2(v):
    return struct.pack(">H", v & 0xFFFF)


def u4(v):
    return struct.pack(">I", v & 0xFFFFFFFF)


def u8(v):
    return struct.pack(">Q", v & 0xFFFFFFFFFFFFFFFF)


class Dump:
    """Builds one HPROF file for a given version and identifier size."""

    def __init__(self, version="1.0.2", idsize=8, time=0x0000018C_12345678):
        self.idsize = idsize
        head = b"JAVA PROFILE " + version.encode() + b"\0"
        self.parts = [head, u4(idsize), u4(time >> 32), u4(time)]

    def id(self, v):
        return u8(v) if self.idsize == 8 else u4(v)

    def record(self, tag, body, time=0, length=None):
        n = len(body) if length is None else length
        self.parts.append(u1(tag) + u4(time) + u4(n) + body)
        return self

    def raw(self, data):
        self.parts.append(data)
        return self

    def bytes(self):
        return b"".join(self.parts)


# basic types: code -> width (None = id size)
TYPES = {2: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
PRIM = [4, 5, 6, 7, 8, 9, 10, 11]


def width(d, t):
    w = TYPES[t]
    return d.idsize if w is None else w


def value(d, t, n):
    w = width(d, t)
    return (n & ((1 << (8 * w)) - 1)).to_bytes(w, "big")


# ---- top-level records --------------------------------------------------------


def string(d, sid, text):
    return d.record(0x01, d.id(sid) + text)


def load_class(d, serial, cid, trace, name):
    return d.record(0x02, u4(serial) + d.id(cid) + u4(trace) + d.id(name))


def all_toplevel(d):
    """One of every non-heap record, plus an unknown tag."""
    string(d, 0x100, b"java/lang/Object")
    string(d, 0x101, b"main")
    string(d, 0x102, b"")  # empty text, as ART writes for missing source files
    string(d, 0x103, b"Hello.java")
    string(d, 0x104, b"\xc0\x80modified-utf8\xed\xa0\x80")
    load_class(d, 1, 0x1000, 1, 0x100)
    d.record(0x03, u4(1))  # UNLOAD_CLASS
    d.record(0x04, d.id(0x77) + d.id(0x101) + d.id(0x102) + d.id(0x103) + u4(1) + u4(42))
    d.record(0x04, d.id(0x78) + d.id(0x101) + d.id(0x102) + d.id(0) + u4(1) + u4(0xFFFFFFFD))
    d.record(0x05, u4(1) + u4(0) + u4(0))  # empty trace
    d.record(0x05, u4(2) + u4(1) + u4(2) + d.id(0x77) + d.id(0x78))
    sites = b"".join(u1(t) + u4(1) + u4(2) + u4(100) + u4(3) + u4(200) + u4(4) for t in (0, 8, 10))
    d.record(0x06, u2(3) + u4(0x3F800000) + u4(1000) + u4(10) + u8(5000) + u8(50) + u4(3) + sites)
    d.record(0x07, u4(1000) + u4(10) + u8(5000) + u8(50))  # HEAP_SUMMARY
    d.record(0x0A, u4(1) + d.id(0x2000) + u4(2) + d.id(0x101) + d.id(0x101) + d.id(0))
    d.record(0x0B, u4(1))  # END_THREAD
    d.record(0x0D, u4(10) + u4(2) + u4(7) + u4(1) + u4(3) + u4(2))  # CPU_SAMPLES
    d.record(0x0E, u4(3) + u2(16))  # CONTROL_SETTINGS
    d.record(0x42, b"unknown tag, skipped by length", time=123)
    d.record(0x2C, b"")  # a stray HEAP_DUMP_END
    return d


# ---- heap sub-records ----------------------------------------------------------

ROOTS_STD = [0xFF, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
ROOTS_ANDROID = [0x89, 0x8A, 0x8B, 0x8C, 0x8D, 0x8E, 0x90]


def root(d, tag, obj):
    b = u1(tag) + d.id(obj)
    if tag == 0x01:
        b += d.id(obj + 0x10)
    elif tag in (0x02, 0x03, 0x08, 0x8E):
        b += u4(1) + u4(0xFFFFFFFF if tag == 0x02 else 3)
    elif tag in (0x04, 0x06):
        b += u4(1)
    return b


def class_dump(d, cid, super_id, consts=(), statics=(), fields=(), isize=0):
    b = u1(0x20) + d.id(cid) + u4(1) + d.id(super_id) + d.id(0x3000) + d.id(0)
    b += d.id(0) + d.id(0) + d.id(0) + u4(isize)
    b += u2(len(consts)) + b"".join(u2(i) + u1(t) + value(d, t, i * 3 + 1) for i, t in consts)
    b += u2(len(statics)) + b"".join(d.id(n) + u1(t) + value(d, t, n) for n, t in statics)
    b += u2(len(fields)) + b"".join(d.id(n) + u1(t) for n, t in fields)
    return b


def instance(d, oid, cid, fieldbytes):
    return u1(0x21) + d.id(oid) + u4(1) + d.id(cid) + u4(len(fieldbytes)) + fieldbytes


def obj_array(d, aid, cid, elems):
    return u1(0x22) + d.id(aid) + u4(1) + u4(len(elems)) + d.id(cid) + b"".join(d.id(e) for e in elems)


def prim_array(d, aid, t, count, fill=None):
    w = TYPES[t]
    if fill is None:
        data = bytes((aid + i) & 0xFF for i in range(count * w))
    else:
        data = bytes([fill]) * (count * w)
    return u1(0x23) + d.id(aid) + u4(1) + u4(count) + u1(t) + data


def prim_nodata(d, aid, t, count):
    return u1(0xC3) + d.id(aid) + u4(1) + u4(count) + u1(t)


def heap_info(d, heap, name):
    return u1(0xFE) + u4(heap) + d.id(name)


def standard_subs(d):
    """Every standard sub-record kind, with every basic type in a class dump
    and in primitive arrays."""
    subs = [root(d, t, 0x5000 + t) for t in ROOTS_STD]
    subs.append(class_dump(d, 0x1000, 0, statics=[(0x101, t) for t in TYPES], isize=0))
    subs.append(class_dump(d, 0x1100, 0x1000,
                           consts=[(1, 2), (2, 10), (3, 7), (4, 4)],
                           statics=[(0x101, 2), (0x103, 11)],
                           fields=[(0x101, t) for t in TYPES],
                           isize=sum(width(d, t) for t in TYPES)))
    subs.append(class_dump(d, 0x1200, 0x1000))  # empty tables
    fields = b"".join(value(d, t, 0x33) for t in TYPES)
    subs.append(instance(d, 0x6000, 0x1100, fields))
    subs.append(instance(d, 0x6001, 0x1000, b""))
    subs.append(obj_array(d, 0x7000, 0x1000, [0x6000, 0x6001, 0]))
    subs.append(obj_array(d, 0x7001, 0x1000, []))
    for t in PRIM:
        subs.append(prim_array(d, 0x8000 + t, t, 3))
    subs.append(prim_array(d, 0x8100, 8, 0))
    return subs


def android_subs(d):
    subs = [heap_info(d, ord("A"), 0x101)]
    subs += [root(d, t, 0x5100 + t) for t in ROOTS_ANDROID]
    subs.append(prim_nodata(d, 0x8200, 5, 7))
    subs.append(prim_array(d, 0x8201, 5, 4))
    subs.append(heap_info(d, ord("Z"), 0x103))
    subs.append(instance(d, 0x6100, 0x1000, b""))
    subs.append(heap_info(d, ord("I"), 0x102))
    subs.append(root(d, 0x8D, 0x6100))
    subs.append(heap_info(d, 0, 0))  # back to the default heap
    subs.append(root(d, 0xFF, 0x6100))
    subs.append(heap_info(d, ord("A"), 0x101))
    subs.append(prim_array(d, 0x8202, 10, 5))
    return subs


def segments(d, subs, per_seg, end=True):
    """Wraps `subs` into HEAP_DUMP_SEGMENTs of `per_seg` sub-records each."""
    for i in range(0, len(subs), per_seg):
        d.record(0x1C, b"".join(subs[i:i + per_seg]))
    if end:
        d.record(0x2C, b"")
    return d


# ---- the hand-made seed set --------------------------------------------------------


def hand_made():
    """Yields (name, dump bytes, [selectors])."""
    # header-only files, every version and id size
    for ver in ("1.0", "1.0.1", "1.0.2", "1.0.3"):
        for ids in (4, 8):
            tag = ver.replace(".", "")
            yield "hdr-%s-id%d" % (tag, ids), Dump(ver, ids).bytes(), [0x00, 0x03]

    for ver, ids in (("1.0.1", 4), ("1.0.2", 8), ("1.0.3", 4)):
        tag = ver.replace(".", "")
        yield "toplevel-%s-id%d" % (tag, ids), all_toplevel(Dump(ver, ids)).bytes(), [0x10, 0x23, 0xE1]

    # 1.0.1: one HEAP_DUMP holding every standard sub-record
    for ids in (4, 8):
        d = all_toplevel(Dump("1.0.1", ids))
        d.record(0x0C, b"".join(standard_subs(d)))
        yield "heapdump-101-id%d" % ids, d.bytes(), [0x00, 0x07, 0x1E, 0xF5]

    # 1.0.2: segments + HEAP_DUMP_END
    for ids in (4, 8):
        d = Dump("1.0.2", ids)
        string(d, 0x101, b"name")
        segments(d, standard_subs(d), 4)
        yield "segments-102-id%d" % ids, d.bytes(), [0x00, 0x03, 0x0D, 0x46, 0xFF]

    # 1.0.3 Android: heap switches, Android roots, NODATA
    for ids in (4, 8):
        d = Dump("1.0.3", ids)
        string(d, 0x101, b"app")
        string(d, 0x102, b"image")
        string(d, 0x103, b"zygote")
        segments(d, android_subs(d) + standard_subs(d), 6)
        yield "android-103-id%d" % ids, d.bytes(), [0x00, 0x05, 0x0F, 0x37, 0xE6]

    # HotSpot 7/8 quirk: zero-length HEAP_DUMP whose sub-records run to EOF
    d = Dump("1.0.1", 8)
    string(d, 0x101, b"x")
    d.record(0x0C, b"".join(standard_subs(d)), length=0)
    yield "heapdump-len0-to-eof", d.bytes(), [0x00, 0x03, 0x15]

    # zero-length HEAP_DUMP followed by a real record (not running to EOF)
    d = Dump("1.0.1", 4)
    d.record(0x0C, b"")
    string(d, 0x101, b"after")
    yield "heapdump-empty", d.bytes(), [0x00, 0x03]

    # segments left open at the end of the input (no HEAP_DUMP_END)
    d = Dump("1.0.2", 8)
    segments(d, standard_subs(d)[:6], 3, end=False)
    yield "segments-open", d.bytes(), [0x00, 0x07]

    # a primitive array bigger than any small segment cap, and a huge CLASS_DUMP
    d = Dump("1.0.2", 4)
    big = prim_array(d, 0x9000, 10, 1500)  # 6000 payload bytes
    cd = class_dump(d, 0x9100, 0, statics=[(0x200 + i, 11) for i in range(400)])
    segments(d, [root(d, 0xFF, 1), big, root(d, 0x05, 2), cd, prim_array(d, 0x9001, 8, 20)], 5)
    yield "big-array-id4", d.bytes(), [0x04, 0x0C, 0x1D, 0x8F]

    # back-to-back segments, the heap dump closed, then a second heap dump
    d = Dump("1.0.2", 8)
    subs = standard_subs(d)
    segments(d, subs[:5], 2)
    segments(d, subs[5:9], 2)
    yield "two-heap-dumps", d.bytes(), [0x00, 0x03, 0x25]

    # a few malformed ones the filter must reject cleanly
    d = Dump("1.0.2", 4)
    d.record(0x1C, root(d, 0xFF, 1) + b"\x55" + b"\0" * 8)  # unknown sub-tag
    yield "bad-subtag", d.bytes(), [0x00]
    d = Dump("1.0.2", 4)
    d.record(0x1C, prim_array(d, 1, 8, 4)[:-2])  # array runs past the record
    yield "bad-array-past-end", d.bytes(), [0x00, 0x03]
    d = Dump("1.0.2", 4)
    d.record(0x02, b"\0" * 3)  # LOAD_CLASS with a wrong length
    yield "bad-length", d.bytes(), [0x00]
    d = Dump("1.0.2", 8)
    d.record(0x01, d.id(1) + b"truncated", length=100)
    yield "truncated", d.bytes(), [0x00]


# ---- excerpts of real dumps ---------------------------------------------------------


def sub_size(buf, pos, ids):
    """Size of the sub-record at buf[pos], or None when unknown/truncated."""
    def need(n):
        return pos + n <= len(buf)
    t = buf[pos]
    fixed = {0xFF: ids, 0x05: ids, 0x07: ids, 0x89: ids, 0x8A: ids, 0x8B: ids, 0x8C: ids,
             0x8D: ids, 0x90: ids, 0x01: 2 * ids, 0x04: ids + 4, 0x06: ids + 4,
             0x02: ids + 8, 0x03: ids + 8, 0x08: ids + 8, 0x8E: ids + 8, 0xFE: 4 + ids,
             0xC3: ids + 9}
    if t in fixed:
        return 1 + fixed[t] if need(1 + fixed[t]) else None
    if t == 0x21:
        h = 1 + 2 * ids + 8
        return h + struct.unpack_from(">I", buf, pos + h - 4)[0] if need(h) else None
    if t == 0x22:
        h = 1 + 2 * ids + 8
        return h + ids * struct.unpack_from(">I", buf, pos + 1 + ids + 4)[0] if need(h) else None
    if t == 0x23:
        h = 1 + ids + 9
        if not need(h):
            return None
        w = TYPES.get(buf[pos + h - 1])
        if not w:
            return None
        return h + w * struct.unpack_from(">I", buf, pos + 1 + ids + 4)[0]
    if t == 0x20:
        k = 1 + 7 * ids + 8
        if not need(k + 2):
            return None
        for entry in ("const", "static", "inst"):
            if not need(k + 2):
                return None
            n = struct.unpack_from(">H", buf, pos + k)[0]
            k += 2
            for _ in range(n):
                if entry == "const":
                    if not need(k + 3):
                        return None
                    ty = buf[pos + k + 2]
                    k += 3
                else:
                    if not need(k + ids + 1):
                        return None
                    ty = buf[pos + k + ids]
                    k += ids + 1
                if ty not in TYPES:
                    return None
                if entry != "inst":
                    k += ids if TYPES[ty] is None else TYPES[ty]
        return k if need(k) else None
    return None


def open_dump(path, limit):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        return f.read(limit)


def excerpt(path, head_budget=1500, heap_budget=5000, per_kind=3, max_sub=600):
    """Header + first records (up to head_budget bytes) + a sample of the
    first heap record's sub-records (at most per_kind of each kind, each at
    most max_sub bytes), re-wrapped in one heap record; then HEAP_DUMP_END
    when the dump was segmented."""
    buf = open_dump(path, 48 << 20)
    nul = buf.index(b"\0")
    ids = struct.unpack_from(">I", buf, nul + 1)[0]
    out = [buf[:nul + 13]]
    pos = nul + 13
    used = 0
    heap = None
    while pos + 9 <= len(buf):
        tag = buf[pos]
        length = struct.unpack_from(">I", buf, pos + 5)[0]
        if tag in (0x0C, 0x1C):
            heap = (tag, pos + 9, min(pos + 9 + length, len(buf)) if length else len(buf))
            break
        if pos + 9 + length > len(buf):
            break
        if used + 9 + length <= head_budget:
            out.append(buf[pos:pos + 9 + length])
            used += 9 + length
        pos += 9 + length
    if heap:
        tag, p, end = heap
        seen = {}
        subs = []
        total = 0
        while p < end:
            n = sub_size(buf, p, ids)
            if n is None or p + n > end:
                break
            t = buf[p]
            if n <= max_sub and seen.get(t, 0) < per_kind and total + n <= heap_budget:
                seen[t] = seen.get(t, 0) + 1
                subs.append(buf[p:p + n])
                total += n
            p += n
        body = b"".join(subs)
        out.append(u1(tag) + u4(0) + u4(len(body)) + body)
        if tag == 0x1C:
            out.append(u1(0x2C) + u4(0) + u4(0))
    return b"".join(out)


# ---- main ------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "seeds"))
    ap.add_argument("--corpus", help="directory of real dumps to take excerpts of")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for old in os.listdir(args.out):
        if old.endswith(".seed"):
            os.unlink(os.path.join(args.out, old))

    written = 0
    for name, dump, sels in hand_made():
        for sel in sels:
            with open(os.path.join(args.out, "%s.%02x.seed" % (name, sel)), "wb") as f:
                f.write(bytes([sel]) + dump)
            written += 1
    if args.corpus:
        sel_cycle = [0x00, 0x03, 0x1D, 0x6E, 0xF7]
        for i, fn in enumerate(sorted(os.listdir(args.corpus))):
            if not (fn.endswith(".hprof") or fn.endswith(".hprof.gz")):
                continue
            dump = excerpt(os.path.join(args.corpus, fn))
            base = fn.split(".hprof")[0]
            for sel in (sel_cycle[i % len(sel_cycle)], 0x00):
                path = os.path.join(args.out, "real-%s.%02x.seed" % (base, sel))
                with open(path, "wb") as f:
                    f.write(bytes([sel]) + dump)
                written += 1
    print("make-seeds: wrote %d seeds to %s" % (written, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
