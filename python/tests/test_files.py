# SPDX-License-Identifier: Apache-2.0
"""An output named by path follows the command's file rule (hprof-strip(1),
FILES): a temporary name beside it, renamed into place when complete and
replacing nothing, removed on failure; never the input."""
import io
import os
import stat

import pytest

from conftest import JVM, read, temps


def test_written_under_a_temporary_name(hs, tmp_path):
    seen = []

    class Watching(io.BytesIO):
        def readinto(self, b):
            seen.append(sorted(os.listdir(tmp_path)))
            return super().readinto(b[:1 << 16])

    out = tmp_path / "out.hprof"
    hs.strip(Watching(read(JVM)), out)
    during = seen[len(seen) // 2]
    assert "out.hprof" not in during
    assert len(during) == 1 and during[0].startswith("out.hprof.tmp-")
    assert os.listdir(tmp_path) == ["out.hprof"]


def test_existing_output_is_refused_without_force(hs, tmp_path):
    out = tmp_path / "out.hprof"
    out.write_bytes(b"precious")
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, out)
    assert (e.value.status, e.value.exit_status) == ("usage", 2)
    assert e.value.report is None
    assert read(out) == b"precious"
    assert temps(tmp_path) == []
    hs.strip(JVM, out, force=True)
    assert read(out)[:18] == b"JAVA PROFILE 1.0.2"
    assert os.listdir(tmp_path) == ["out.hprof"]


def test_input_is_never_replaced(hs, tmp_path):
    src = tmp_path / "in.hprof"
    src.write_bytes(read(JVM))
    os.link(src, tmp_path / "link.hprof")
    os.symlink(src, tmp_path / "sym.hprof")
    for dst in (src, tmp_path / "link.hprof", tmp_path / "sym.hprof"):
        with pytest.raises(hs.Error) as e:
            hs.strip(src, dst, force=True)
        assert e.value.status == "usage"
    with open(src, "rb") as f, pytest.raises(hs.Error):
        hs.strip(f, tmp_path / "link.hprof", force=True)
    assert read(src) == read(JVM)
    assert temps(tmp_path) == []


def test_directory_is_refused(hs, tmp_path):
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, tmp_path, force=True)
    assert e.value.status == "usage"
    assert os.listdir(tmp_path) == []


def test_failure_leaves_nothing(hs, tmp_path):
    data = read(JVM)
    for i, cut in enumerate((len(data) // 3, 100, 31)):
        src = tmp_path / f"cut{i}.hprof"
        src.write_bytes(data[:cut])
        with pytest.raises(hs.Error):
            hs.strip(src, tmp_path / f"out{i}.hprof.zst")
    assert temps(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["cut0.hprof", "cut1.hprof", "cut2.hprof"]

    class Boom(Exception):
        pass

    class Failing(io.BytesIO):
        def readinto(self, b):
            if self.tell() > 1 << 20:
                raise Boom()
            return super().readinto(b[:1 << 16])
    with pytest.raises(Boom):
        hs.strip(Failing(data), tmp_path / "out.hprof")
    assert temps(tmp_path) == [] and not (tmp_path / "out.hprof").exists()


def test_output_that_appears_meanwhile_is_kept(hs, tmp_path):
    """Of two runs writing one name, one wins and the other says so."""
    out = tmp_path / "out.hprof"

    class Racing:
        """read() alone: the other path of the read callback"""

        def __init__(self, data):
            self.f = io.BytesIO(data)

        def read(self, n):
            # past the first reads (the input's format is sniffed when it
            # is opened, before the output is: that would be refused)
            if self.f.tell() > 1 << 20 and not out.exists():
                out.write_bytes(b"the other run's")
            return self.f.read(min(n, 1 << 16))
    with pytest.raises(hs.Error) as e:
        hs.strip(Racing(read(JVM)), out)
    assert (e.value.status, e.value.exit_status) == ("write", 4)
    assert e.value.report["output"]["kept"] is False
    assert read(out) == b"the other run's"
    assert temps(tmp_path) == []


def test_character_device_is_written_into(hs):
    report = hs.strip(JVM, "/dev/null")
    assert report["exit_status"] == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_mode_never_wider_than_the_input(hs, tmp_path):
    src = tmp_path / "in.hprof"
    src.write_bytes(read(JVM))
    os.chmod(src, 0o600)
    old = os.umask(0o022)
    try:
        hs.strip(src, tmp_path / "private.hprof")
        hs.strip(JVM, tmp_path / "public.hprof")
    finally:
        os.umask(old)
    assert stat.S_IMODE(os.stat(tmp_path / "private.hprof").st_mode) == 0o600
    assert stat.S_IMODE(os.stat(tmp_path / "public.hprof").st_mode) == \
        0o644 & stat.S_IMODE(os.stat(JVM).st_mode)
