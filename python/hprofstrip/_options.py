# SPDX-License-Identifier: Apache-2.0
"""What the command adds around hs_job_run, done the same way here: the
spill store of held instances (--spill-after), the deadline (--timeout),
and the mapping file of --obfuscate-names (src/cli/run.c does each of them
through the public API, as this module does through ctypes)."""
import ctypes
import os
import tempfile
import time

from . import _lib, _streams

# --timeout's bound: a week, as the command's (hprof-strip(1))
MAX_TIMEOUT_S = 604800.0
# hs_job's exit code for a run its progress callback cancelled, and the
# command's for one its deadline stopped (timeout(1)'s)
EXIT_CANCELLED, EXIT_TIMEOUT = 8, 124


class Spill(_streams.Callback):
    """hs_spill over an anonymous temporary file, made at the first write
    (most runs never spill): the command's spill file, in $TMPDIR too."""

    def __init__(self):
        super().__init__()
        self.fd = None
        self.write_fn = _lib.SPILL_WRITE_FN(self._write)
        self.read_fn = _lib.SPILL_READ_FN(self._read)

    def fill(self, spill):
        spill.write, spill.read, spill.ctx = self.write_fn, self.read_fn, None

    def _write(self, ctx, off, buf, length):
        try:
            if self.fd is None:
                f = tempfile.TemporaryFile(prefix="hprof-strip-spill-")
                self.fd = os.dup(f.fileno())
                f.close()
            data = memoryview(ctypes.string_at(buf, length))
            while data:
                n = os.pwrite(self.fd, data, off)
                data, off = data[n:], off + n
            return 0
        except BaseException as e:  # noqa: B902 - kept, the run fails with a write error
            if self.error is None:
                self.error = e
            return -1

    def _read(self, ctx, off, buf, length):
        try:
            got = 0
            while got < length:
                data = os.pread(self.fd, length - got, off + got)
                if not data:
                    raise EOFError(f"the spill file ends at {off + got}")
                ctypes.memmove(buf + got, data, len(data))
                got += len(data)
            return 0
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            return -1

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


class Deadline:
    """A progress callable that stops the run past `seconds` (the library
    asks about every MiB of input read, so a run stops within a MiB's time
    of its deadline; a read that hangs is not cut short, as the command's
    timer would), then asks the caller's own `progress`, if any."""

    def __init__(self, seconds, arg, progress):
        self.at = time.monotonic() + seconds
        self.arg = arg  # as the caller gave it, for the message
        self.user = progress
        self.expired = False

    def __call__(self, in_bytes, in_hprof_bytes, out_hprof_bytes):
        if time.monotonic() >= self.at:
            self.expired = True
            return True
        return self.user(in_bytes, in_hprof_bytes, out_hprof_bytes) if self.user else False

    def report(self, report):
        """The cancelled run's report as the command writes a timed-out
        one: exit_status 124, error.status "timeout", retryable."""
        message = f"stopped by timeout={self.arg} (seconds): the run took longer"
        if isinstance(report, dict):
            report["exit_status"] = EXIT_TIMEOUT
            report["error"] = {"code": None, "status": "timeout", "retryable": True,
                               "signal": None, "offset": None, "record_offset": None,
                               "tag": None, "subtag": None, "message": message}
        return message


class ObfuscationMap(_streams.Callback):
    """--obfuscate-names' mapping: hs_filter_obfuscation_map from the job's
    `finished` hook (the filter is freed after it) into `write`, a binary
    file object's write or a descriptor's."""

    def __init__(self, lib, write):
        super().__init__()
        self.lib = lib
        self.write = write
        self.status = 0  # hs_filter_obfuscation_map's
        self.written = False  # the hook ran (a run that worked)
        self.fn = _lib.FINISHED_FN(self._finished)
        self.sink_fn = _lib.WRITE_FN(self._sink)

    def _sink(self, ctx, buf, length):
        try:
            self.write(ctypes.string_at(buf, length))
            return 0
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            return -1

    def _finished(self, ctx, filt, rc):
        # a run that worked (0, or 6 salvaged): its mapping, before the dump
        # is put in place, as the command writes it
        if rc in (0, 6):
            sink = _lib.HsSink(self.sink_fn, None)
            self.status = self.lib.hs_filter_obfuscation_map(filt, ctypes.byref(sink))
            self.written = True
        return rc


def fd_writer(fd):
    """write(data) into a descriptor, all of it."""
    def write(data):
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
    return write
