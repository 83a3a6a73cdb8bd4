#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/cli/privacy/plant.py - plants secrets where no analyzer looks (issue #35).

Usage: plant.py IN.hprof OUT.hprof [KIND...]
       plant.py --find FILE        (exit 1 when a secret is in FILE)

KINDs (all of them when none is given):
  top      a record of unknown tag 0x7f right after the file header
  heap     a record of unknown tag 0x7e after the first heap record, inside
           the heap dump region (between segments, or before HEAP_DUMP_END)
  used     a STRING of 1 MiB + 100 bytes that a STACK_FRAME uses as its
           method name
  unused   a STRING of 1 MiB + 100 bytes nothing uses
Each holds its secret as Latin-1, UTF-16LE and UTF-16BE. Prints, one a
line, "KIND OFFSET ID": where the record starts in OUT, and the string id
(or the tag) the audit is to name. --find searches a file (gzip and zstd
decompressed) for every secret in all three encodings.
"""
import gzip
import struct
import subprocess
import sys

SECRETS = {
    "top": "SECRET-UNKNOWN-TOP-3c9d",
    "heap": "SECRET-UNKNOWN-HEAP-8e1f",
    "used": "SECRET-LONG-USED-5a6b",
    "unused": "SECRET-LONG-UNUSED-9d0e",
}
LONG = (1 << 20) + 100


def forms(text):
    return [text.encode("latin-1"), text.encode("utf-16-le"), text.encode("utf-16-be")]


def body_of(kind):
    return b"|".join(forms(SECRETS[kind]))


def record(tag, body):
    return struct.pack(">BII", tag, 0, len(body)) + body


def string_id(idsize, k):
    return (0x7EC2E700 + 8 * k) if idsize == 4 else (0x7EC2E70000000000 + 8 * k)


def put_id(v, idsize):
    return v.to_bytes(idsize, "big")


def plant(src, dst, kinds):
    data = open(src, "rb").read()
    nul = data.index(b"\0")
    idsize = struct.unpack(">I", data[nul + 1:nul + 5])[0]
    hdr = nul + 1 + 4 + 8
    top, places = b"", []
    at = hdr
    if "top" in kinds:
        places.append(("top", at, 0x7F))
        rec = record(0x7F, body_of("top"))
        top += rec
        at += len(rec)
    for k, kind in enumerate(("used", "unused")):
        if kind not in kinds:
            continue
        sid = string_id(idsize, k)
        text = body_of(kind)
        text = text + b"x" * (LONG - 2 * len(text)) + text
        places.append((kind, at, sid))
        rec = record(0x01, put_id(sid, idsize) + text)
        top += rec
        at += len(rec)
        if kind == "used":  # STACK_FRAME: frame, method name, signature, source, serial, line
            frame = put_id(sid + 4, idsize) + put_id(sid, idsize) + put_id(0, idsize) * 2
            rec = record(0x04, frame + struct.pack(">Ii", 1, -1))
            top += rec
            at += len(rec)
    # the first heap record, and what follows it
    pos, heap_after = hdr, None
    while pos + 9 <= len(data):
        tag, _, length = struct.unpack(">BII", data[pos:pos + 9])
        pos += 9 + length
        if tag in (0x0C, 0x1C):
            heap_after = pos
            break
    view = memoryview(data)
    with open(dst, "wb") as out:
        out.write(view[:hdr])
        out.write(top)
        if "heap" in kinds:
            if heap_after is None:
                sys.exit("plant.py: %s has no heap dump record" % src)
            out.write(view[hdr:heap_after])
            places.append(("heap", heap_after + len(top), 0x7E))
            out.write(record(0x7E, body_of("heap")))
            out.write(view[heap_after:])
        else:
            out.write(view[hdr:])
    for kind, off, ident in places:
        print(kind, off, ident)


def read_any(path):
    raw = open(path, "rb").read()
    if raw[:2] == b"\x1f\x8b":
        return gzip.decompress(raw)
    if raw[:4] == b"\x28\xb5\x2f\xfd":
        return subprocess.run(["zstd", "-dcq"], input=raw, stdout=subprocess.PIPE,
                              check=True).stdout
    return raw


def find(path):
    data = read_any(path)
    found = [(kind, f) for kind, text in SECRETS.items() for f in forms(text) if f in data]
    for kind, f in found:
        print("%s: the %s secret is there (%r)" % (path, kind, f[:12]))
    return 1 if found else 0


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--find":
        sys.exit(find(sys.argv[2]))
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kinds = sys.argv[3:] or list(SECRETS)
    for k in kinds:
        if k not in SECRETS:
            sys.exit("plant.py: unknown kind %s" % k)
    plant(sys.argv[1], sys.argv[2], kinds)


if __name__ == "__main__":
    main()
