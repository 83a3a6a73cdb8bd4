#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""rootsbomb.py N OUT - writes an Android (JAVA PROFILE 1.0.3, 4-byte ids)
HPROF holding N ROOT_STICKY_CLASS roots, each naming a distinct object
that never comes, and no object at all: under `-p android-app` (a heap is
dropped) every root waits for its object, so what the filter holds grows
with N. The memory cap's test (tests/cli/cli_limits.sh) runs it against
--max-held."""
import struct
import sys

ROOTS_PER_SEGMENT = 1 << 20  # 5 MiB segments: well under the u4 length


def segment(first, n):
    """One HEAP_DUMP_SEGMENT of n sticky-class roots, ids first.."""
    body = bytearray(5 * n)
    body[0::5] = b"\x05" * n  # ROOT_STICKY_CLASS
    # ids 8-aligned, as object addresses are; big-endian u4
    ids = struct.pack(">%dI" % n, *range(8 * first + 8, 8 * (first + n) + 8, 8))
    for b in range(4):
        body[1 + b::5] = ids[b::4]
    return struct.pack(">BII", 0x1C, 0, len(body)) + bytes(body)


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    with open(out, "wb") as f:
        f.write(b"JAVA PROFILE 1.0.3\0" + struct.pack(">IQ", 4, 0))
        done = 0
        while done < n:
            k = min(ROOTS_PER_SEGMENT, n - done)
            f.write(segment(done, k))
            done += k
        f.write(struct.pack(">BII", 0x2C, 0, 0))  # HEAP_DUMP_END


if __name__ == "__main__":
    main()
