#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""deobf_names.py - the names an HPROF dump gives its classes and fields,
read independently of hprof-strip, for tests/cli/deobf.sh.

    deobf_names.py DUMP [PREFIX]
    deobf_names.py --frames DUMP

Prints one line per class whose CLASS_DUMP is in the dump (and whose name,
dotted, starts with PREFIX): "NAME static=a,b fields=c,d", sorted. Fails
(exit 1) when the dump defines a STRING id twice, or a LOAD_CLASS, STACK_FRAME
or CLASS_DUMP names a string no earlier STRING record defines: what analyzers
that resolve names as they read (MAT, perflib, shark) would trip on. With
--frames, prints every STACK_FRAME instead, in file order: "CLASS METHOD
SOURCE LINE".
"""
import struct
import sys

# roots: (ids, u4s) after the tag
ROOTS = {0xff: (1, 0), 0x01: (2, 0), 0x02: (1, 2), 0x03: (1, 2), 0x04: (1, 1), 0x05: (1, 0),
         0x06: (1, 1), 0x07: (1, 0), 0x08: (1, 2), 0x89: (1, 0), 0x8a: (1, 0), 0x8b: (1, 0),
         0x8c: (1, 0), 0x8d: (1, 0), 0x8e: (1, 2), 0x90: (1, 0), 0xfe: (1, 1)}
PRIM = {2: None, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


def fail(msg):
    print("deobf_names: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    args = sys.argv[1:]
    frames = args[0] == "--frames"
    if frames:
        args = args[1:]
    data = open(args[0], "rb").read()
    prefix = args[1] if len(args) > 1 else ""
    serials, frame_lines = {}, []
    p = data.index(b"\0") + 1
    idn = struct.unpack(">I", data[p:p + 4])[0]
    PRIM[2] = idn
    p += 12
    rid = (lambda b, o: struct.unpack(">I" if idn == 4 else ">Q", b[o:o + idn])[0])
    strings, classes, dumps = {}, {}, {}

    def need(sid, what):
        if sid and sid not in strings:
            fail("%s names string 0x%x before any STRING defines it" % (what, sid))

    def class_dump(b, q):
        cid = rid(b, q + 1)
        q += 1 + 7 * idn + 8
        n = struct.unpack(">H", b[q:q + 2])[0]
        q += 2
        for _ in range(n):
            q += 3 + PRIM[b[q + 2]]
        statics, fields = [], []
        n = struct.unpack(">H", b[q:q + 2])[0]
        q += 2
        for _ in range(n):
            sid = rid(b, q)
            need(sid, "CLASS_DUMP")
            statics.append(strings.get(sid, "?"))
            q += idn + 1 + PRIM[b[q + idn]]
        n = struct.unpack(">H", b[q:q + 2])[0]
        q += 2
        for _ in range(n):
            sid = rid(b, q)
            need(sid, "CLASS_DUMP")
            fields.append(strings.get(sid, "?"))
            q += idn + 1
        dumps[cid] = (statics, fields)
        return q

    def heap(b, q, end):
        while q < end:
            t = b[q]
            if t in ROOTS:
                q += 1 + ROOTS[t][0] * idn + ROOTS[t][1] * 4
            elif t == 0x20:
                q = class_dump(b, q)
            elif t == 0x21:
                q += 1 + 2 * idn + 8 + struct.unpack(">I", b[q + 1 + 2 * idn + 4:q + 1 + 2 * idn + 8])[0]
            elif t == 0x22:
                q += 1 + 2 * idn + 8 + idn * struct.unpack(">I", b[q + 1 + idn + 4:q + 1 + idn + 8])[0]
            elif t == 0x23:
                cnt = struct.unpack(">I", b[q + 1 + idn + 4:q + 1 + idn + 8])[0]
                q += 1 + idn + 9 + cnt * PRIM[b[q + 1 + idn + 8]]
            elif t == 0xc3:
                q += 1 + idn + 9
            else:
                fail("unknown sub-record 0x%02x" % t)

    while p + 9 <= len(data):
        tag = data[p]
        ln = struct.unpack(">I", data[p + 5:p + 9])[0]
        b = p + 9
        if tag == 0x01:
            sid = rid(data, b)
            if sid in strings:
                fail("STRING id 0x%x defined twice" % sid)
            strings[sid] = data[b + idn:b + ln].decode("utf-8", "replace")
        elif tag == 0x02:
            name = rid(data, b + 4 + idn + 4)
            need(name, "LOAD_CLASS")
            classes[rid(data, b + 4)] = strings.get(name, "?")
            serials[struct.unpack(">I", data[b:b + 4])[0]] = strings.get(name, "?")
        elif tag == 0x04:
            for k in (1, 2, 3):
                need(rid(data, b + k * idn), "STACK_FRAME")
            ser, line = struct.unpack(">Ii", data[b + 4 * idn:b + 4 * idn + 8])
            frame_lines.append("%s %s %s %d" % (
                serials.get(ser, "?").replace("/", "."), strings.get(rid(data, b + idn), "?"),
                strings.get(rid(data, b + 3 * idn), "-"), line))
        elif tag in (0x0c, 0x1c):
            heap(data, b, b + ln)
        p = b + ln
    if frames:
        print("\n".join(frame_lines))
        return
    out = []
    for cid, (st, fl) in dumps.items():
        name = classes.get(cid, "?").replace("/", ".")
        if name.startswith(prefix):
            out.append("%s static=%s fields=%s" % (name, ",".join(st), ",".join(fl)))
    for line in sorted(out):
        print(line)


main()
