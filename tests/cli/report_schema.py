#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/cli/report_schema.py - checks an hprof-strip JSON report (--stats-file,
--stats=json) against schema 1 as the man page lists it.

Usage: report_schema.py HEADER REPORT.json [KEY=VALUE...]
HEADER is src/lib/hprof_strip.h: the counters are read from its
HS_STATS_COUNTERS list, so a counter missing from the JSON fails. Each
KEY=VALUE (KEY a dotted path, VALUE JSON) must hold too, e.g.
exit_status=3 error.status='"truncated"'. Prints what is wrong; exit 1 then.
"""
import json
import re
import sys



class Kind:
    """A type in the schema (a plain string there is a literal value)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return self.name


INT, NUM, STR, BOOL, NULL = (Kind(n) for n in ("int", "number", "string", "bool", "null"))


class Opt:
    """A member that may be absent (a flag written only when true)."""

    def __init__(self, spec):
        self.spec = spec


# a name whose bytes were not UTF-8 (replaced by U+FFFD): flagged beside it
FLAGGED = Opt(True)
SINT = Kind("signed int")  # error.code: the library's statuses are negative


def macro(text, name):
    """The body of the multi-line #define `name`: its lines up to the first
    one that does not end in a backslash."""
    lines = text[text.index("#define " + name):].split("\n")
    body = []
    for line in lines:
        body.append(line)
        if not line.rstrip().endswith("\\"):
            break
    return "\n".join(body)


def counters(header):
    """The 0.1 counters, then those added since (HS_STATS_COUNTERS is the
    two lists one after the other)."""
    text = open(header).read()
    found = []
    for name in ("HS_STATS_COUNTERS_0_1(X)", "HS_STATS_COUNTERS_ADDED(X)"):
        found += re.findall(r"X\((\w+), (HS_\w+),", macro(text, name))
    return found


HEAPS = ("app", "zygote", "image", "default", "other")
FINDING_KINDS = ("field", "static", "constant", "class", "array", "record", "unused_string",
                 "long_string", "reserved_ids", "container")


def side(output=False):
    s = {"name": (STR, NULL), "name_invalid_utf8": FLAGGED, "hprof_bytes": INT, "compressed_bytes": (INT, NULL),
         "compression": ("gzip", "zstd", NULL),
         "sha256": (NULL, {"file": STR, "file_bytes": INT, "hprof": STR, "hprof_bytes": INT})}
    if output:  # whether the name holds this run's complete dump
        s["kept"] = BOOL
    return s


# error.status: the library's statuses (src/lib/report.c's table), "signal",
# the CLI's "timeout" (--timeout, exit 124) and the command's own for --jvm
# (src/cli/jvm.c); which of them a retry may cure (the man page, EXIT
# STATUS); those whose error.code is null (no library status)
STATUSES = ("malformed", "truncated", "unsupported", "read", "write", "limit", "nomem",
            "usage", "signal", "cancelled", "timeout", "jvm-target", "jvm-dump")
RETRYABLE = ("read", "write", "nomem", "signal", "cancelled", "timeout", "jvm-dump")
NO_CODE = ("signal", "timeout", "jvm-target", "jvm-dump")


def schema(header):
    row = {"class": STR, "class_invalid_utf8": FLAGGED, "instances": INT, "bytes": INT}
    types = ("boolean", "char", "float", "double", "byte", "short", "int", "long")
    count = {n: (INT, NULL) if k == "HS_OFFSET" else INT for n, k in counters(header)}
    return {
        "schema": 1,
        "tool": {"name": "hprof-strip", "version": STR},
        "mode": ("filter", "audit"),
        "exit_status": INT,
        "error": (NULL, {"code": (SINT, NULL), "status": STATUSES, "retryable": BOOL,
                         "signal": (STR, NULL), "offset": (INT, NULL), "record_offset": (INT, NULL),
                         "tag": (INT, NULL), "subtag": (INT, NULL), "message": STR}),
        "input": side(),
        "output": (NULL, side(True)),
        "presets": [STR],
        "rule_files": [STR],
        "time": {"wall_seconds": NUM, "user_seconds": NUM, "sys_seconds": NUM},
        "counters": count,
        "duplicates": {t: {"arrays": INT, "bytes": INT} for t in types},
        "duplicates_top": [{"type": types, "length_bytes": INT, "copies": INT,
                            "wasted": INT}],
        "audit": (NULL, {"clean": BOOL, "nonzero_array_bytes": INT,
                         "first_nonzero_array": (INT, NULL), "nonzero_field_bytes": INT,
                         "first_nonzero_field": (INT, NULL), "unused_strings": INT,
                         "unknown_records": INT, "nonzero_string_bytes": INT,
                         "reserved_ids": INT, "container_findings": INT, "kept_bytes": INT,
                         "verifier": STR, "kept_on_purpose": STR,
                         "findings": [{"kind": FINDING_KINDS, "name": STR,
                                       "name_invalid_utf8": FLAGGED, "id": INT,
                                       "count": INT, "bytes": INT,
                                       "first_offset": INT}]}),
        "warnings": [STR],
        "histogram": (NULL, {"input": [(row, dict(row, heap=HEAPS))],
                             "output": [(row, dict(row, heap=HEAPS))]}),
    }


def matches(v, s):
    """True when value v fits spec s (no message: for alternatives)."""
    return not check(v, s, "", [])


def check(v, s, path, errs):
    if s is INT:
        ok = type(v) is int and v >= 0
    elif s is SINT:
        ok = type(v) is int
    elif s is NUM:
        ok = type(v) in (int, float) and v >= 0
    elif s is STR:
        ok = type(v) is str
    elif s is BOOL:
        ok = type(v) is bool
    elif s is NULL:
        ok = v is None
    elif isinstance(s, tuple):
        ok = any(matches(v, alt) for alt in s)
    elif isinstance(s, list):
        ok = type(v) is list
        for i, item in enumerate(v if ok else []):
            check(item, s[0], "%s[%d]" % (path, i), errs)
    elif isinstance(s, dict):
        ok = type(v) is dict
        if ok:
            for k in sorted(set(s) - set(v)):
                if not isinstance(s[k], Opt):
                    errs.append("%s.%s: missing" % (path, k))
            for k in sorted(set(v) - set(s)):
                errs.append("%s.%s: not in the schema" % (path, k))
            for k in sorted(set(s) & set(v)):
                check(v[k], s[k].spec if isinstance(s[k], Opt) else s[k], path + "." + k, errs)
    else:  # a literal
        ok = v == s and type(v) is type(s)
    if not ok:
        errs.append("%s: %r does not fit %r" % (path or "report", v, s))
    return errs


def main():
    header, report = sys.argv[1], sys.argv[2]
    try:
        lines = open(report, encoding="utf-8").read().splitlines()
        doc = json.loads(lines[-1])  # --stats=json: the last line of stderr
        if len(lines) != 1 and not report.endswith(".err"):
            raise ValueError("%d lines, not one" % len(lines))
    except (ValueError, IndexError, OSError) as e:
        print("%s: not one JSON document: %s" % (report, e))
        return 1
    errs = check(doc, schema(header), "", [])
    err = doc.get("error") if isinstance(doc, dict) else None
    if isinstance(err, dict) and err.get("status") in STATUSES:
        st = err["status"]
        if err.get("retryable") is not (st in RETRYABLE):
            errs.append("error.retryable is %r for status %s" % (err.get("retryable"), st))
        if (err.get("signal") is None) == (st == "signal"):
            errs.append("error.signal is %r for status %s" % (err.get("signal"), st))
        if (err.get("code") is None) != (st in NO_CODE):
            errs.append("error.code is %r for status %s" % (err.get("code"), st))
    for want in sys.argv[3:]:
        key, value = want.split("=", 1)
        v = doc
        for part in key.split("."):
            v = v.get(part) if isinstance(v, dict) else None
        if v != json.loads(value):
            errs.append("%s is %r, expected %s" % (key, v, value))
    for e in errs:
        print("%s: %s" % (report, e))
    return 1 if errs else 0


if __name__ == "__main__":
    sys.exit(main())
