# SPDX-License-Identifier: Apache-2.0
"""Stripping a dump as it arrives: Stripper and AsyncStripper, a thin layer
over the library's push API (hprof_strip(3), hs_push_new).

The library runs the strip on a native thread of its own over the bytes
written, through a bounded buffer (1 MiB by default): a write that finds it
full waits until the run has read some, so memory stays flat however long
the upload. Stripper's write waits in the library with the GIL released;
AsyncStripper's never blocks the event loop: it writes what fits and
awaits the library's descriptor for room (loop.add_reader), so an async
server needs no thread of its own.

    async def upload(request):
        async with hprofstrip.AsyncStripper("/srv/dumps/app.hprof.zst") as s:
            async for chunk in request.content.iter_any():
                await s.write(chunk)
        return web.json_response(s.report)
"""
import asyncio
import ctypes
import json
import os

from . import _lib

__all__ = ["Stripper", "AsyncStripper"]


class _PushOptions(ctypes.Structure):
    """hs_push_options (sized: `size` says how much this package knows)."""
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("buffer", ctypes.c_size_t),
        ("json_report", ctypes.c_int),
        ("reserved", ctypes.c_int),
    ]


_PROTOTYPES = {
    "hs_push_new": (ctypes.c_void_p, [ctypes.POINTER(_lib.HsJob), ctypes.c_void_p,
                                      ctypes.POINTER(_PushOptions), ctypes.POINTER(_lib.HsError)]),
    "hs_push_write": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]),
    "hs_push_try_write": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t,
                                         ctypes.POINTER(ctypes.c_size_t)]),
    "hs_push_try_end": (ctypes.c_int, [ctypes.c_void_p]),
    "hs_push_fd": (ctypes.c_int, [ctypes.c_void_p]),
    "hs_push_done": (ctypes.c_int, [ctypes.c_void_p]),
    # the report is a char * to give back with hs_free (c_void_p, as hs_job_run's)
    "hs_push_finish": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p)]),
    "hs_push_free": (None, [ctypes.c_void_p]),
}

_HS_SALVAGED = 1


def _push_lib():
    """The library, with the push API declared (LibraryNotFound when it is
    older than the push API)."""
    lib = _lib.load()
    if getattr(lib, "_push_declared", False):
        return lib
    missing = [n for n in _PROTOTYPES if getattr(lib, n, None) is None]
    if missing:
        raise _lib.LibraryNotFound(f"hprofstrip: {_lib.path_of(lib)} lacks {', '.join(missing)}: "
                                   "a library older than the push API")
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name)
        fn.restype, fn.argtypes = restype, argtypes
    lib._push_declared = True
    return lib


def _address(data):
    """bytes to hand the library in place: the object (kept by the caller
    for the call) and its buffer's address."""
    if not isinstance(data, bytes):
        data = bytes(data)  # bytearray, memoryview: a copy the library may read
    return data, ctypes.cast(ctypes.c_char_p(data), ctypes.c_void_p).value or 0


class Stripper:
    """Strips a dump written to it in pieces into `dst`, as it comes.

    dst and the keywords are strip()'s (dst a path, with the command's file
    rule, or a binary file object; a file object without a descriptor is
    written from the library's thread). buffer: the bytes held between
    write() and the run (None: 1 MiB).

    write(data) hands bytes on (bytes, bytearray or memoryview), waiting
    while the buffer is full; close() waits for the run and returns its
    JSON report (a dict), as strip() does. Once the run has failed (a broken
    dump), write() and close() raise the Error strip() would. As a context
    manager, close() is called on a normal exit (the report then in
    .report), and the run abandoned (the output removed) on an exception.
    """

    def __init__(self, dst, preset="default", rules=None, mapping=None, compress=None,
                 level=None, threads=None, histogram=False, *, salvage=False, force=False,
                 buffer=None):
        from . import _Run, _compression, _identities, _job, _set_names
        self._lib = _push_lib()
        self.report = None
        self._dst = dst
        self._force = force
        self._salvage = salvage
        self._push = None
        self._ended = False  # the run ended before its input (salvaged): drop the rest
        self._job = _job(preset, rules, mapping, _compression(compress, dst), level, threads,
                         histogram, salvage=salvage)
        _set_names(self._job, None, dst)
        self._reads = _identities(mapping, rules if hasattr(rules, "__fspath__") else None)
        if buffer is not None and (isinstance(buffer, bool) or not isinstance(buffer, int)
                                   or buffer < 0):
            raise ValueError(f"hprofstrip: buffer={buffer!r}: a count of bytes, or None")
        self._run = _Run(self._lib)
        try:
            self._run.open_output(dst, self._job.compress, self._job.level, self._job.threads,
                                  self._reads, None, force)
            opt = _PushOptions(ctypes.sizeof(_PushOptions), buffer or 0, 1, 0)
            err = _lib.HsError()
            self._push = self._lib.hs_push_new(ctypes.byref(self._job), self._run.output,
                                               ctypes.byref(opt), ctypes.byref(err))
            if not self._push:
                from . import _open_error
                raise _open_error(err, "push")
        except BaseException:
            self._run.close()
            raise

    # ---- writing ----

    def write(self, data):
        """Hands `data` to the run, waiting while the buffer is full."""
        self._check_open()
        if self._ended:
            return
        data, addr = _address(data)
        s = self._lib.hs_push_write(self._push, addr, len(data))
        if s != 0:
            self._stopped(s)

    def _check_open(self):
        if self._push is None:
            raise ValueError("hprofstrip: write to a closed Stripper")

    def _stopped(self, status):
        """The run ended before its input: a salvaged cut drops the rest;
        a failure is raised now, with the run's report."""
        if status == _HS_SALVAGED:
            self._ended = True
            return
        self._finish()  # raises the run's Error

    # ---- the end ----

    def close(self):
        """Ends the input, waits for the run, and returns its report."""
        if self._push is None:
            return self.report
        return self._finish()

    def abort(self):
        """Abandons the run: its thread stopped, the output removed (a
        path's) or left as it is (a file object's part)."""
        if self._push is not None:
            self._lib.hs_push_free(self._push)
            self._push = None
            self._run.close()

    def _finish(self):
        from . import Error, _OK, _SALVAGED
        lib, run = self._lib, self._run
        report_p = ctypes.c_void_p()
        try:
            rc = lib.hs_push_finish(self._push, ctypes.byref(report_p))
            report = None
            if report_p.value:
                report = json.loads(ctypes.string_at(report_p.value).decode(errors="replace"))
            lib.hs_push_free(self._push)
            self._push = None
            run.reraise()
            failed = rc not in (_OK, _SALVAGED) or (rc == _SALVAGED and not self._salvage)
            if failed and report is None:
                raise Error(f"exit status {rc}", None, rc)
            kept = isinstance(report.get("output"), dict) and report["output"].get("kept") is True
            if failed and not (self._salvage and kept):
                if isinstance(report.get("output"), dict) and run.file is not None:
                    report["output"]["kept"] = False
                raise Error.from_report(report)
            self._commit(report)
            if failed:
                raise Error.from_report(report)
            self.report = report
            return report
        finally:
            if report_p.value:
                lib.hs_free(report_p)
            if self._push is not None:
                lib.hs_push_free(self._push)
                self._push = None
            run.close()

    def _commit(self, report):
        """The output complete: closed, and a path's put in place."""
        from . import Error
        lib, run = self._lib, self._run
        out, run.output = run.output, None
        lib.hs_output_close(out)
        if run.file is not None:
            try:
                run.file.commit(self._force, self._reads)
            except OSError as e:
                if report is not None:
                    report["output"]["kept"] = False
                raise Error(f"{os.fsdecode(self._dst)}: {e.strerror or e}", "write", 4, None,
                            report) from e
        elif hasattr(self._dst, "flush"):
            self._dst.flush()

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            self.close()
        else:
            self.abort()
        return False

    def __del__(self):
        # never finished nor abandoned: a thread and a buffer of the library's
        if getattr(self, "_push", None) is not None:
            self.abort()


class AsyncStripper(Stripper):
    """Stripper for asyncio: `await s.write(data)` and `await s.close()`
    never block the event loop. A write hands the library what fits, and
    for the rest awaits the library's descriptor, which turns readable when
    the run has read some (loop.add_reader); close awaits the run's end the
    same way. No thread of the caller's is used. `async with` closes (the
    report in .report) or abandons as Stripper's `with` does."""

    async def _readable(self):
        loop = asyncio.get_running_loop()
        fd = self._lib.hs_push_fd(self._push)
        if fd < 0:  # no pipe to be had: look again shortly
            await asyncio.sleep(0.01)
            return
        fut = loop.create_future()

        def ready():
            if not fut.done():
                fut.set_result(None)
        loop.add_reader(fd, ready)
        try:
            await fut
        finally:
            loop.remove_reader(fd)

    async def write(self, data):
        """Hands `data` to the run, awaiting room while the buffer is full."""
        self._check_open()
        if self._ended:
            return
        data, addr = _address(data)
        pos, taken = 0, ctypes.c_size_t()
        while pos < len(data):
            s = self._lib.hs_push_try_write(self._push, addr + pos, len(data) - pos,
                                            ctypes.byref(taken))
            if s != 0:
                self._stopped(s)
                return
            pos += taken.value
            if pos < len(data):
                await self._readable()

    async def close(self):
        """Ends the input, awaits the run's end, and returns its report."""
        if self._push is None:
            return self.report
        while not self._lib.hs_push_try_end(self._push):
            await self._readable()
        while not self._lib.hs_push_done(self._push):
            await self._readable()
        return self._finish()  # the run has ended: no wait

    async def __aenter__(self):
        return self

    async def __aexit__(self, exc_type, exc, tb):
        if exc_type is None:
            await self.close()
        else:
            self.abort()
        return False

    def __enter__(self):
        raise TypeError("hprofstrip: AsyncStripper is used with `async with`")
