# SPDX-License-Identifier: Apache-2.0
"""tests/cli/gz_members.py FILE: checks that FILE is laid out as HotSpot's -gz
dumps are, which MAT's chunked reader needs to seek member by member: the
first member's header holds exactly the FCOMMENT 'HPROF BLOCKSIZE=1048576'
and nothing else (no name, extra field or time), later headers hold nothing,
and every member but the last inflates to exactly 1048576 bytes. Walks the
members with zlib, not with hprof-strip's own reader. Prints one line and
exits 0 when it holds, 1 (with the reason) when not."""
import struct
import sys
import zlib

BLOCK = 1048576
COMMENT = b"HPROF BLOCKSIZE=1048576"


def member_header(buf, at, first):
    """The offset just past the header at `at`; raises on anything but the
    layout above."""
    if buf[at:at + 3] != b"\x1f\x8b\x08":
        raise ValueError("no gzip member at byte %d" % at)
    flg, mtime = buf[at + 3], struct.unpack("<I", buf[at + 4:at + 8])[0]
    want = 0x10 if first else 0
    if flg != want:
        raise ValueError("member at byte %d: FLG 0x%02x, expected 0x%02x" % (at, flg, want))
    if mtime:
        raise ValueError("member at byte %d carries a time (%d)" % (at, mtime))
    at += 10
    if first:
        end = buf.index(b"\0", at)
        if buf[at:end] != COMMENT:
            raise ValueError("first member's comment is %r" % buf[at:end])
        at = end + 1
    return at


def main(path):
    buf = open(path, "rb").read()
    at, sizes = 0, []
    while at < len(buf):
        at = member_header(buf, at, not sizes)
        d = zlib.decompressobj(-15)
        out = d.decompress(buf[at:])
        if not d.eof:
            raise ValueError("member %d is cut" % len(sizes))
        at = len(buf) - len(d.unused_data)
        crc, isize = struct.unpack("<II", buf[at:at + 8])
        if crc != zlib.crc32(out) or isize != len(out) & 0xFFFFFFFF:
            raise ValueError("member %d: CRC or length wrong" % len(sizes))
        at += 8
        sizes.append(len(out))
    if not sizes:
        raise ValueError("no member")
    short = [i for i, n in enumerate(sizes[:-1]) if n != BLOCK]
    if short:
        raise ValueError("members %s are not %d bytes" % (short[:5], BLOCK))
    print("%d members, the last %d bytes" % (len(sizes), sizes[-1]))


if __name__ == "__main__":
    try:
        main(sys.argv[1])
    except ValueError as e:
        print("%s: %s" % (sys.argv[1], e))
        sys.exit(1)
