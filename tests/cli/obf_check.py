#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""obf_check.py - checks of --obfuscate-names for tests/cli/cli_obfuscate.sh,
reading the dump and the mapping independently of hprof-strip.

    obf_check.py leaks DUMP MAP
        Exit 1, listing them, when an original name the mapping renamed is
        left in DUMP: a LOAD_CLASS names an application class (arrays of
        one too, in any spelling); a field of a renamed class, or a method
        of a frame of one, is not the mapping's name for it; such a frame
        keeps its source file (not SourceFile); any frame's signature names
        an application class; or a STRING nothing uses spells an original
        name. A kept class's field may share a renamed one's original text
        (String.count and an application's `count`): that is no leak. Also
        exit 1 when the dump defines a STRING twice, a record names one no
        STRING defines, or the mapping renames no class.
    obf_check.py frames DUMP
        Every STACK_FRAME, in file order: "CLASS METHOD SIGNATURE SOURCE LINE".
    obf_check.py rename MAP [SEP]
        Histogram lines on stdin ("NAME<SEP>...", or ahat's "class NAME ..."
        and "heapclass HEAP NAME ..." with SEP ' '): obfuscated class names
        (arrays too) back to the originals, sorted.
"""
import struct
import sys

ROOTS = {0xff: (1, 0), 0x01: (2, 0), 0x02: (1, 2), 0x03: (1, 2), 0x04: (1, 1), 0x05: (1, 0),
         0x06: (1, 1), 0x07: (1, 0), 0x08: (1, 2), 0x89: (1, 0), 0x8a: (1, 0), 0x8b: (1, 0),
         0x8c: (1, 0), 0x8d: (1, 0), 0x8e: (1, 2), 0x90: (1, 0), 0xfe: (1, 1)}


def fail(msg):
    print("obf_check: " + msg, file=sys.stderr)
    sys.exit(1)


def read_map(path):
    """classes: obf -> orig (dotted); obf_members: obf class -> the obf
    names of its members; members: original member names (renamed);
    sources: source files."""
    classes, obf_members, members, sources = {}, {}, set(), set()
    cur = None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if '"fileName":"' in s:
                sources.add(s.split('"fileName":"', 1)[1].split('"', 1)[0])
            continue
        left, obf = s.split(" -> ")
        if not line[0].isspace():
            cur = obf.rstrip(":")
            classes[cur] = left
            obf_members[cur] = set()
            continue
        name = left.split(" ", 1)[1].split("(", 1)[0]
        obf_members[cur].add(obf)
        if obf != name:
            members.add(name)
    return classes, obf_members, members, sources


def element(text):
    """The dotted element class of a class name in any spelling, or None."""
    t = text
    if t.startswith("["):
        t = t.lstrip("[")
        if not (t.startswith("L") and t.endswith(";")):
            return None
        t = t[1:-1]
    while t.endswith("[]"):
        t = t[:-2]
    return t.replace("/", ".")


def parse(path, want_frames=False):
    data = open(path, "rb").read()
    p = data.index(b"\0") + 1
    idn = struct.unpack(">I", data[p:p + 4])[0]
    prim = {2: idn, 4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}
    p += 12
    fmt = ">I" if idn == 4 else ">Q"

    def rid(o):
        return struct.unpack(fmt, data[o:o + idn])[0]

    d = {"strings": {}, "classes": {}, "serials": {}, "frames": [], "dumps": [], "other": set()}
    strings = d["strings"]

    def need(sid, what):
        if sid and sid not in strings:
            fail("%s names string 0x%x before any STRING defines it" % (what, sid))

    def class_dump(q):
        cid = rid(q + 1)
        q += 1 + 7 * idn + 8
        n = struct.unpack(">H", data[q:q + 2])[0]
        q += 2
        for _ in range(n):
            q += 3 + prim[data[q + 2]]
        names = []
        n = struct.unpack(">H", data[q:q + 2])[0]
        q += 2
        for _ in range(n):
            names.append(rid(q))
            need(names[-1], "CLASS_DUMP")
            q += idn + 1 + prim[data[q + idn]]
        n = struct.unpack(">H", data[q:q + 2])[0]
        q += 2
        for _ in range(n):
            names.append(rid(q))
            need(names[-1], "CLASS_DUMP")
            q += idn + 1
        d["dumps"].append((cid, names))
        return q

    def heap(q, end):
        while q < end:
            t = data[q]
            if t in ROOTS:
                if t == 0xfe:
                    d["other"].add(rid(q + 5))
                q += 1 + ROOTS[t][0] * idn + ROOTS[t][1] * 4
            elif t == 0x20:
                q = class_dump(q)
            elif t == 0x21:
                q += 1 + 2 * idn + 8 + struct.unpack(">I", data[q + 1 + 2 * idn + 4:q + 1 + 2 * idn + 8])[0]
            elif t == 0x22:
                q += 1 + 2 * idn + 8 + idn * struct.unpack(">I", data[q + 1 + idn + 4:q + 1 + idn + 8])[0]
            elif t == 0x23:
                cnt = struct.unpack(">I", data[q + 1 + idn + 4:q + 1 + idn + 8])[0]
                q += 1 + idn + 9 + cnt * prim[data[q + 1 + idn + 8]]
            elif t == 0xc3:
                q += 1 + idn + 9
            else:
                fail("unknown sub-record 0x%02x" % t)

    while p + 9 <= len(data):
        tag = data[p]
        ln = struct.unpack(">I", data[p + 5:p + 9])[0]
        b = p + 9
        if tag == 0x01:
            sid = rid(b)
            if sid in strings:
                fail("STRING id 0x%x defined twice" % sid)
            strings[sid] = data[b + idn:b + ln].decode("utf-8", "replace")
        elif tag == 0x02:
            name = rid(b + 4 + idn + 4)
            need(name, "LOAD_CLASS")
            d["classes"][rid(b + 4)] = name
            d["serials"][struct.unpack(">I", data[b:b + 4])[0]] = name
        elif tag == 0x04:
            ids = [rid(b + k * idn) for k in (1, 2, 3)]
            for sid in ids:
                need(sid, "STACK_FRAME")
            ser, line = struct.unpack(">Ii", data[b + 4 * idn:b + 4 * idn + 8])
            d["frames"].append((ser, ids[0], ids[1], ids[2], line))
        elif tag == 0x0a:  # START_THREAD: thread, group and parent names
            for k in (0, 1, 2):
                d["other"].add(rid(b + 4 + idn + 4 + k * idn))
        elif tag in (0x0c, 0x1c):
            heap(b, b + ln)
        p = b + ln
    return d


def leaks(dump, mapfile):
    classes, obf_members, members, sources = read_map(mapfile)
    if not classes:
        fail("the mapping renames no class")
    app = set(classes.values())
    d = parse(dump)
    s = d["strings"]
    bad = []
    referenced = set(d["other"])

    def renamed(name_id):  # the obfuscated plain class a LOAD_CLASS names, or None
        t = s.get(name_id, "")
        e = element(t)
        return e if e in classes and e == t.replace("/", ".") else None
    # every class outside the keep list renamed; array classes too
    for cid, name in d["classes"].items():
        referenced.add(name)
        if element(s[name]) in app:
            bad.append("LOAD_CLASS %r" % s[name])
    # the fields of renamed classes: the mapping's names (the JVM's <...> kept)
    for cid, names in d["dumps"]:
        referenced.update(names)
        c = renamed(d["classes"].get(cid, 0))
        if c:
            bad += ["field %r of %s" % (s[n], c) for n in names
                    if s[n] not in obf_members[c] and not s[n].startswith("<")]
    # frames: methods renamed, sources SourceFile, no application class in
    # a signature, whatever class the frame is of
    slashed = ["L" + c.replace(".", "/") + ";" for c in app]
    for ser, m, sig, src, line in d["frames"]:
        referenced.update((m, sig, src))
        c = renamed(d["serials"].get(ser, 0))
        if c and s[m] not in obf_members[c]:
            bad.append("method %r of %s" % (s[m], c))
        if c and src and s[src] != "SourceFile":
            bad.append("source %r of %s" % (s[src], c))
        if sig and any(x in s[sig] for x in slashed):
            bad.append("signature %r" % s[sig])
    # and no STRING no record uses spells an original name
    for sid, text in s.items():
        if sid not in referenced and (element(text) in app or text in members or text in sources):
            bad.append("unused STRING %r" % text)
    if bad:
        fail("%s: %d original names left: %s" % (dump, len(bad), "; ".join(sorted(bad)[:20])))


def frames(dump):
    d = parse(dump)
    s = d["strings"]
    for ser, m, sig, src, line in d["frames"]:
        cls = s.get(d["serials"].get(ser), "?").replace("/", ".")
        print("%s %s %s %s %d" % (cls, s.get(m, "?"), s.get(sig, "-"), s.get(src, "-"), line))


def rename(mapfile, sep):
    classes = read_map(mapfile)[0]
    out = []
    for line in sys.stdin:
        f = line.rstrip("\n").split(sep)
        k = 1 if f[0] == "class" else 2 if f[0] == "heapclass" else 0
        if k < len(f):
            base, dims = f[k], ""
            while base.endswith("[]"):
                base, dims = base[:-2], dims + "[]"
            if base in classes:
                f[k] = classes[base] + dims
        out.append(sep.join(f))
    for line in sorted(out):
        print(line)


def main():
    a = sys.argv[1:]
    if len(a) == 3 and a[0] == "leaks":
        leaks(a[1], a[2])
    elif len(a) == 2 and a[0] == "frames":
        frames(a[1])
    elif len(a) in (2, 3) and a[0] == "rename":
        rename(a[1], a[2] if len(a) == 3 else "\t")
    else:
        fail("usage: obf_check.py leaks DUMP MAP | frames DUMP | rename MAP [SEP]")


main()
