# SPDX-License-Identifier: Apache-2.0
"""Binary file objects as the library's read and write callbacks.

The library calls these from its own threads (the gzip reader, the
compressor's writer): ctypes takes the GIL for each call. An exception
cannot cross C, so it is kept, the callback returns -1 (the library then
fails the run with a read or write error) and the run re-raises it.
"""
import ctypes
import io

from . import _lib


class Callback:
    """Holds the CFUNCTYPE object (which must outlive the run, or the
    library would call freed code) and the first exception raised."""

    def __init__(self):
        self.error = None
        self.fn = None

    def reraise(self):
        if self.error is not None:
            e, self.error = self.error, None
            raise e


class Reader(Callback):
    """f.readinto() straight into the library's buffer where f has it,
    else f.read() copied in."""

    def __init__(self, f):
        super().__init__()
        self.f = f
        readinto = getattr(f, "readinto", None)
        self.fn = _lib.READ_FN(self._readinto if readinto else self._read)

    def _readinto(self, ctx, buf, cap):
        try:
            view = memoryview((ctypes.c_char * cap).from_address(buf)).cast("B")
            try:
                n = self.f.readinto(view)
            finally:
                view.release()
            if n is None:  # a non-blocking object with nothing ready
                raise BlockingIOError("the input file object is non-blocking")
            if not 0 <= n <= cap:
                raise ValueError(f"readinto() returned {n} for a buffer of {cap}")
            return n
        except BaseException as e:  # noqa: B902 - KeyboardInterrupt too, re-raised
            if self.error is None:
                self.error = e
            return -1

    def _read(self, ctx, buf, cap):
        try:
            data = self.f.read(cap)
            if data is None:
                raise BlockingIOError("the input file object is non-blocking")
            n = len(data)
            if n > cap:
                raise ValueError(f"read({cap}) returned {n} bytes")
            ctypes.memmove(buf, bytes(data), n)
            return n
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            return -1


class Writer(Callback):
    """f.write() of a copy (the object may keep what it is given; the
    library's buffer is reused as soon as the callback returns), repeated
    until everything is taken (a raw file may take part of it)."""

    def __init__(self, f):
        super().__init__()
        self.f = f
        # a raw file (io.FileIO, a socket's) may take part of what it is given
        self.raw = isinstance(f, io.RawIOBase)
        self.fn = _lib.WRITE_FN(self._write)

    def _write(self, ctx, buf, length):
        try:
            data = ctypes.string_at(buf, length)
            if not self.raw:
                # io's buffered objects, BytesIO and the like take it all
                # or raise; what they return is not looked at (many
                # hand-made writers return None)
                self.f.write(data)
                return 0
            view = memoryview(data)
            while view:
                n = self.f.write(view)
                if n is None:
                    raise BlockingIOError("the output file object is non-blocking")
                if not 0 < n <= len(view):
                    raise OSError(f"write() of {len(view)} bytes returned {n}")
                view = view[n:]
            return 0
        except BaseException as e:  # noqa: B902
            if self.error is None:
                self.error = e
            return -1


class Progress(Callback):
    """A progress callable as the job's progress callback: called with the
    input's bytes read (compressed ones for a .gz or .zst), the HPROF bytes
    decompressed and the HPROF bytes written so far; a truthy return
    cancels the run, and so does an exception, kept to be re-raised."""

    def __init__(self, fn):
        super().__init__()
        if not callable(fn):
            raise TypeError("hprofstrip: progress is a callable (in_bytes, in_hprof_bytes, "
                            "out_hprof_bytes) -> bool")
        self.user = fn
        self.fn = _lib.PROGRESS_FN(self._progress)

    def _progress(self, ctx, in_bytes, in_hprof_bytes, out_hprof_bytes):
        if self.error is not None:
            return 1
        try:
            return 1 if self.user(in_bytes, in_hprof_bytes, out_hprof_bytes) else 0
        except BaseException as e:  # noqa: B902 - KeyboardInterrupt too, re-raised
            self.error = e
            return 1
