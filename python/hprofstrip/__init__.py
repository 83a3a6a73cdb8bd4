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
from __future__ import annotations

import concurrent.futures as _futures
import ctypes as _ctypes
import errno as _errno
import io as _io
import json as _json
import operator as _operator
import os as _os
import stat as _stat
import typing as _typing

from . import _files, _lib, _options, _signals, _streams
from ._lib import LibraryNotFound
from ._version import __version__

del annotations  # the __future__ import's name: no public name of ours

__all__ = [
    "strip", "strip_many", "output_name", "audit", "audit_many", "worst_exit_status",
    "presets", "preset_rules",
    "Error", "NotFoundError", "UsageError", "LibraryNotFound", "library_version", "__version__",
]

# What the calls take and give (type hints alone: see py.typed).
_PathArg = _typing.Union[str, bytes, "_os.PathLike[str]", "_os.PathLike[bytes]"]
_Src = _typing.Union[_PathArg, _typing.BinaryIO, _typing.IO[bytes]]
_Dst = _typing.Union[_PathArg, _typing.BinaryIO, _typing.IO[bytes]]
_Rules = _typing.Union[str, bytes, bytearray, "_os.PathLike[str]", None]
_Progress = _typing.Optional[_typing.Callable[[int, int, int], object]]
_Report = _typing.Dict[str, _typing.Any]

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
                "cancelled" (a progress callable asked to stop), or
                "timeout" (past the timeout given)
    exit_status the command's exit status for it (1 to 5; 8 cancelled,
                124 timeout)
    offset      the input byte where the problem was found, or None
    report      the run's JSON report (a dict), or None when the run never
                started (an input that cannot be opened, an output refused)
    retryable   whether running it again may succeed

    NotFoundError (also a FileNotFoundError) and UsageError (also a
    ValueError) are the kinds a caller may catch as Python's own.
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

    def __str__(self):
        return self.message

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
        return _error(err.get("message") or f"exit status {report.get('exit_status')}",
                      err.get("status"), report.get("exit_status"), err.get("offset"), report,
                      err.get("retryable"))


class NotFoundError(Error, FileNotFoundError):
    """An input, rule file or mapping that is not there: an Error (status
    "read" for an input, as the command's exit 4; "usage" for a rule file or
    mapping, exit 2) that is also a FileNotFoundError (errno ENOENT,
    filename the path)."""

    def __init__(self, message, status, exit_status, offset=None, report=None, retryable=None,
                 filename=None):
        super().__init__(message, status, exit_status, offset, report, retryable)
        self.errno = _errno.ENOENT
        self.strerror = _os.strerror(_errno.ENOENT)
        self.filename = filename

    def __reduce__(self):
        return (self.__class__, (self.message, self.status, self.exit_status, self.offset,
                                 self.report, self.retryable, self.filename), self.__dict__)


class UsageError(Error, ValueError):
    """A bad argument (status "usage", the command's exit 2): an unknown
    preset, a rule that does not parse, a level out of range, an output
    that exists: an Error that is also a ValueError."""


def _error(message, status, exit_status, offset=None, report=None, retryable=None):
    """The Error of `status`: a UsageError for "usage", else an Error."""
    cls = UsageError if status == "usage" else Error
    return cls(message, status, exit_status, offset, report, retryable)


def _usage(message):
    """A bad argument found here, before any run."""
    return UsageError(f"hprofstrip: {message}", "usage", 2)


def _not_found(path, status="read", exit_status=4, report=None):
    name = _os.fsdecode(path)
    return NotFoundError(f"{name}: {_os.strerror(_errno.ENOENT)}", status, exit_status,
                         report=report, retryable=False, filename=name)


def _loaded_version():
    """The loaded library's own version: "0.1.0" when it predates hs_version."""
    fn = getattr(_lib.load(), "hs_version", None)
    return fn().decode() if fn is not None else "0.1.0"


def library_version() -> str:
    """The loaded library's version (hs_version()), or this package's
    when the library is older than hs_version."""
    fn = getattr(_lib.load(), "hs_version", None)
    return fn().decode() if fn is not None else __version__


def _is_path(x):
    return isinstance(x, (str, bytes, _os.PathLike))


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
        _os.lseek(fd, f.tell(), _os.SEEK_SET)
        return fd
    if reading and not isinstance(f, _io.RawIOBase):
        return None
    return fd


def _resync(f, fd):
    """After a run by descriptor: f stands where the descriptor does."""
    try:
        if f.seekable():
            f.seek(_os.lseek(fd, 0, _os.SEEK_CUR))
    except (OSError, ValueError):
        pass


def _check_binary(f, what):
    if isinstance(f, _io.TextIOBase):
        raise TypeError(f"hprofstrip: {what} is a text file: open it in binary mode ('rb', 'wb')")


def _open_error(err, what, whole=None):
    """`whole`: err's message whole (hs_input_open_path_ex), which a long
    path passes hs_error's 320 bytes."""
    code = err.code
    status, exit_status = _STATUS.get(code, ("read", 4))
    msg = whole or err.message.decode(errors="replace") or f"{what}: {status}"
    return _error(msg, status, exit_status)


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

    def open_path(self, src, err):
        """hs_input_open_path; its message whole (0.8), or None."""
        fn = getattr(self.lib, "hs_input_open_path_ex", None)
        if fn is None:
            self.input = self.lib.hs_input_open_path(_os.fsencode(src), _ctypes.byref(err))
            return None
        msg = _ctypes.c_void_p()
        self.input = fn(_os.fsencode(src), _ctypes.byref(err), _ctypes.byref(msg))
        if not msg.value:
            return None
        try:
            return _ctypes.string_at(msg.value).decode(errors="replace")
        finally:
            self.lib.hs_free(msg)

    def open_input(self, src):
        err = _lib.HsError()
        whole = None
        if _is_path(src):
            whole = self.open_path(src, err)
        else:
            _check_binary(src, "src")
            fd = _fileno(src, True)
            if fd is not None:
                self.resync.append((src, fd))
                self.input = self.lib.hs_input_open_fd(fd, _ctypes.byref(err))
            else:
                cb = _streams.Reader(src)
                self.callbacks.append(cb)
                self.input = self.lib.hs_input_open_read(cb.fn, None, _ctypes.byref(err))
        if not self.input:
            self.reraise()
            e = _open_error(err, "input", whole)
            if _is_path(src) and not _os.path.lexists(src):
                # the message the library gave, with the exception Python's own
                # open() would raise
                raise NotFoundError(e.message, e.status, e.exit_status, retryable=False,
                                    filename=_os.fsdecode(src))
            raise e

    def open_output(self, dst, compress, level, threads, reads, in_mode, force):
        err = _lib.HsError()
        if _is_path(dst):
            try:
                self.file = _files.open_output(dst, reads, in_mode, force)
            except _files.Refused as e:
                raise UsageError(f"{e}", "usage", 2) from None
            except OSError as e:
                raise Error(f"{_os.fsdecode(dst)}: {e.strerror}", "write", 4) from e
            self.output = self.lib.hs_output_open_fd(self.file.fd, compress, level, threads,
                                                     _ctypes.byref(err))
        else:
            _check_binary(dst, "dst")
            fd = _fileno(dst, False)
            if fd is not None:
                self.resync.append((dst, fd))
                self.output = self.lib.hs_output_open_fd(fd, compress, level, threads,
                                                         _ctypes.byref(err))
            else:
                cb = _streams.Writer(dst)
                self.callbacks.append(cb)
                self.output = self.lib.hs_output_open_write(cb.fn, None, compress, level,
                                                            threads, _ctypes.byref(err))
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
            raise UsageError(f"progress needs libhprofstrip 0.3 or later; the library loaded is {have}",
                        "usage", 2)
        if not callable(progress):
            raise TypeError("hprofstrip: progress is a callable (in_bytes, in_hprof_bytes, "
                            "out_hprof_bytes) -> bool")

    def run(self, job):
        report_p = _ctypes.c_void_p()
        if self.cancellable and _signals.on_main_thread():
            # on a thread of its own, cancelled on a signal (_signals)
            try:
                rc = _signals.Worker(self.lib, self.progress).run(
                    job, self.input, self.output, _ctypes.byref(report_p))
            except BaseException:
                self.lib.hs_free(report_p)  # the cancelled run's, unread
                raise
        else:
            # no signal reaches another thread's call: run here
            if self.progress is not None:
                cb = _streams.Progress(self.progress)
                self.callbacks.append(cb)
                job.progress = cb.fn
            rc = self.lib.hs_job_run(_ctypes.byref(job), self.input, self.output,
                                     _ctypes.byref(report_p))
        report = None
        if report_p.value:
            try:
                report = _json.loads(_ctypes.string_at(report_p.value).decode(errors="replace"))
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
            st = _os.stat(p) if _is_path(p) else _os.fstat(p.fileno())
        except (OSError, ValueError, AttributeError):
            continue
        out.add((st.st_dev, st.st_ino))
    return out


def _input_mode(src):
    try:
        st = _os.stat(src) if _is_path(src) else _os.fstat(src.fileno())
    except (OSError, ValueError, AttributeError):
        return None
    return st.st_mode if _stat.S_ISREG(st.st_mode) else None


def _compression(compress, dst):
    if compress is None and _is_path(dst):
        # as the command names it: by the output's suffix
        name = _os.fsdecode(dst)
        if name.endswith(".zst"):
            return _lib.COMPRESS_ZSTD
        if name.endswith(".gz"):
            return _lib.COMPRESS_GZIP
    try:
        return _COMPRESS[compress]
    except (KeyError, TypeError):
        raise _usage(f"compress={compress!r}: None, 'none', 'zstd' or 'gzip'") from None


def _rules_text(rules):
    if rules is None:
        return None
    if isinstance(rules, _os.PathLike):
        try:
            with open(rules, "rb") as f:
                return f.read()
        except FileNotFoundError:
            # a rule file the command cannot read is a usage error (exit 2)
            raise _not_found(rules, "usage", 2) from None
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
        v = _operator.index(value)
    except TypeError:
        raise TypeError(f"hprofstrip: {name} is an integer, not {value!r}") from None
    if not bounds[0] <= v <= bounds[1]:
        raise _usage(f"{name}={v}: from {bounds[0]} to {bounds[1]}")
    return v


def _size(name, value, minimum=1):
    """A byte count given as an int (None: the default, 0 to the library)."""
    if value is None:
        return 0
    if isinstance(value, bool):
        raise TypeError(f"hprofstrip: {name} is a byte count (an int), not {value!r}")
    try:
        v = _operator.index(value)
    except TypeError:
        raise TypeError(f"hprofstrip: {name} is a byte count (an int), not {value!r}") from None
    if not minimum <= v < 1 << 64:
        raise _usage(f"{name}={v}: a byte count of at least {minimum}")
    return v


def _seconds(timeout):
    """timeout as seconds (None or 0: no deadline), as --timeout takes it."""
    if timeout is None:
        return 0.0
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)):
        raise TypeError(f"hprofstrip: timeout is seconds (an int or float), not {timeout!r}")
    if not 0 <= timeout <= _options.MAX_TIMEOUT_S:  # NaN fails it too
        raise _usage(f"timeout={timeout}: from 0 (no deadline) to {_options.MAX_TIMEOUT_S:g} "
                     "seconds (a week)")
    return float(timeout)


def _version_at_least(major, minor):
    return tuple(int(x) for x in _loaded_version().split(".")[:2]) >= (major, minor)


def _job(preset, rules, mapping, compress=0, level=None, threads=None, histogram=False,
         audit=False, salvage=False, options=None):
    """The hs_job of a run; `options`: an HsOptions for the filter, or
    None (a library older than 0.4 takes none)."""
    level = _in_range("level", level, _LEVELS.get(compress, _LEVELS[_lib.COMPRESS_NONE]))
    threads = _in_range("threads", threads, _THREADS)
    job = _lib.HsJob()
    job.size = _ctypes.sizeof(_lib.HsJob)
    job.preset = preset.encode() if preset is not None else None
    text = _rules_text(rules)
    if text is not None:
        job.rules_text = text
        job.rules_len = len(text)
    job.mapping_path = _os.fsencode(mapping) if mapping is not None else None
    job.compress = compress
    job.level = level
    job.threads = threads
    job.histogram = 1 if histogram else 0
    job.audit = 1 if audit else 0
    job.salvage = 1 if salvage else 0
    if options is not None:
        job.options = _ctypes.pointer(options)
        job.options_size = _ctypes.sizeof(options)
    return job


def _filter_options(lib, spill, *, to_jvm=False, repack=False, obfuscate=False, max_held=None,
                    spill_after=None):
    """The filter's options as the command gives them (hs_options): its
    spill store always, --to-jvm, --repack, --obfuscate-names, --max-held
    and --spill-after when asked; None for a library older than 0.4, which
    takes none (an Error when one was asked for)."""
    asked = to_jvm or repack or obfuscate or max_held is not None or spill_after is not None
    if not _version_at_least(0, 6 if obfuscate else 4):
        if asked:
            raise _usage(f"to_jvm, repack, obfuscate_names, max_held and spill_after need "
                         f"libhprofstrip 0.6 or later; the library loaded is {_loaded_version()}")
        return None
    opt = _lib.HsOptions()
    opt.to_jvm = 1 if to_jvm else 0
    opt.repack = 1 if repack else 0
    opt.obfuscate_names = 1 if obfuscate else 0
    opt.max_held = _size("max_held", max_held)
    opt.hold_in_memory = _size("spill_after", spill_after)
    if spill is not None:
        spill.fill(opt.spill)
    return opt


def _set_names(job, src, dst=None):
    """The paths given, as the job's in_name and out_name (0.3): the
    library's report and messages name them as the command's do. A file
    object has no name to give (the report says null, as for a pipe)."""
    if tuple(int(x) for x in _loaded_version().split(".")[:2]) < (0, 3):
        return  # an older library reads no names: _name_in does its part
    if _is_path(src):
        job.in_name = _os.fsencode(src)
    if dst is not None and _is_path(dst):
        job.out_name = _os.fsencode(dst)


def _name_in(report, side, x):
    """For a library older than 0.3 (no hs_job.in_name, _set_names): the
    report names a path the library was given as a descriptor (it says
    "-", as for standard input or output, knowing no name)."""
    part = report.get(side) if report else None
    if isinstance(part, dict) and part.get("name") in (None, "-") and _is_path(x):
        part["name"] = _os.fsdecode(x)
        # the library's messages say "input" where the command names the
        # file ("input: input byte 12: ..."): the same text as the CLI's
        err = report.get("error")
        msg = err.get("message") if side == "input" and isinstance(err, dict) else None
        if isinstance(msg, str) and (msg.startswith("input: ") or
                                     msg.startswith("input (invalid, not cut): ")):
            err["message"] = part["name"] + msg[len("input"):]


def strip(src: _Src, dst: _Dst, preset: _typing.Optional[str] = None, rules: _Rules = None,
          mapping: _typing.Optional[_PathArg] = None, compress: _typing.Optional[str] = None,
          level: _typing.Optional[int] = None, threads: _typing.Optional[int] = None,
          histogram: bool = False, *, salvage: bool = False, force: bool = False,
          progress: _Progress = None, to_jvm: bool = False, repack: bool = False,
          obfuscate_names: _typing.Union[_PathArg, _typing.BinaryIO, None] = None,
          max_held: _typing.Optional[int] = None, spill_after: _typing.Optional[int] = None,
          timeout: _typing.Optional[float] = None) -> _Report:
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
    preset      "default", "privacy", "android-app" or "none" (-p); None:
                "default", or "none" with to_jvm and no rules, as the
                command chooses
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

    to_jvm      write an Android (1.0.3) dump as 1.0.2 for MAT and VisualVM
                (--to-jvm)
    repack      re-encode heap dumps into fresh segments even when nothing
                changes (--repack)
    obfuscate_names  a path or binary file object: rename application
                classes, fields and stack frames to short opaque names and
                write the mapping there, R8's format (mapping= restores
                them); a path gets the file rule as dst does, its mode 0600
                at most (--obfuscate-names)
    max_held    bytes the run may hold for strings, roots and tables (None:
                1 GiB); past it, an Error, status "limit" (--max-held)
    spill_after bytes of instances held for their class (privacy on Android
                dumps) kept in memory before they go to a temporary file
                (None: 64 MiB; --spill-after)
    timeout     seconds (an int or float up to a week; None or 0: none):
                a run that takes longer is stopped within a MiB of input,
                its output removed, an Error raised, status "timeout",
                exit_status 124 (--timeout)

    Raises Error when the run fails (the output removed): a NotFoundError,
    also a FileNotFoundError, for an input, rule file or mapping that is not
    there; a UsageError, also a ValueError, for a bad argument. Signals, in a
    call from the main thread: Ctrl-C raises KeyboardInterrupt at once
    (the run cancelled at its next MiB, the output removed); SIGTERM, when
    the program left it at its default, removes the output too before the
    process dies of it (see _signals).
    """
    lib = _lib.load()
    if preset is None and to_jvm and rules is None:
        preset = "none"  # --to-jvm alone changes nothing else
    seconds = _seconds(timeout)
    spill = _options.Spill()
    opt = _filter_options(lib, spill, to_jvm=to_jvm, repack=repack,
                          obfuscate=obfuscate_names is not None, max_held=max_held,
                          spill_after=spill_after)
    job = _job(preset, rules, mapping, _compression(compress, dst), level, threads,
               histogram, salvage=salvage, options=opt)
    deadline = None
    if seconds > 0:
        deadline = progress = _options.Deadline(seconds, timeout, progress)
    try:
        with _signals.Guard():
            return _strip(lib, job, src, dst, mapping, rules, salvage, force, progress,
                          obfuscate_names, spill)
    except Error as e:
        raise _timed_out(e, deadline) from None
    finally:
        spill.close()


def _timed_out(e, deadline):
    """The Error of a run its deadline cancelled, as the command's
    --timeout reports it; else `e` as it is."""
    if deadline is None or not deadline.expired or e.status != "cancelled":
        return e
    message = deadline.report(e.report)
    return Error(message, "timeout", _options.EXIT_TIMEOUT, None, e.report, True)


def _failure(report, mapping, rules):
    """The Error of a failed run's report: a NotFoundError when it is a
    mapping or rule file that is not there."""
    e = Error.from_report(report)
    for path in (mapping, rules if isinstance(rules, _os.PathLike) else None):
        if e.status == "usage" and path is not None and not _os.path.lexists(path):
            return NotFoundError(e.message, e.status, e.exit_status, e.offset, report, False,
                                 _os.fsdecode(path))
    return e


class _Mapfile:
    """obfuscate_names' destination: a path opened under the file rule
    before the run (so that a refusal comes before any work), or a binary
    file object; the hook that fills it (_options.ObfuscationMap)."""

    def __init__(self, lib, dst, reads, in_mode, force):
        self.file = None
        if _is_path(dst):
            # the command's HS_PRIVATE_MODE: a mapping says what the names were
            mode = 0o600 & (in_mode if in_mode is not None else 0o600)
            try:
                self.file = _files.open_output(dst, reads, mode, force)
            except _files.Refused as e:
                raise UsageError(f"obfuscate_names: {e}", "usage", 2) from None
            except OSError as e:
                raise Error(f"{_os.fsdecode(dst)}: {e.strerror}", "write", 4) from e
            write = _options.fd_writer(self.file.fd)
        else:
            _check_binary(dst, "obfuscate_names")
            write = dst.write
        self.dst = dst
        self.hook = _options.ObfuscationMap(lib, write)

    def check(self, report):
        """After a run that worked: an Error when the mapping was not written."""
        if self.hook.error is not None or self.hook.status != 0:
            why = self.hook.error or f"status {self.hook.status}"
            if isinstance(report, dict) and isinstance(report.get("output"), dict):
                report["output"]["kept"] = False
            raise Error(f"{_os.fsdecode(self.dst) if _is_path(self.dst) else 'obfuscate_names'}"
                        f": {why}", "write", 4, None, report) from self.hook.error

    def commit(self, force, reads):
        if self.file is not None:
            self.file.commit(force, reads)
        elif hasattr(self.dst, "flush"):
            self.dst.flush()

    def discard(self):
        if self.file is not None:
            self.file.discard()


def _strip(lib, job, src, dst, mapping, rules, salvage, force, progress, obfuscate_names,
           spill):
    reads = _identities(src, mapping, rules if isinstance(rules, _os.PathLike) else None)
    _set_names(job, src, dst)
    run = _Run(lib)
    run.callbacks.append(spill)
    mapfile = None
    try:
        run.set_progress(job, progress)
        run.open_input(src)
        run.open_output(dst, job.compress, job.level, job.threads, reads, _input_mode(src),
                        force)
        if obfuscate_names is not None:
            mapfile = _Mapfile(lib, obfuscate_names, reads | _identities(dst),
                               _input_mode(src), force)
            job.finished = mapfile.hook.fn
        rc, report = run.run(job)
        run.reraise()
        _name_in(report, "input", src)
        _name_in(report, "output", dst)
        failed = rc not in (_OK, _SALVAGED) or (rc == _SALVAGED and not salvage)
        if failed and report is None:
            raise _error(f"exit status {rc}", None, rc)
        # salvage past damage that is no cut: the input is invalid (an
        # Error), but the complete records before it were written as a
        # valid dump, which is kept as the command keeps it
        kept = isinstance(report, dict) and isinstance(report.get("output"), dict) and \
            report["output"].get("kept") is True
        if failed and not (salvage and kept):
            if isinstance(report.get("output"), dict) and run.file is not None:
                report["output"]["kept"] = False
            raise _failure(report, mapping, rules)
        # the library's objects are done with the descriptor before it closes
        out, run.output = run.output, None
        lib.hs_output_close(out)
        if mapfile is not None:
            # the mapping in place before the dump, as the command does
            mapfile.check(report)
            try:
                if mapfile.hook.written:
                    mapfile.commit(force, reads)
            except OSError as e:
                report["output"]["kept"] = False
                raise Error(f"{_os.fsdecode(obfuscate_names)}: {e.strerror or e}", "write", 4,
                            None, report) from e
        if run.file is not None:
            try:
                run.file.commit(force, reads)
            except OSError as e:
                msg = f"{_os.fsdecode(dst)}: {e.strerror or e}"
                if report is not None:
                    report["output"]["kept"] = False
                raise Error(msg, "write", 4, None, report) from e
        elif hasattr(dst, "flush"):
            dst.flush()
        if failed:
            raise _failure(report, mapping, rules)
        return report
    finally:
        run.close()
        if mapfile is not None:
            mapfile.discard()


def audit(src: _Src, rules: _Rules = None, mapping: _typing.Optional[_PathArg] = None, *,
          progress: _Progress = None, max_held: _typing.Optional[int] = None,
          timeout: _typing.Optional[float] = None) -> _Report:
    """Audits `src` (a path or binary file object, plain or compressed):
    what the privacy preset would still have to remove (--audit). Returns
    the JSON report; its "audit" member says the verdict ("clean": True or
    False, and where the data is), its exit_status is 0 (clean) or 7
    (findings). progress, max_held, timeout: as strip()'s, and signals too.
    Raises Error only when the run fails (a broken input, say), is
    cancelled or runs out of time; NotFoundError and UsageError as strip()."""
    lib = _lib.load()
    seconds = _seconds(timeout)
    opt = _filter_options(lib, None, max_held=max_held)
    job = _job("privacy", rules, mapping, audit=True, options=opt)
    _set_names(job, src)
    deadline = None
    if seconds > 0:
        deadline = progress = _options.Deadline(seconds, timeout, progress)
    try:
        with _signals.Guard():
            return _audit(lib, job, src, progress, mapping, rules)
    except Error as e:
        raise _timed_out(e, deadline) from None


def _audit(lib, job, src, progress, mapping, rules):
    run = _Run(lib)
    try:
        run.set_progress(job, progress)
        run.open_input(src)
        rc, report = run.run(job)
        run.reraise()
        _name_in(report, "input", src)
        if rc not in (_OK, _AUDIT_FINDINGS):
            if report is None:
                raise _error(f"exit status {rc}", None, rc)
            raise _failure(report, mapping, rules)
        return report
    finally:
        run.close()


def audit_many(srcs: _typing.Iterable[_Src], rules: _Rules = None,
               mapping: _typing.Optional[_PathArg] = None, *, jobs: _typing.Optional[int] = None,
               max_held: _typing.Optional[int] = None, timeout: _typing.Optional[float] = None
               ) -> _typing.List[_typing.Union[_Report, Error]]:
    """Audits every input of `srcs` as audit() does, `jobs` at a time (None:
    one per core; the command's --audit FILE... -j N), and goes on after one
    that fails: returns, in the order given, each one's report or the Error
    its run raised (as asyncio.gather(..., return_exceptions=True) does).
    worst_exit_status(results) is the command's exit status for them all.
    timeout is each run's."""
    srcs = list(srcs)
    workers = _in_range("jobs", jobs, (0, 1024)) or _os.cpu_count() or 1
    _seconds(timeout)  # a bad one is the caller's, raised here
    _size("max_held", max_held)

    def one(src):
        try:
            return audit(src, rules, mapping, max_held=max_held, timeout=timeout)
        except Error as e:
            return e

    # each run on a thread of the pool: the library releases the GIL
    with _futures.ThreadPoolExecutor(max(1, min(workers, len(srcs)))) as pool:
        return list(pool.map(one, srcs))


def _compression_suffix_len(name: str) -> int:
    """The length of the compression suffix ending `name` (.gz, .zst, .zstd:
    the library's codec table says which), 0 for none."""
    lib = _lib.load()
    fn = getattr(lib, "hs_compression_of_path", None)
    if fn is None:  # a library older than its codec table (0.7): its suffixes
        tail = next((t for t in (".gz", ".zst", ".zstd") if name.endswith(t)), "")
        return len(tail)
    n = _ctypes.c_size_t(0)
    fn(_os.fsencode(name), _ctypes.byref(n))
    return n.value


def _compression_foreign(name: str) -> _typing.Optional[str]:
    """The compression `name`'s suffix says, one this library does not
    write (.bz2, .xz, .7z, ...: hs_compression_foreign_of_path), or None."""
    fn = getattr(_lib.load(), "hs_compression_foreign_of_path", None)
    got = fn(_os.fsencode(name)) if fn is not None else None  # before 0.8: none
    return got.decode() if got else None


def _compression_ext(compress: _typing.Optional[str]) -> str:
    """The suffix an output compressed with `compress` ("zstd", "gzip")
    gets, "" for none."""
    lib = _lib.load()
    of_name = getattr(lib, "hs_compression_of_name", None)
    suffix = getattr(lib, "hs_compression_suffix", None)
    if not compress or of_name is None or suffix is None:  # before 0.7: its two
        return {"zstd": ".zst", "gzip": ".gz"}.get(compress, "")
    got = suffix(of_name(compress.encode()))
    return got.decode() if got else ""


def output_name(src: _PathArg, out_dir: _PathArg, compress: _typing.Optional[str] = None) -> str:
    """The output strip_many() gives `src` in `out_dir`, the command's rule
    for -o DIR (hprof-strip(1)): src's last component, less one trailing
    .gz, .zst or .zstd, ending in .hprof (added when missing), then .zst
    for compress="zstd" or .gz for "gzip"."""
    base = _os.path.basename(_os.fsdecode(src))
    cut = _compression_suffix_len(base)
    if 0 < cut < len(base):
        base = base[:-cut]
    if not (base.endswith(".hprof") and len(base) > len(".hprof")):
        base += ".hprof"
    return _os.path.join(_os.fsdecode(out_dir), base + _compression_ext(compress))


def _make_out_dir(out_dir: _PathArg, srcs: _typing.List[_PathArg]) -> None:
    """`out_dir` that is not there is made as the command makes -o DIR
    (src/cli/many.c), as `mkdir -p` would, parents and all: 0700 when an
    input is private (no one else may read it), so the outputs' names are
    not shown to those the dumps were kept from; else 0777 less the umask.
    A name that reads as one dump's (x.hprof, x.hprof.zst, x.hprof.7z) is a
    slip, not a directory to make."""
    name = _os.fsdecode(out_dir)
    try:
        _os.stat(name)
        missing = False
    except FileNotFoundError:
        missing = True
    except OSError:  # under a file, say: no directory to make, as the command
        missing = False
    if (not missing or name.endswith(".hprof") or _compression_suffix_len(name)
            or _compression_foreign(name)):
        raise _usage(f"{name} is not a directory")
    mode = 0o777
    for src in srcs:
        try:
            if not _os.stat(src).st_mode & (_stat.S_IRGRP | _stat.S_IROTH):
                mode = 0o700
        except OSError:
            pass  # the run says it
    # os.makedirs gives the parents it makes the umask's mode, not `mode`
    todo = []
    path = _os.path.normpath(name)
    while path and not _os.path.lexists(path):
        todo.append(path)
        parent = _os.path.dirname(path)
        if parent == path:
            break
        path = parent
    try:
        for path in reversed(todo):
            try:
                _os.mkdir(path, mode)
            except FileExistsError:
                pass
    except OSError as e:
        raise Error(f"hprofstrip: cannot make the directory '{name}': {e.strerror}",
                    "write", 4) from e


def strip_many(srcs: _typing.Iterable[_PathArg], out_dir: _PathArg, *,
               jobs: _typing.Optional[int] = None, **options: _typing.Any
               ) -> _typing.List[_typing.Union[_Report, Error]]:
    """Strips every path of `srcs` into the directory `out_dir`, `jobs` at a
    time on threads (None: one per core), as the command's -o DIR FILE...
    -j N does: each output named by output_name() (compress= gives the
    suffix, none without it, as the command's without -z or --gzip), going
    on after one that fails. `options` are strip()'s (not
    obfuscate_names: one mapping per run). Returns, in the order given,
    each one's report or the Error its run raised; a second input of the
    same output name is refused (a UsageError), as the command does.
    `out_dir` that is not there is made, as the command's -o DIR is
    (mode 0700 when an input is private: no one else may read it).
    worst_exit_status(results) is the command's exit status."""
    if "obfuscate_names" in options:
        raise TypeError("hprofstrip: strip_many takes no obfuscate_names (one mapping per run)")
    srcs = list(srcs)
    if not all(_is_path(src) for src in srcs):
        raise TypeError("hprofstrip: strip_many takes paths (the outputs are named after them)")
    if not _os.path.isdir(out_dir):
        _make_out_dir(out_dir, srcs)
    workers = _in_range("jobs", jobs, (0, 1024)) or _os.cpu_count() or 1
    compress = options.get("compress")
    outs = [output_name(src, out_dir, compress) for src in srcs]
    first = {}
    for i, out in enumerate(outs):
        first.setdefault(out, i)

    def one(i):
        if first[outs[i]] != i:
            return UsageError(f"{_os.fsdecode(srcs[i])}: its output {outs[i]} is also "
                              f"{_os.fsdecode(srcs[first[outs[i]]])}'s", "usage", 2)
        try:
            return strip(srcs[i], outs[i], **options)
        except Error as e:
            return e

    with _futures.ThreadPoolExecutor(max(1, min(workers, len(srcs)))) as pool:
        return list(pool.map(one, range(len(srcs))))


# The exit statuses from the least bad to the worst, as the command ranks
# them for many files (hprof-strip(1), EXIT STATUS): findings about an
# input, a broken input, the machine's limits, failures of the system and
# of the command line.
_SEVERITY = (0, 7, 6, 3, 1, 8, 124, 5, 4, 2)


def worst_exit_status(results: _typing.Iterable[_typing.Union[_Report, Error, int]]) -> int:
    """The command's exit status for many runs (audit_many's results:
    reports, Errors, or exit statuses): the worst of theirs, as it ranks
    them; 0 for none."""
    def rank(rc):
        # 128 + N, a signal, or an unknown status: worse still
        return _SEVERITY.index(rc) if rc in _SEVERITY else 100 + rc
    worst = 0
    for r in results:
        rc = r.exit_status if isinstance(r, Error) else r["exit_status"] \
            if isinstance(r, dict) else r
        if rank(rc) > rank(worst):
            worst = rc
    return worst


# The presets, in the order --print-rules lists them
_PRESETS = ("none", "default", "privacy", "android-app")


def presets() -> _typing.Dict[str, str]:
    """The built-in rule sets, each with what it does, as `hprof-strip
    --print-rules` lists them."""
    lib = _lib.load()
    return {name: lib.hs_preset_summary(name.encode()).decode() for name in _PRESETS}


def preset_rules(name: str) -> str:
    """The preset `name` as a rule file, the text `hprof-strip --print-rules
    NAME` prints (rules= takes it back). UsageError for an unknown name."""
    lib = _lib.load()
    summary = lib.hs_preset_summary(name.encode()) if isinstance(name, str) else None
    if summary is None:
        raise _usage(f"unknown preset {name!r}: {', '.join(_PRESETS)}")
    rules = lib.hs_rules_create(None)
    if not rules:
        raise MemoryError("hs_rules_create")
    try:
        err = _lib.HsError()
        if lib.hs_rules_preset(rules, name.encode(), _ctypes.byref(err)) != 0:
            raise _usage(err.message.decode(errors="replace"))
        n = lib.hs_rules_print(rules, None, 0)
        buf = _ctypes.create_string_buffer(n + 1)
        lib.hs_rules_print(rules, buf, n + 1)
        text = buf.value.decode()
    finally:
        lib.hs_rules_free(rules)
    return f"# hprof-strip rules: preset {name}\n# {summary.decode()}\n{text}"


# The push API (hs_push_*): a dump stripped as it arrives, written in pieces.
# Imported last: _push builds on the helpers above.
from ._push import AsyncStripper, Stripper  # noqa: E402
__all__ += ["Stripper", "AsyncStripper"]
