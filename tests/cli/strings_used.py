# SPDX-License-Identifier: Apache-2.0
"""strings_used.py DUMP: reads an HPROF file on its own (not through
hprof-strip) and prints one line,
    strings=N unused=N late=N between=N
N STRING records; those no record of the file names (LOAD_CLASS,
STACK_FRAME, START_THREAD, CLASS_DUMP field names, HEAP_DUMP_INFO); names
used before their STRING; STRINGs between two heap-dump records."""
import struct
import sys

SIZES = {4: 1, 5: 2, 6: 4, 7: 8, 8: 1, 9: 2, 10: 4, 11: 8}


def main(path):
    d = open(path, 'rb').read()
    nul = d.index(b'\0')
    ids = struct.unpack('>I', d[nul + 1:nul + 5])[0]
    at = nul + 13
    rid = lambda p: int.from_bytes(d[p:p + ids], 'big')
    vsize = lambda t: ids if t == 2 else SIZES[t]
    defined, used = set(), set()
    late = strings = between = since_heap = 0
    heap = False

    def use(i):
        nonlocal late
        if i and i not in defined:
            late += 1
        used.add(i)

    roots = {0xFF: ids, 1: 2 * ids, 2: ids + 8, 3: ids + 8, 4: ids + 4, 5: ids, 6: ids + 4,
             7: ids, 8: ids + 8, 0x89: ids, 0x8A: ids, 0x8B: ids, 0x8C: ids, 0x8D: ids,
             0x8E: ids + 8, 0x90: ids}
    while at + 9 <= len(d):
        tag = d[at]
        n = struct.unpack('>I', d[at + 5:at + 9])[0]
        b = at + 9
        if tag == 0x01:
            strings += 1
            since_heap += heap
            defined.add(rid(b))
        elif tag == 0x02:
            use(rid(b + 8 + ids))
        elif tag == 0x04:
            for k in (1, 2, 3):
                use(rid(b + k * ids))
        elif tag == 0x0A:
            for k in (1, 2, 3):
                use(rid(b + 8 + k * ids))
        elif tag == 0x2C:
            heap = False
        elif tag in (0x0C, 0x1C):
            between += since_heap
            since_heap = 0
            heap = True
            p, end = b, b + n
            while p < end:
                t = d[p]
                p += 1
                if t in roots:
                    p += roots[t]
                elif t == 0xFE:
                    use(rid(p + 4))
                    p += 4 + ids
                elif t == 0x20:
                    p += 7 * ids + 8
                    k, p = struct.unpack('>H', d[p:p + 2])[0], p + 2
                    for _ in range(k):  # constant pool: index, type, value
                        p += 3 + vsize(d[p + 2])
                    k, p = struct.unpack('>H', d[p:p + 2])[0], p + 2
                    for _ in range(k):  # statics: name, type, value
                        use(rid(p))
                        p += ids + 1 + vsize(d[p + ids])
                    k, p = struct.unpack('>H', d[p:p + 2])[0], p + 2
                    for _ in range(k):  # instance fields: name, type
                        use(rid(p))
                        p += ids + 1
                elif t == 0x21:
                    p += 2 * ids + 4
                    p += 4 + struct.unpack('>I', d[p:p + 4])[0]
                elif t == 0x22:
                    p += ids + 4
                    p += 4 + ids + ids * struct.unpack('>I', d[p:p + 4])[0]
                elif t == 0x23:
                    p += ids + 4
                    p += 5 + vsize(d[p + 4]) * struct.unpack('>I', d[p:p + 4])[0]
                elif t == 0xC3:
                    p += ids + 9
                else:
                    sys.exit('%s: sub-record tag 0x%x at %d' % (path, t, p - 1))
        at = b + n
    print('strings=%d unused=%d late=%d between=%d' % (strings, len(defined - used), late, between))


main(sys.argv[1])
