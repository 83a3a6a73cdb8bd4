#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""tests/cli/plantscan.py - the byte scan of tests/cli/audit_adversarial.sh (issue #50).

Reads the manifests tools/plantdump.c writes beside each file (see its
header for the lines) and looks for the planted markers in a file's bytes,
raw and decompressed (gzip members, zstd frames), sharing nothing with
hprof-strip: a marker is there when its bytes are, or, for a value narrower
than a marker, when a byte of it is found again after its anchor.

Usage: plantscan.py containers CLEAN.hprof DIR
  Writes into DIR the container variants of CLEAN (a dump holding no
  data), each with its manifest (NAME.manifest): gzip with a marker in its
  header's file name, comment or extra field, an empty gzip member whose
  comment holds one, bytes after the gzip stream; zstd with a skippable
  frame holding one before or after the dump's frame, bytes after the zstd
  stream. Prints their names.

       plantscan.py find MANIFEST FILE
  Prints the markers FILE holds, one a line.

       plantscan.py judge CASES
  CASES holds one case a line, tab-separated:
    NAME  MANIFEST  FILE  AUDIT_STATUS  MUST_BE_GONE  [AUDIT_JSON]
  AUDIT_STATUS is the exit status of `hprof-strip --audit FILE`; MUST_BE_GONE
  is 1 when FILE is an output of -p privacy (no required marker may be
  left); AUDIT_JSON, when given, is the audit's --stats-file, whose count
  of unused STRINGs must be the manifest's.
  A file holds data when a marker is found, or when tests/cli/hprofscan.py (an
  independent reading of the HPROF by the rules) finds data: an unused
  STRING a --mapping run left is data but no marker.
  Prints one line a case: "ok NAME", or "bad NAME: WHY" where WHY starts
  with FALSE-CLEAN (the audit said clean on a file holding data), LEAK (a
  -p privacy output holds data), FALSE-NOT-CLEAN (the audit said data on a
  file holding none) or COUNT (the unused STRING count).
"""
import json
import os
import struct
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True  # no __pycache__ in tests/
import hprofscan  # noqa: E402 (beside this file)


def manifest(path):
    m = {"required": [], "anchored": [], "unused_strings": None}
    for line in open(path, encoding="ascii"):
        words = line.rstrip("\n").split(" ")
        if words[0] == "required":
            m["required"].append((bytes.fromhex(words[1]), " ".join(words[2:])))
        elif words[0] == "anchored":
            m["anchored"].append((bytes.fromhex(words[1]), int(words[2]),
                                  bytes.fromhex(words[3]), " ".join(words[4:])))
        elif words[0] == "unused_strings":
            m["unused_strings"] = int(words[1])
    return m


def gunzip_all(data):
    """every gzip member's content, and whatever follows them ignored"""
    out = []
    while data[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            out.append(d.decompress(data))
        except zlib.error:
            break
        data = d.unused_data
    return b"".join(out)


def unzstd(path):
    r = subprocess.run(["zstd", "-dcq", path], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, check=False)
    return r.stdout


def readings(path):
    """the file's bytes, and its content when it is compressed"""
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        return [raw, gunzip_all(raw)]
    if raw[:4] == b"\x28\xb5\x2f\xfd" or (raw[:4][1:] == b"\x2a\x4d\x18" and raw[0] & 0xF0 == 0x50):
        return [raw, unzstd(path)]
    return [raw]


def anchored_at(data, anchor, skip, value):
    """a non-zero byte of VALUE still in its place after some ANCHOR"""
    at = data.find(anchor)
    while at >= 0:
        v = at + len(anchor) + skip
        got = data[v:v + len(value)]
        if any(b and i < len(got) and got[i] == b for i, b in enumerate(value)):
            return True
        at = data.find(anchor, at + 1)
    return False


def found(m, path):
    places = []
    for data in readings(path):
        for marker, place in m["required"]:
            if marker in data:
                places.append(place)
        for anchor, skip, value, place in m["anchored"]:
            if anchored_at(data, anchor, skip, value):
                places.append(place)
    return sorted(set(places))


def judge_one(name, man_path, path, status, must_be_gone, audit_json):
    m = manifest(man_path)
    left = found(m, path)
    # the second reading: what else the file holds that is data by the
    # rules (a name a --mapping run left unused is no marker, but data)
    scan = hprofscan.verdict(path)
    data = ["%d markers: %s" % (len(left), "; ".join(left[:4]))] if left else []
    if scan.startswith("data "):
        data.append("hprofscan.py: " + scan.split(": ", 1)[1])
    why = []
    if data and status == 0:
        why.append("FALSE-CLEAN: the audit says clean, the file holds " + " and ".join(data))
    if data and must_be_gone:
        why.append("LEAK: -p privacy left " + " and ".join(data))
    if not data and status != 0:
        why.append("FALSE-NOT-CLEAN: the audit exits %d on a file holding no marker (%s)" % (status, scan))
    if audit_json:
        try:
            got = json.load(open(audit_json))["audit"]["unused_strings"]
        except (OSError, ValueError, KeyError, TypeError):
            got = None
        if got != m["unused_strings"]:
            why.append("COUNT: the audit counts %s unused STRINGs, the file holds %d"
                       % (got, m["unused_strings"]))
    return "bad %s: %s" % (name, " | ".join(why)) if why else "ok " + name


def judge(cases):
    for line in open(cases):
        f = line.rstrip("\n").split("\t")
        name, man_path, path, status, gone = f[0], f[1], f[2], int(f[3]), f[4] == "1"
        print(judge_one(name, man_path, path, status, gone, f[5] if len(f) > 5 else None))
    sys.stdout.flush()


def gzip_member(data, extra=None, name=None, comment=None):
    """one gzip member (RFC 1952) with the header fields given"""
    flags = (4 if extra else 0) | (8 if name else 0) | (16 if comment else 0)
    head = b"\x1f\x8b\x08" + bytes([flags]) + b"\0\0\0\0\0\xff"
    if extra:
        sub = b"PL" + struct.pack("<H", len(extra)) + extra
        head += struct.pack("<H", len(sub)) + sub
    if name:
        head += name + b"\0"
    if comment:
        head += comment + b"\0"
    c = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = c.compress(data) + c.flush()
    return head + body + struct.pack("<II", zlib.crc32(data), len(data) & 0xFFFFFFFF)


def zstd_frame(path):
    r = subprocess.run(["zstd", "-qc", "--no-check", path], stdout=subprocess.PIPE, check=True)
    return r.stdout


def skippable(data):
    return struct.pack("<II", 0x184D2A50, len(data)) + data


def containers(clean, out):
    data = open(clean, "rb").read()
    frame = zstd_frame(clean)
    made = {}
    for place in ("gzip-fname", "gzip-fcomment", "gzip-fextra", "gzip-empty-member-comment",
                  "gzip-trailing", "zstd-skippable-before", "zstd-skippable-after",
                  "zstd-trailing"):
        marker = ("PLANTED-%s" % place).encode("ascii")
        made[place] = (marker, {
            "gzip-fname": lambda: gzip_member(data, name=marker),
            "gzip-fcomment": lambda: gzip_member(data, comment=marker),
            "gzip-fextra": lambda: gzip_member(data, extra=marker),
            "gzip-empty-member-comment": lambda: gzip_member(data) + gzip_member(b"", comment=marker),
            "gzip-trailing": lambda: gzip_member(data) + marker,
            "zstd-skippable-before": lambda: skippable(marker) + frame,
            "zstd-skippable-after": lambda: frame + skippable(marker),
            "zstd-trailing": lambda: frame + marker,
        }[place]())
    for place, (marker, content) in made.items():
        path = "%s/%s.%s" % (out, place, "gz" if place.startswith("gzip") else "zst")
        open(path, "wb").write(content)
        with open(path + ".manifest", "w") as m:
            m.write("variant %s\nrequired %s %s\nunused_strings 0\n" % (place, marker.hex(), place))
        print(path)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "containers":
        containers(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "judge":
        judge(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "find":
        print("\n".join(found(manifest(sys.argv[2]), sys.argv[3])))
    else:
        sys.exit(__doc__)
