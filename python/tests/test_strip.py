# SPDX-License-Identifier: Apache-2.0
"""strip(): the same bytes and report as the hprof-strip command."""
import gzip
import io
import os
import pathlib

import pytest

from conftest import ART, JVM, JVM7, JVM_GZ, decompress_zstd, read


@pytest.mark.parametrize("preset,dump", [
    ("default", JVM), ("none", JVM), ("privacy", JVM), ("android-app", ART),
    ("default", JVM7), ("privacy", ART),
])
def test_path_to_path_matches_cli(hs, cli, tmp_path, preset, dump):
    mine, theirs = tmp_path / "py.hprof", tmp_path / "cli.hprof"
    report = hs.strip(dump, mine, preset=preset)
    cli("-p", preset, dump, "-o", str(theirs))
    assert read(mine) == read(theirs)
    assert report["exit_status"] == 0
    assert report["error"] is None
    assert report["presets"] == [preset]
    if preset == "none":
        assert read(mine) == read(dump)


def test_issue_check_gz_to_zst_privacy(hs, cli, tmp_path):
    """The issue's check: a .gz dump to a .zst one with privacy, byte for
    byte the command's (same thread count: zstd's frame does not depend on
    it past one worker, but say it)."""
    mine, theirs = tmp_path / "py.hprof.zst", tmp_path / "cli.hprof.zst"
    report = hs.strip(JVM_GZ, mine, preset="privacy", compress="zstd", threads=2)
    cli("-p", "privacy", "-T", "2", JVM_GZ, "-o", str(theirs))
    assert report["exit_status"] == 0
    assert read(mine) == read(theirs)
    assert report["input"]["compression"] == "gzip"
    assert report["output"]["compression"] == "zstd"
    plain = tmp_path / "plain.hprof"
    cli("-p", "privacy", JVM_GZ, "-o", str(plain))
    assert decompress_zstd(mine) == read(plain)
    assert report["counters"]["bytes_out"] == os.path.getsize(plain)


def test_gzip_output(hs, cli, tmp_path):
    mine, theirs = tmp_path / "py.hprof.gz", tmp_path / "cli.hprof.gz"
    report = hs.strip(JVM, mine, compress="gzip", threads=2)
    cli("--gzip", "-T", "2", JVM, "-o", str(theirs))
    assert read(mine) == read(theirs)
    plain = tmp_path / "plain.hprof"
    cli(JVM, "-o", str(plain))
    assert gzip.decompress(read(mine)) == read(plain)
    assert report["output"]["compression"] == "gzip"
    assert report["output"]["compressed_bytes"] == os.path.getsize(mine)


def test_compression_follows_the_suffix_unless_told(hs, tmp_path):
    hs.strip(JVM, tmp_path / "a.hprof.zst")
    assert read(tmp_path / "a.hprof.zst")[:4] == b"\x28\xb5\x2f\xfd"
    hs.strip(JVM, tmp_path / "b.hprof.gz")
    assert read(tmp_path / "b.hprof.gz")[:2] == b"\x1f\x8b"
    hs.strip(JVM, tmp_path / "c.hprof.zst", compress="none")
    assert read(tmp_path / "c.hprof.zst")[:18] == b"JAVA PROFILE 1.0.2"
    out = io.BytesIO()
    hs.strip(JVM, out, compress="zstd")
    assert out.getvalue()[:4] == b"\x28\xb5\x2f\xfd"


def test_level(hs, tmp_path):
    fast, small = tmp_path / "1.hprof.zst", tmp_path / "19.hprof.zst"
    hs.strip(JVM, fast, compress="zstd", level=1, threads=1)
    hs.strip(JVM, small, compress="zstd", level=19, threads=1)
    assert decompress_zstd(fast) == decompress_zstd(small)
    assert os.path.getsize(small) < os.path.getsize(fast)


def test_gz_input(hs, cli, tmp_path):
    mine, theirs = tmp_path / "py.hprof", tmp_path / "cli.hprof"
    report = hs.strip(JVM_GZ, mine)
    cli(JVM_GZ, "-o", str(theirs))
    assert read(mine) == read(theirs)
    assert report["input"]["compressed_bytes"] == os.path.getsize(JVM_GZ)


def test_bytesio_in_and_out(hs, cli, tmp_path):
    theirs = tmp_path / "cli.hprof"
    cli("-p", "privacy", JVM, "-o", str(theirs))
    src, dst = io.BytesIO(read(JVM)), io.BytesIO()
    report = hs.strip(src, dst, preset="privacy")
    assert dst.getvalue() == read(theirs)
    assert report["counters"]["bytes_in"] == os.path.getsize(JVM)
    assert report["counters"]["bytes_out"] == len(dst.getvalue())


def test_bytesio_gz_and_zst(hs, cli, tmp_path):
    """Compressed data through the callbacks both ways."""
    out = io.BytesIO()
    hs.strip(io.BytesIO(read(JVM_GZ)), out, compress="zstd")
    theirs = tmp_path / "cli.hprof"
    cli(JVM_GZ, "-o", str(theirs))
    (tmp_path / "py.zst").write_bytes(out.getvalue())
    assert decompress_zstd(tmp_path / "py.zst") == read(theirs)


def test_real_file_objects_from_where_they_stand(hs, cli, tmp_path):
    """By descriptor, from the object's position, not the descriptor's:
    the input after a prefix already read, the output after a header
    already written (and still in the object's buffer)."""
    theirs = tmp_path / "cli.hprof"
    cli(JVM, "-o", str(theirs))
    both = tmp_path / "prefixed"
    both.write_bytes(b"not a dump\n" + read(JVM))
    with open(both, "rb") as src, open(tmp_path / "out", "wb") as dst:
        assert src.readline() == b"not a dump\n"  # the buffer has read far ahead
        dst.write(b"HEADER")
        report = hs.strip(src, dst)
        assert src.tell() == os.path.getsize(both)
        dst.write(b"TRAILER")
    assert read(tmp_path / "out") == b"HEADER" + read(theirs) + b"TRAILER"
    assert report["exit_status"] == 0


def test_unbuffered_pipe_objects(hs, cli, tmp_path):
    """A pipe by descriptor (raw, unbuffered) in, a buffered pipe out."""
    import threading
    theirs = tmp_path / "cli.hprof"
    cli(JVM, "-o", str(theirs))
    r_in, w_in = os.pipe()
    r_out, w_out = os.pipe()
    got = []

    def feed():
        with open(w_in, "wb") as f:
            f.write(read(JVM))

    def drain():
        with open(r_out, "rb") as f:
            got.append(f.read())
    threads = [threading.Thread(target=feed), threading.Thread(target=drain)]
    for t in threads:
        t.start()
    with open(r_in, "rb", buffering=0) as src, open(w_out, "wb") as dst:
        hs.strip(src, dst)
    for t in threads:
        t.join()
    assert got[0] == read(theirs)


class ReadOnly:
    """A file object with read() alone: no readinto, no fileno."""

    def __init__(self, data):
        self.f = io.BytesIO(data)
        self.calls = 0

    def read(self, n):
        self.calls += 1
        return self.f.read(min(n, 65536))


class WriteOnly:
    """write() returning None, as hand-made writers do."""

    def __init__(self):
        self.parts = []

    def write(self, b):
        self.parts.append(bytes(b))


def test_hand_made_file_objects(hs, cli, tmp_path):
    theirs = tmp_path / "cli.hprof"
    cli(JVM7, "-o", str(theirs))
    src, dst = ReadOnly(read(JVM7)), WriteOnly()
    hs.strip(src, dst)
    assert b"".join(dst.parts) == read(theirs)
    assert src.calls > 1  # streamed, not read whole


def test_exception_in_a_callback_is_raised(hs):
    class Boom(Exception):
        pass

    class Failing(ReadOnly):
        def read(self, n):
            if self.calls == 3:
                raise Boom("disk on fire")
            return super().read(n)

    with pytest.raises(Boom, match="disk on fire"):
        hs.strip(Failing(read(JVM)), io.BytesIO())

    class Full:
        def write(self, b):
            raise OSError(28, "No space left on device")

    with pytest.raises(OSError, match="No space left"):
        hs.strip(JVM, Full())


def test_report(hs, tmp_path):
    out = tmp_path / "o.hprof"
    report = hs.strip(JVM, out, histogram=True)
    assert report["schema"] == 1
    assert report["mode"] == "filter"
    assert report["tool"]["name"] == "hprof-strip"
    assert report["exit_status"] == 0
    c = report["counters"]
    assert c["bytes_in"] == os.path.getsize(JVM)
    assert c["bytes_out"] == os.path.getsize(out)
    assert c["heap_dumps"] == 1 and c["instances"] > 0 and c["payload_bytes_zeroed"] > 0
    assert report["input"]["name"] == JVM
    assert report["output"]["name"] == str(out)
    assert report["output"]["kept"] is True
    assert report["histogram"]["input"] and report["histogram"]["output"]
    assert hs.strip(JVM, tmp_path / "p.hprof")["histogram"] is None


def test_report_matches_cli(hs, cli, tmp_path):
    """The same document as --stats-file, times and digests of the
    output's name apart."""
    import json
    report = hs.strip(JVM_GZ, tmp_path / "py.hprof.zst", preset="privacy", threads=2)
    cli("-p", "privacy", "-T", "2", JVM_GZ, "-o", str(tmp_path / "cli.hprof.zst"),
        "--stats-file", str(tmp_path / "r.json"))
    theirs = json.loads(read(tmp_path / "r.json"))
    for r in (report, theirs):
        del r["time"]
        r["output"]["name"] = None
    assert report == theirs


def test_rules_text_and_path(hs, cli, tmp_path):
    rules = "fields zero\nkeep-field java.lang.String.coder\n"
    rf = tmp_path / "r.rules"
    rf.write_text(rules)
    cli("-r", str(rf), JVM, "-o", str(tmp_path / "cli.hprof"))
    hs.strip(JVM, tmp_path / "text.hprof", rules=rules)
    hs.strip(JVM, tmp_path / "path.hprof", rules=pathlib.Path(rf))
    assert read(tmp_path / "text.hprof") == read(tmp_path / "cli.hprof")
    assert read(tmp_path / "path.hprof") == read(tmp_path / "cli.hprof")


def test_truncated_input(hs, tmp_path):
    cut = tmp_path / "cut.hprof"
    data = read(JVM)
    cut.write_bytes(data[:len(data) // 2])
    out = tmp_path / "out.hprof"
    with pytest.raises(hs.Error) as e:
        hs.strip(cut, out)
    err = e.value
    assert err.status == "truncated"
    assert err.exit_status == 3
    assert isinstance(err.offset, int) and 0 < err.offset <= len(data) // 2
    assert err.report["exit_status"] == 3
    assert err.report["error"]["status"] == "truncated"
    assert err.report["output"]["kept"] is False
    assert "salvage" in str(err)
    assert not out.exists()
    assert os.listdir(tmp_path) == ["cut.hprof"]


def test_error_pickles_whole(hs, tmp_path):
    """An Error crosses a process boundary (a Dask client, a
    multiprocessing parent) with its status, offset and report: the
    default pickling of an exception called __init__ with the message
    alone, a TypeError on loading."""
    import pickle
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:1000])
    with pytest.raises(hs.Error) as e:
        hs.strip(cut, tmp_path / "out.hprof")
    err = pickle.loads(pickle.dumps(e.value))
    assert type(err) is hs.Error
    assert str(err) == str(e.value)
    for a in ("message", "status", "exit_status", "offset", "report", "retryable"):
        assert getattr(err, a) == getattr(e.value, a)
    assert err.status == "truncated" and err.report["error"]["status"] == "truncated"


def test_salvage(hs, cli, tmp_path):
    cut = tmp_path / "cut.hprof"
    data = read(JVM)
    cut.write_bytes(data[:len(data) // 2])
    report = hs.strip(cut, tmp_path / "out.hprof.zst", salvage=True)
    assert report["exit_status"] == 6
    assert report["error"]["status"] == "truncated"
    assert report["output"]["kept"] is True
    p = cli("--salvage", str(cut), "-o", str(tmp_path / "cli.hprof.zst"), check=False)
    assert p.returncode == 6
    assert read(tmp_path / "out.hprof.zst") == read(tmp_path / "cli.hprof.zst")
    cli(str(tmp_path / "out.hprof.zst"), "-o", "/dev/null")  # a whole dump, whole frame


def test_salvage_past_corrupt_data_keeps_output_and_raises(hs, cli, tmp_path):
    """Damage that is no cut (an unknown record tag): the input is invalid,
    an Error, but with salvage the records before it are a valid dump kept
    as the command keeps it (exit 1, output kept). The output was removed
    before (the Error path removed the temporary whatever salvage said)."""
    data = read(JVM)
    at = data.index(b"\0", 0, 64) + 1 + 4 + 8  # past the file header
    for _ in range(20):  # past twenty whole records
        at += 9 + int.from_bytes(data[at + 5:at + 9], "big")
    # an unknown tag, then a HEAP_SUMMARY of an impossible length: corrupt
    junk = b"\x73" + bytes(8) + b"\x07" + bytes(4) + (1751742465).to_bytes(4, "big")
    bad = tmp_path / "bad.hprof"
    bad.write_bytes(data[:at] + junk + data[at:])
    out = tmp_path / "out.hprof"
    with pytest.raises(hs.Error) as ei:
        hs.strip(bad, out, salvage=True)
    err = ei.value
    assert err.status == "malformed"
    assert err.report["exit_status"] == 1
    assert err.report["output"]["kept"] is True
    assert out.exists()
    p = cli("--salvage", str(bad), "-o", str(tmp_path / "cli.hprof"), check=False)
    assert p.returncode == 1
    # the message names the file as the command's does (the library says "input")
    assert err.report["error"]["message"].startswith(str(bad) + " (invalid, not cut): ")
    assert err.report["error"]["message"] in p.stderr.decode()
    assert read(out) == read(tmp_path / "cli.hprof")
    cli(str(out), "-o", "/dev/null")  # a whole, valid dump
    # without salvage: the same Error, and no output
    with pytest.raises(hs.Error) as ei:
        hs.strip(bad, tmp_path / "none.hprof")
    assert ei.value.report["output"]["kept"] is False
    assert not (tmp_path / "none.hprof").exists()


HEADER = b"JAVA PROFILE 1.0.2\0\0\0\0\x08" + b"\0" * 8


@pytest.mark.parametrize("data,status,exit_status,offset", [
    (b"GARBAGE" * 1000, "unsupported", 1, None),
    (HEADER[:-9] + b"\x07" + b"\0" * 8, "unsupported", 1, 19),  # 7-byte ids
    # a STRING shorter than an id
    (HEADER + b"\x01" + b"\0" * 4 + b"\0\0\0\x03abc", "malformed", 1, 36),
])
def test_bad_input(hs, tmp_path, data, status, exit_status, offset):
    src = tmp_path / "bad.hprof"
    src.write_bytes(data)
    with pytest.raises(hs.Error) as e:
        hs.strip(src, tmp_path / "out.hprof")
    assert e.value.status == status
    assert e.value.exit_status == exit_status
    assert e.value.retryable is False
    if offset is not None:
        assert e.value.offset == offset
    assert e.value.report is None or e.value.report["exit_status"] == exit_status
    assert os.listdir(tmp_path) == ["bad.hprof"]


def test_missing_input(hs, tmp_path):
    with pytest.raises(hs.Error) as e:
        hs.strip(tmp_path / "nothing.hprof", tmp_path / "out.hprof")
    assert e.value.status == "read"
    assert e.value.exit_status == 4
    assert os.listdir(tmp_path) == []


def test_usage_errors(hs, tmp_path):
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, tmp_path / "o.hprof", preset="nosuch")
    assert (e.value.status, e.value.exit_status) == ("usage", 2)
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, tmp_path / "o.hprof", rules="frobnicate everything\n")
    assert (e.value.status, e.value.exit_status) == ("usage", 2)
    assert os.listdir(tmp_path) == []
    with pytest.raises(ValueError):
        hs.strip(JVM, tmp_path / "o.hprof", compress="xz")
    with open(JVM, "r", encoding="latin-1") as text:
        with pytest.raises(TypeError):
            hs.strip(text, io.BytesIO())


def test_mapping(hs, cli, tmp_path):
    """A mapping restores names: the command's --obfuscate-names makes an
    obfuscated dump and its R8 mapping, mapping= gives the names back as
    --mapping does."""
    obf, names = tmp_path / "obf.hprof", tmp_path / "names.txt"
    cli("--obfuscate-names", str(names), JVM, "-o", str(obf))
    theirs = tmp_path / "cli.hprof"
    cli("--mapping", str(names), str(obf), "-o", str(theirs))
    report = hs.strip(obf, tmp_path / "py.hprof", mapping=names)
    assert read(tmp_path / "py.hprof") == read(theirs)
    assert report["counters"]["mapping_classes_renamed"] > 0
    with pytest.raises(hs.Error) as e:
        hs.strip(obf, tmp_path / "x.hprof", mapping=tmp_path / "missing.txt")
    assert e.value.exit_status == 2
    # the caller's mistake, as the command says: never "read", retried
    assert (e.value.status, e.value.retryable) == ("usage", False)
    assert "missing.txt" in e.value.message
    assert not (tmp_path / "x.hprof").exists()
    with pytest.raises(hs.Error) as e:  # the mapping is a file the run reads
        hs.strip(obf, names, mapping=names, force=True)
    assert e.value.status == "usage"
    assert read(names).startswith(b"#") or b" -> " in read(names)


def test_runs_in_parallel_threads(hs, cli, tmp_path):
    """Each run has objects of its own, and the library runs without the
    GIL: two at once from two threads, callbacks and all, give what one
    does alone."""
    import threading
    theirs = tmp_path / "cli.hprof"
    cli("-p", "privacy", JVM_GZ, "-o", str(theirs))
    outs, errors = [io.BytesIO(), io.BytesIO()], []

    def one(i):
        try:
            src = io.BytesIO(read(JVM_GZ)) if i else JVM_GZ
            hs.strip(src, outs[i], preset="privacy")
        except BaseException as e:  # noqa: B902 - reported below
            errors.append(e)
    threads = [threading.Thread(target=one, args=(i,)) for i in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert outs[0].getvalue() == outs[1].getvalue() == read(theirs)


def test_the_library_names_the_files(hs, tmp_path, monkeypatch):
    """The paths reach the library (hs_job.in_name, out_name): its report
    and its messages name them, with the package's own renaming for older
    libraries (_name_in) turned off."""
    monkeypatch.setattr(hs, "_name_in", lambda *a: None)
    out = tmp_path / "out.hprof"
    report = hs.strip(JVM, out)
    assert report["input"]["name"] == str(JVM)
    assert report["output"]["name"] == str(out)
    assert hs.audit(JVM)["input"]["name"] == str(JVM)
    cut = tmp_path / "cut.hprof"
    cut.write_bytes(read(JVM)[:100000])
    with pytest.raises(hs.Error) as ei:
        hs.strip(cut, tmp_path / "x.hprof")
    assert ei.value.report["input"]["name"] == str(cut)
    assert ei.value.args[0].startswith(str(cut) + ": "), ei.value.args[0]
    # a file object has no name to give: null, as for a pipe
    with open(JVM, "rb") as f:
        assert hs.strip(f, tmp_path / "f.hprof")["input"]["name"] is None
