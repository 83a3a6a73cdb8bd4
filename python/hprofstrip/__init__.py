# SPDX-License-Identifier: Apache-2.0
"""hprofstrip: strip and audit HPROF heap dumps from Python.

A thin ctypes binding of libhprofstrip.so (hprof_strip(3)), which does the
work exactly as the hprof-strip command does: the same presets, rules,
compressed inputs and outputs, the same JSON report and exit statuses.

    import hprofstrip
    report = hprofstrip.strip("app.hprof.gz", "app.hprof.zst", preset="privacy")
    if not hprofstrip.audit("app.hprof.zst")["audit"]["clean"]:
        ...

Inputs and outputs are paths or binary file objects, streamed, never read
whole. See python/README.md.
"""
import ctypes
import io
import json
import operator
import os
import stat

from . import _files, _lib, _signals, _streams
from ._lib import LibraryNotFound
from ._version import __version__

__all__ = ["strip", "audit", "Error", "LibraryNotFound", "library_version", "__version__"]

# The exit statuses of hprof-strip(1) that are not failures.
_OK, _SALVAGED, _AUDIT_FINDINGS = 0, 6, 7

# hs_status -> (error.status, exit status), as hprof-strip(1) EXIT STATUS
# lists them: for failures met before the library's run (opening the input).
_STATUS = {
    -1: ("malformed", 1), -2: ("truncated", 3), -3: ("unsupported", 1), -4: ("read", 4),
    -5: ("write", 4), -6: ("limit", 5), -7: ("nomem", 5), -8: ("usage", 2),
    -9: ("cancelled", 8),
}
_COMPRESS = {None: _lib.COMPRESS_NONE, "none": _lib.COMPRESS_NONE,
             "zstd": _lib.COMPRESS_ZSTD, "gzip": _lib.COMPRESS_GZIP}


class Error(Exception):
    """A run that failed.

    status      the report's error.status: "malformed", "unsupported",
                "usage", "truncated", "read", "write", "limit", "nomem",
                or "cancelled" (a progress callable asked to stop)
    exit_status the command's exit status for it (1 to 5; 8 cancelled)
    offset      the input byte where the problem was found, or None
    report      the run's JSON report (a dict), or None when the run never
                started (an input that cannot be opened, an output refused)
    retryable   whether running it again may succeed
    """

    def __init__(self, message, status, exit_status, offset=None, report=None, retryable=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.exit_status = exit_status
        self.offset = offset
        self.report = report
        if retryable is None:
            retryable = status in ("read", "write", "nomem", "cancelled")
        self.retryable = retryable

    def __reduce__(self):
        # pickled whole (an exception's default pickling passes only its
        # args, the message, to __init__, which needs status and
        # exit_status too): so an Error crosses a process boundary as it
        # was raised, to a Dask client or a multiprocessing parent
        return (self.__class__, (self.message, self.status, self.exit_status, self.offset,
                                 self.report, self.retryable), self.__dict__)

    @classmethod
    def from_report(cls, report):
        err = report.get("error") or {}
        return cls(err.get("message") or f"exit status {report.get('exit_status')}",
                   err.get("status"), report.get("exit_status"), err.get("offset"), report,
                   err.get("retryable"))


def _loaded_version():
    """The loaded library's own version: "0.1.0" when it predates hs_version."""
    fn = getattr(_lib.load(), "hs_version", None)
    return fn().decode() if fn is not None else "0.1.0"


def library_version():
    """The loaded library's version (hs_version()), or this package's
    when the library is older than hs_version."""
    fn = getattr(_lib.load(), "hs_version", None)
    return fn().decode() if fn is not None else __version__


def _is_path(x):
    return isinstance(x, (str, bytes, os.PathLike))


def _fileno(f, reading):
    """f's descriptor when the library can use it in f's place, else None.
    The descriptor must stand where f does: a seekable f's is put there
    (a buffered object reads ahead and writes behind); a pipe or socket
    behind a buffer goes by descriptor only for writing (flushed first),
    for reading through the callbacks (the buffer may hold what was read)."""
    try:
        fd = f.fileno()
    except (AttributeError, OSError, ValueError):  # io.UnsupportedOperation is an OSError
        return None
    if not reading and hasattr(f, "flush"):
        f.flush()
    try:
        seekable = f.seekable()
    except (AttributeError, OSError, ValueError):
        seekable = False
    if seekable:
        os.lseek(fd, f.tell(), os.SEEK_SET)
        return fd
    if reading and not isinstance(f, io.RawIOBase):
        return None
    return fd


def _resync(f, fd):
    """After a run by descriptor: f stands where the descriptor does."""
    try:
        if f.seekable():
            f.seek(os.lseek(fd, 0, os.SEEK_CUR))
    except (OSError, ValueError):
        pass


def _check_binary(f, what):
    if isinstance(f, io.TextIOBase):
        raise TypeError(f"hprofstrip: {what} is a text file: open it in binary mode ('rb', 'wb')")


def _open_error(err, what):
    code = err.code
    status, exit_status = _STATUS.get(code, ("read", 4))
    msg = err.message.decode(errors="replace") or f"{what}: {status}"
    return Error(msg, status, exit_status)


class _Run:
    """What one run opens, closed in reverse whatever happens."""

    def __init__(self, lib):
        self.lib = lib
        self.input = None
        self.output = None
        self.file = None  # the _files.Output of a path output
        self.callbacks = []  # kept alive until the run is over
        self.progress = None  # the caller's progress callable
        self.cancellable = False  # the library takes a progress callback (0.3)
        self.resync = []  # file objects given by descriptor

    def open_input(self, src):
        err = _lib.HsError()
        if _is_path(src):
            self.input = self.lib.hs_input_open_path(os.fsencode(src), ctypes.byref(err))
        else:
            _check_binary(src, "src")
            fd = _fileno(src, True)
            if fd is not None:
                self.resync.append((src, fd))
                self.input = self.lib.hs_input_open_fd(fd, ctypes.byref(err))
            else:
                cb = _streams.Reader(src)
                self.callbacks.append(cb)
                self.input = self.lib.hs_input_open_read(cb.fn, None, ctypes.byref(err))
        if not self.input:
            self.reraise()
            raise _open_error(err, "input")

    def open_output(self, dst, compress, level, threads, reads, in_mode, force):
        err = _lib.HsError()
        if _is_path(dst):
            try:
                self.file = _files.open_output(dst, reads, in_mode, force)
            except _files.Refused as e:
                raise Error(f"{e}", "usage", 2) from None
            except OSError as e:
                raise Error(f"{os.fsdecode(dst)}: {e.strerror}", "write", 4) from e
            self.output = self.lib.hs_output_open_fd(self.file.fd, compress, level, threads,
                                                     ctypes.byref(err))
        else:
            _check_binary(dst, "dst")
            fd = _fileno(dst, False)
            if fd is not None:
                self.resync.append((dst, fd))
                self.output = self.lib.hs_output_open_fd(fd, compress, level, threads,
                                                         ctypes.byref(err))
            else:
                cb = _streams.Writer(dst)
                self.callbacks.append(cb)
                self.output = self.lib.hs_output_open_write(cb.fn, None, compress, level,
                                                            threads, ctypes.byref(err))
        if not self.output:
            raise _open_error(err, "output")

    def set_progress(self, job, progress):
        """The progress callable for the run (kept alive with the run's
        other callbacks); nothing for None."""
        # hs_job grew `progress` in 0.3: an older library would read a
        # job of the old size and never call it, a silent no-cancel
        have = _loaded_version()
        self.cancellable = tuple(int(x) for x in have.split(".")[:2]) >= (0, 3)
        self.progress = progress
        if progress is None:
            return
        if not self.cancellable:
            raise Error(f"progress needs libhprofstrip 0.3 or later; the library loaded is {have}",
                        "usage", 2)
        if not callable(progress):
            raise TypeError("hprofstrip: progress is a callable (in_bytes, in_hprof_bytes, "
                            "out_hprof_bytes) -> bool")

    def run(self, job):
        report_p = ctypes.c_void_p()
        if self.cancellable and _signals.on_main_thread():
            # on a thread of its own, cancelled on a signal (_signals)
            try:
                rc = _signals.Worker(self.lib, self.progress).run(
                    job, self.input, self.output, ctypes.byref(report_p))
            except BaseException:
                self.lib.hs_free(report_p)  # the cancelled run's, unread
                raise
        else:
            # no signal reaches another thread's call: run here
            if self.progress is not None:
                cb = _streams.Progress(self.progress)
                self.callbacks.append(cb)
                job.progress = cb.fn
            rc = self.lib.hs_job_run(ctypes.byref(job), self.input, self.output,
                                     ctypes.byref(report_p))
        report = None
        if report_p.value:
            try:
                report = json.loads(ctypes.string_at(report_p.value).decode(errors="replace"))
            finally:
                self.lib.hs_free(report_p)
        return rc, report

    def reraise(self):
        """An exception a file object raised in a callback, now."""
        for cb in self.callbacks:
            cb.reraise()

    def close(self):
        # the library's objects first: they may still write to the descriptor
        if self.output:
            self.lib.hs_output_close(self.output)
            self.output = None
        if self.input:
            self.lib.hs_input_close(self.input)
            self.input = None
        if self.file is not None:
            self.file.discard()  # nothing when committed
        for f, fd in self.resync:
            _resync(f, fd)
        self.resync = []


def _identities(*paths):
    """(device, inode) of the files named, those that exist."""
    out = set()
    for p in paths:
        if p is None:
            continue
        try:
            st = os.stat(p) if _is_path(p) else os.fstat(p.fileno())
        except (OSError, ValueError, AttributeError):
            continue
        out.add((st.st_dev, st.st_ino))
    return out


def _input_mode(src):
    try:
        st = os.stat(src) if _is_path(src) else os.fstat(src.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_mode if stat.S_ISREG(st.st_mode) else None


def _compression(compress, dst):
    if compress is None and _is_path(dst):
        # as the command names it: by the output's suffix
        name = os.fsdecode(dst)
        if name.endswith(".zst"):
            return _lib.COMPRESS_ZSTD
        if name.endswith(".gz"):
            return _lib.COMPRESS_GZIP
    try:
        return _COMPRESS[compress]
    except (KeyError, TypeError):
        raise ValueError(f"hprofstrip: compress={compress!r}: None, 'none', 'zstd' or 'gzip'") \
            from None


def _rules_text(rules):
    if rules is None:
        return None
    if isinstance(rules, os.PathLike):
        with open(rules, "rb") as f:
            return f.read()
    if isinstance(rules, str):
        return rules.encode()
    if isinstance(rules, (bytes, bytearray)):
        return bytes(rules)
    raise TypeError("hprofstrip: rules is rule-file text (str or bytes) or a pathlib.Path")


# The command's ranges (hprof-strip(1): -z, --gzip, -T); 0 is the default
# for both, as None is (the library's own meaning of 0).
_LEVELS = {_lib.COMPRESS_NONE: (-7, 19), _lib.COMPRESS_ZSTD: (-7, 19),
           _lib.COMPRESS_GZIP: (0, 12)}
_THREADS = (0, 256)


def _in_range(name, value, bounds):
    """value as an int (None: 0), or ValueError when outside bounds:
    never wrapped into the C int, nor a huge count read as 0, "every core"."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise TypeError(f"hprofstrip: {name} is an integer, not {value!r}")
    try:
        v = operator.index(value)
    except TypeError:
        raise TypeError(f"hprofstrip: {name} is an integer, not {value!r}") from None
    if not bounds[0] <= v <= bounds[1]:
        raise ValueError(f"hprofstrip: {name}={v}: from {bounds[0]} to {bounds[1]}")
    return v


def _job(preset, rules, mapping, compress=0, level=None, threads=None, histogram=False,
         audit=False, salvage=False):
    level = _in_range("level", level, _LEVELS.get(compress, _LEVELS[_lib.COMPRESS_NONE]))
    threads = _in_range("threads", threads, _THREADS)
    job = _lib.HsJob()
    job.size = ctypes.sizeof(_lib.HsJob)
    job.preset = preset.encode() if preset is not None else None
    text = _rules_text(rules)
    if text is not None:
        job.rules_text = text
        job.rules_len = len(text)
    job.mapping_path = os.fsencode(mapping) if mapping is not None else None
    job.compress = compress
    job.level = level
    job.threads = threads
    job.histogram = 1 if histogram else 0
    job.audit = 1 if audit else 0
    job.salvage = 1 if salvage else 0
    return job


def _set_names(job, src, dst=None):
    """The paths given, as the job's in_name and out_name (0.3): the
    library's report and messages name them as the command's do. A file
    object has no name to give (the report says null, as for a pipe)."""
    if tuple(int(x) for x in _loaded_version().split(".")[:2]) < (0, 3):
        return  # an older library reads no names: _name_in does its part
    if _is_path(src):
        job.in_name = os.fsencode(src)
    if dst is not None and _is_path(dst):
        job.out_name = os.fsencode(dst)


def _name_in(report, side, x):
    """For a library older than 0.3 (no hs_job.in_name, _set_names): the
    report names a path the library was given as a descriptor (it says
    "-", as for standard input or output, knowing no name)."""
    part = report.get(side) if report else None
    if isinstance(part, dict) and part.get("name") in (None, "-") and _is_path(x):
        part["name"] = os.fsdecode(x)
        # the library's messages say "input" where the command names the
        # file ("input: input byte 12: ..."): the same text as the CLI's
        err = report.get("error")
        msg = err.get("message") if side == "input" and isinstance(err, dict) else None
        if isinstance(msg, str) and (msg.startswith("input: ") or
                                     msg.startswith("input (invalid, not cut): ")):
            err["message"] = part["name"] + msg[len("input"):]


def strip(src, dst, preset="default", rules=None, mapping=None, compress=None, level=None,
          threads=None, histogram=False, *, salvage=False, force=False, progress=None):
    """Strips the dump `src` into `dst` and returns the run's JSON report
    (a dict, the document `hprof-strip --stats-file` writes).

    src, dst    paths, or binary file objects (streamed: one with a usable
                fileno() is read or written by its descriptor, from where it
                stands; others through read()/readinto() and write()). A
                gzip or zstd input is told by its bytes and decompressed.
                A dst path gets the command's file rule: written under a
                temporary name beside it, renamed into place when complete,
                removed on failure; an existing file is refused (an Error,
                status "usage") unless force=True, the input never replaced.
    preset      "default", "privacy", "android-app" or "none"
    rules       rule-file text (str or bytes) applied after the preset, or a
                pathlib.Path to read it from
    mapping     path of an R8/ProGuard mapping.txt (.gz/.zst too)
    compress    "zstd", "gzip", "none", or None: by dst's suffix (.zst, .gz)
                when dst is a path, else none
    level       compression level, an int: zstd -7 to 19, gzip 0 to 12, as
                the command takes them (None or 0: the default, zstd 1
                for 8-byte ids, 3 for 4-byte; gzip 1); another is a
                ValueError (a bool or float a TypeError)
    threads     compression threads, an int from 1 to 256 (None or 0: one
                per core); another is a ValueError
    histogram   the class histogram in the report
    salvage     write what a cut input held, as a valid dump (the report's
                exit_status is then 6, no exception); past damage that is
                no cut, the dump before it is written and kept too, and an
                Error raised all the same (status "malformed", its report's
                output.kept true), as the command exits 1 keeping it
    progress    a callable, progress(in_bytes, in_hprof_bytes,
                out_hprof_bytes), called on this thread about every MiB of
                dump read and once at the end with the report's totals
                (input.compressed_bytes, or the file's bytes when plain;
                input.hprof_bytes; output.hprof_bytes). A truthy return
                stops the run: Error, status "cancelled", exit_status 8.
                Another thread cancels through it (return an Event's
                is_set()). An exception it raises stops the run too and is
                raised from strip().

    Raises Error when the run fails (the output removed). Signals, in a
    call from the main thread: Ctrl-C raises KeyboardInterrupt at once
    (the run cancelled at its next MiB, the output removed); SIGTERM, when
    the program left it at its default, removes the output too before the
    process dies of it (see _signals).
    """
    lib = _lib.load()
    job = _job(preset, rules, mapping, _compression(compress, dst), level, threads,
               histogram, salvage=salvage)
    with _signals.Guard():
        return _strip(lib, job, src, dst, mapping, rules, salvage, force, progress)


def _strip(lib, job, src, dst, mapping, rules, salvage, force, progress):
    reads = _identities(src, mapping, rules if isinstance(rules, os.PathLike) else None)
    _set_names(job, src, dst)
    run = _Run(lib)
    try:
        run.set_progress(job, progress)
        run.open_input(src)
        run.open_output(dst, job.compress, job.level, job.threads, reads, _input_mode(src),
                        force)
        rc, report = run.run(job)
        run.reraise()
        _name_in(report, "input", src)
        _name_in(report, "output", dst)
        failed = rc not in (_OK, _SALVAGED) or (rc == _SALVAGED and not salvage)
        if failed and report is None:
            raise Error(f"exit status {rc}", None, rc)
        # salvage past damage that is no cut: the input is invalid (an
        # Error), but the complete records before it were written as a
        # valid dump, which is kept as the command keeps it
        kept = isinstance(report, dict) and isinstance(report.get("output"), dict) and \
            report["output"].get("kept") is True
        if failed and not (salvage and kept):
            if isinstance(report.get("output"), dict) and run.file is not None:
                report["output"]["kept"] = False
            raise Error.from_report(report)
        # the library's objects are done with the descriptor before it closes
        out, run.output = run.output, None
        lib.hs_output_close(out)
        if run.file is not None:
            try:
                run.file.commit(force, reads)
            except OSError as e:
                msg = f"{os.fsdecode(dst)}: {e.strerror or e}"
                if report is not None:
                    report["output"]["kept"] = False
                raise Error(msg, "write", 4, None, report) from e
        elif hasattr(dst, "flush"):
            dst.flush()
        if failed:
            raise Error.from_report(report)
        return report
    finally:
        run.close()


def audit(src, rules=None, mapping=None, *, progress=None):
    """Audits `src` (a path or binary file object, plain or compressed):
    what the privacy preset would still have to remove. Returns the JSON
    report; its "audit" member says the verdict ("clean": True or False,
    and where the data is), its exit_status is 0 (clean) or 7 (findings).
    progress: as strip()'s, and signals too. Raises Error only when the run
    fails (a broken input, say) or is cancelled."""
    lib = _lib.load()
    job = _job("privacy", rules, mapping, audit=True)
    _set_names(job, src)
    with _signals.Guard():
        return _audit(lib, job, src, progress)


def _audit(lib, job, src, progress):
    run = _Run(lib)
    try:
        run.set_progress(job, progress)
        run.open_input(src)
        rc, report = run.run(job)
        run.reraise()
        _name_in(report, "input", src)
        if rc not in (_OK, _AUDIT_FINDINGS):
            if report is None:
                raise Error(f"exit status {rc}", None, rc)
            raise Error.from_report(report)
        return report
    finally:
        run.close()


# The push API (hs_push_*): a dump stripped as it arrives, written in pieces.
# Imported last: _push builds on the helpers above.
from ._push import AsyncStripper, Stripper  # noqa: E402
__all__ += ["Stripper", "AsyncStripper"]
