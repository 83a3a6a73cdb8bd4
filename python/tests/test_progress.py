# SPDX-License-Identifier: Apache-2.0
"""progress=: the counts as the run goes, and a truthy return (or an
exception, or another thread's word) cancelling it."""
import os
import threading

import pytest

from conftest import JVM, JVM_GZ


def test_counts_grow_to_the_report_totals(hs, tmp_path):
    calls = []
    report = hs.strip(JVM, tmp_path / "out.hprof", progress=lambda *c: calls.append(c))
    # 3.6 MiB of dump: a call per MiB at least (from the second: a mapped
    # file is read a window ahead), and the last word
    assert len(calls) >= 3
    for before, after in zip(calls, calls[1:]):
        assert all(a >= b for a, b in zip(after, before)), calls
        assert after[1] >= before[1] + (1 << 20) or after is calls[-1], calls
    in_bytes, in_hprof, out_hprof = calls[-1]
    assert in_bytes == in_hprof  # a plain input: its bytes are the dump's
    assert in_hprof == report["input"]["hprof_bytes"] == os.path.getsize(JVM)
    assert out_hprof == report["output"]["hprof_bytes"] == os.path.getsize(tmp_path / "out.hprof")


def test_compressed_input_counts_its_own_bytes(hs, tmp_path):
    calls = []
    report = hs.strip(JVM_GZ, tmp_path / "out.hprof", threads=2,
                      progress=lambda *c: calls.append(c))
    assert calls[-1][0] == report["input"]["compressed_bytes"] == os.path.getsize(JVM_GZ)
    assert calls[-1][1] == report["input"]["hprof_bytes"] > calls[-1][0]


def test_truthy_return_cancels(hs, tmp_path):
    calls = []

    def stop_at_second(*c):
        calls.append(c)
        return len(calls) >= 2

    out = tmp_path / "out.hprof"
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, out, progress=stop_at_second)
    assert e.value.status == "cancelled"
    assert e.value.exit_status == 8
    assert e.value.retryable is True
    assert e.value.report["error"]["status"] == "cancelled"
    assert e.value.report["exit_status"] == 8
    assert e.value.report["output"]["kept"] is False
    assert e.value.offset is not None and e.value.offset < os.path.getsize(JVM)
    assert len(calls) == 3  # the cancelling call, then the last word
    # the output removed, as for any failure; nothing else left beside it
    assert os.listdir(tmp_path) == []
    assert os.path.exists(JVM)


def test_audit_cancels_too(hs):
    with pytest.raises(hs.Error) as e:
        hs.audit(JVM, progress=lambda *c: True)
    assert e.value.status == "cancelled"


def test_exception_cancels_and_is_raised(hs, tmp_path):
    def broken(*c):
        raise KeyError("from the callback")

    with pytest.raises(KeyError, match="from the callback"):
        hs.strip(JVM, tmp_path / "out.hprof", progress=broken)
    assert os.listdir(tmp_path) == []


def test_cancel_from_another_thread(hs, tmp_path):
    stop, started = threading.Event(), threading.Event()

    def poll(*c):
        started.set()
        stop.wait(5)  # the run surely still going when the other thread says stop
        return stop.is_set()

    def other():
        started.wait(10)
        stop.set()

    t = threading.Thread(target=other)
    t.start()
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM_GZ, tmp_path / "out.hprof.zst", progress=poll)
    t.join()
    assert e.value.status == "cancelled"
    assert os.listdir(tmp_path) == []


def test_not_callable_is_refused(hs, tmp_path):
    with pytest.raises(TypeError):
        hs.strip(JVM, tmp_path / "out.hprof", progress=3)


@pytest.mark.parametrize("old", ["0.1.0", "0.2.0"])
def test_progress_refused_by_a_library_older_than_0_3(hs, tmp_path, monkeypatch, old):
    # before 0.3 hs_job had no progress field: the callable would never be
    # called and could never cancel, so the package refuses rather than run
    monkeypatch.setattr(hs, "_loaded_version", lambda: old)
    with pytest.raises(hs.Error) as e:
        hs.strip(JVM, tmp_path / "out.hprof", progress=lambda *c: None)
    assert e.value.status == "usage" and e.value.exit_status == 2
    assert old in str(e.value)
    assert not (tmp_path / "out.hprof").exists()
    # without progress= the same library still strips
    hs.strip(JVM, tmp_path / "out2.hprof")
