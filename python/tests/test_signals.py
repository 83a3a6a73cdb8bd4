# SPDX-License-Identifier: Apache-2.0
"""Signals during a run (issue #51 items 9 and 10): Ctrl-C raises
KeyboardInterrupt at once from any call (not hprofstrip.Error, not after
the whole run), SIGTERM at its default removes the temporary output and
the process still dies of it; and the integer arguments' ranges (item 17).

The input is endless (generated as it is read, for FEED_S at most): a
run that is not cancelled by the signal takes that long, or never ends."""
import os
import signal
import struct
import subprocess
import sys
import threading
import time

import pytest

from conftest import JVM, PYTHON_DIR, temps

# Long enough that a run the signal did not stop is told from one it did,
# and that a starved child (a busy machine, nice) starts its run within it.
FEED_S = 60
# What "at once" is allowed on a busy machine (it is about 0.06 s: the
# main thread's poll, the library's next MiB); far from FEED_S.
PROMPT_S = 3.0

# HPROF 1.0.2, 4-byte ids, then heap dump segments of one 1 MiB byte array
# each (ids counting up), then the end
_HEADER = b"JAVA PROFILE 1.0.2\0" + struct.pack(">IQ", 4, 0)
_PAYLOAD = bytes(range(256)) * 4096
_END = struct.pack(">BII", 0x2C, 0, 0)


def _segment(oid):
    sub = struct.pack(">BIIIB", 0x23, oid, 1, len(_PAYLOAD), 8)
    return struct.pack(">BII", 0x1C, 0, len(sub) + len(_PAYLOAD)) + sub + _PAYLOAD


def _chunks():
    """The endless dump, cut off (as a whole dump) after FEED_S."""
    yield _HEADER
    until, oid = time.monotonic() + FEED_S, 1
    while time.monotonic() < until:
        yield _segment(oid)
        oid += 1
    yield _END


def _feed_fifo(path):
    """A thread writing the endless dump into the FIFO `path`; a reader that
    goes away ends it."""
    def feed():
        try:
            with open(path, "wb") as f:
                for c in _chunks():
                    f.write(c)
        except (BrokenPipeError, OSError):
            pass
    t = threading.Thread(target=feed, daemon=True)
    t.start()
    return t


class _Endless:
    """A file object with no descriptor: read through the callbacks."""

    def __init__(self):
        self.it = _chunks()
        self.buf = b""

    def read(self, n):
        while not self.buf:
            self.buf = next(self.it, b"")
            if not self.buf:
                return b""
        out, self.buf = self.buf[:n], self.buf[n:]
        return out


def _grown(directory, size):
    """A temporary output in `directory` of `size` bytes or more."""
    for n in temps(directory):
        try:
            if os.path.getsize(os.path.join(directory, n)) >= size:
                return True
        except OSError:
            pass
    return False


def _interrupt_when_running(directory, sent, calls=None):
    """A thread sending SIGINT to this process once the run has written
    1 MiB (and called progress, given its `calls`): sent[0] the time it did."""
    def watch():
        until = time.monotonic() + FEED_S
        while (not _grown(directory, 1 << 20) or calls == []) and time.monotonic() < until:
            time.sleep(0.02)
        sent.append(time.monotonic())
        os.kill(os.getpid(), signal.SIGINT)
    t = threading.Thread(target=watch, daemon=True)
    t.start()
    return t


@pytest.fixture
def ctrl_c_as_at_a_prompt():
    """SIGINT as Python sets it up for a user at a terminal. A process that
    began with SIGINT ignored (`cmd &` in a script, nohup) gets no handler
    from Python, so no KeyboardInterrupt: the tests below would fail for
    how they were started, not for the library."""
    was = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, was)


@pytest.mark.parametrize("how", ["path", "file object", "progress"])
def test_ctrl_c_is_keyboard_interrupt_at_once(hs, tmp_path, how, ctrl_c_as_at_a_prompt):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    out = out_dir / "out.hprof"
    fifo = tmp_path / "in.hprof"
    calls = []
    if how == "file object":
        src, progress = _Endless(), None
    else:
        os.mkfifo(fifo)
        _feed_fifo(fifo)
        src = fifo
        progress = (lambda *c: calls.append(c)) if how == "progress" else None
    sent = []
    watcher = _interrupt_when_running(out_dir, sent, calls if how == "progress" else None)
    with pytest.raises(KeyboardInterrupt):
        try:
            hs.strip(src, out, progress=progress)
        except hs.Error as e:  # what a loop catching Error would swallow
            pytest.fail(f"Ctrl-C became hprofstrip.Error: {e.status}: {e}")
    took = time.monotonic() - sent[0]
    watcher.join()
    assert took < PROMPT_S, f"KeyboardInterrupt {took:.2f} s after the signal"
    assert not out.exists()
    assert temps(out_dir) == []
    if how == "progress":
        assert calls  # it was called, on this thread, until the signal
    # the signal's handler and this thread's mask are as they were
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL
    assert signal.pthread_sigmask(signal.SIG_BLOCK, []) == set()


def test_a_run_after_an_interrupt_works(hs, tmp_path):
    out = tmp_path / "after.hprof"
    report = hs.strip(JVM, out, progress=lambda *c: None)
    assert report["exit_status"] == 0 and out.exists()
    assert temps(tmp_path) == []
    assert signal.getsignal(signal.SIGTERM) == signal.SIG_DFL


_CHILD = r"""
import os, sys
sys.path.insert(0, sys.argv[1])
sys.path.insert(0, os.path.dirname(sys.argv[2]))
import hprofstrip, test_signals
test_signals._feed_fifo(sys.argv[3])
hprofstrip.strip(sys.argv[3], sys.argv[4])
print("not stopped")
"""


def test_sigterm_removes_the_temporary_and_still_kills(tmp_path):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    fifo = tmp_path / "in.hprof"
    os.mkfifo(fifo)
    child = subprocess.Popen([sys.executable, "-c", _CHILD, PYTHON_DIR, __file__, str(fifo),
                              str(out_dir / "out.hprof")], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    try:
        until = time.monotonic() + FEED_S
        while not _grown(out_dir, 1 << 20) and time.monotonic() < until:
            time.sleep(0.02)
        assert _grown(out_dir, 1 << 20), "the child's run wrote nothing"
        sent = time.monotonic()
        child.send_signal(signal.SIGTERM)
        out, err = child.communicate(timeout=FEED_S * 2)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    assert child.returncode == -signal.SIGTERM, (child.returncode, out, err)
    assert os.listdir(out_dir) == [], "left after SIGTERM"
    assert took < FEED_S / 2, f"the child died {took:.2f} s after SIGTERM"


def test_a_handler_of_the_programs_own_is_left_alone(hs, tmp_path):
    def mine(signum, frame):
        pass
    old = signal.signal(signal.SIGTERM, mine)
    try:
        seen = []
        hs.strip(JVM, tmp_path / "o.hprof", progress=lambda *c: seen.append(
            signal.getsignal(signal.SIGTERM)))
        assert seen and all(h is mine for h in seen)
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, old)


def test_called_from_another_thread(hs, tmp_path):
    """Off the main thread no signal reaches the call: it runs there, as
    before, its progress callable on that thread."""
    where = []

    def one():
        hs.strip(JVM, tmp_path / "t.hprof", progress=lambda *c: where.append(
            threading.current_thread()))
    t = threading.Thread(target=one)
    t.start()
    t.join()
    assert where and all(w is t for w in where)
    assert (tmp_path / "t.hprof").exists()


@pytest.mark.parametrize("kw", [
    {"threads": 2 ** 40}, {"threads": 257}, {"threads": -1}, {"threads": 2 ** 32},
    {"level": 2 ** 40}, {"level": 2 ** 31 + 1}, {"level": 20}, {"level": -8},
    {"level": 13, "compress": "gzip"}, {"level": -1, "compress": "gzip"},
])
def test_integers_out_of_range_are_refused(hs, tmp_path, kw):
    kw.setdefault("compress", "zstd")
    with pytest.raises(ValueError):
        hs.strip(JVM, tmp_path / "o.hprof", **kw)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("kw", [{"threads": 1.5}, {"threads": True}, {"level": "3"},
                                {"level": 3.0}])
def test_integers_that_are_not_are_refused(hs, tmp_path, kw):
    with pytest.raises(TypeError):
        hs.strip(JVM, tmp_path / "o.hprof.zst", **kw)


@pytest.mark.parametrize("kw", [{"threads": 256, "level": 19}, {"threads": 0, "level": 0},
                                {"threads": 1, "level": -7},
                                {"level": 12, "compress": "gzip", "threads": 1}])
def test_integers_at_the_bounds_are_taken(hs, tmp_path, kw):
    kw.setdefault("compress", "zstd")
    # past the check, to the input's open (no input: quick)
    with pytest.raises(hs.Error) as e:
        hs.strip(tmp_path / "missing.hprof", tmp_path / "o.hprof", **kw)
    assert "missing.hprof" in str(e.value)
