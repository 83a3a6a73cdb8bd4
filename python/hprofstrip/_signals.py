# SPDX-License-Identifier: Apache-2.0
"""Signals during a run, as Python programs expect them.

A run called from the main thread goes on a thread of its own
(hs_job_run there, every signal the process may be sent blocked in it and
in the library's threads it starts), so the signals reach the main thread,
which waits on a pipe: a Ctrl-C raises KeyboardInterrupt there at once,
not when the library returns (a foreign call holds the main thread until
then, and Python runs its handlers only between bytecodes). Then the run
is cancelled through the job's progress callback (the library's cancel,
taken at its next MiB), waited for, and the exception raised: the caller's
`finally` removes the temporary output. Any exception in the main thread
does the same (a handler's own, the progress callable's).

The progress callable is still called on the calling thread: the run's
thread hands each call over through the pipes and waits for the answer.

SIGTERM: Python leaves it at its default, which kills the process where
it stands and leaves the temporary output. While a run is active on the
main thread and SIGTERM is at its default, a handler stands in: the run is
cancelled and cleaned up as for Ctrl-C, then the default is put back and
the signal sent again, so the process still dies of SIGTERM (its parent
sees what it would have seen). A handler of the program's own is left
alone (it runs, and what it raises ends the run as above).
"""
import ctypes
import os
import select
import signal
import threading

from . import _lib

# Directed at the thread that caused them: never blocked in the run's
# thread (a blocked SIGSEGV is death anyway; SIGPIPE and SIGXFSZ are the
# write's own, ignored or fatal as the program set them).
_SYNCHRONOUS = {signal.SIGSEGV, signal.SIGBUS, signal.SIGFPE, signal.SIGILL, signal.SIGABRT,
                signal.SIGTRAP, signal.SIGSYS, signal.SIGPIPE, signal.SIGXFSZ}

# How often the main thread looks up while it waits: a signal delivered
# to another thread of the program (not the run's: they block it) is seen
# within this.
_POLL_S = 0.05


class Terminated(BaseException):
    """SIGTERM arrived during a run, which is cancelled; Guard sends it again."""


def on_main_thread():
    return threading.current_thread() is threading.main_thread()


class Guard:
    """The SIGTERM handler for the length of one call (see the top): with
    it, a SIGTERM raises Terminated once; on the way out the default is
    put back and, after Terminated, the signal sent again."""

    def __init__(self):
        self.installed = False
        self.raised = False

    def _handler(self, signum, frame):
        if not self.raised:  # once: the cleanup is not interrupted again
            self.raised = True
            raise Terminated()

    def __enter__(self):
        if on_main_thread():
            try:
                if signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
                    signal.signal(signal.SIGTERM, self._handler)
                    self.installed = True
            except (ValueError, OSError):
                pass
        return self

    def __exit__(self, kind, value, tb):
        if not self.installed:
            return False
        self.installed = False
        if signal.getsignal(signal.SIGTERM) != self._handler:
            return False  # the program set its own meanwhile: it stays
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        if self.raised:
            # at its default now: the process ends here, as it would have
            os.kill(os.getpid(), signal.SIGTERM)
            # SIGTERM is blocked on this thread: it is pending, and ends the
            # process when unblocked; until then, the exit status it means
            raise SystemExit(128 + signal.SIGTERM)
        return False


class Worker:
    """One hs_job_run on a thread of its own, the main thread waiting for
    it (run()). `progress` is the caller's callable or None."""

    def __init__(self, lib, progress):
        self.lib = lib
        self.user = progress
        self.cancelled = False  # set by the main thread only: the worker reads it
        self.finished = False
        self.rc = None
        self.error = None  # what the worker's own Python raised (ctypes)
        self.request = None  # a progress call for the main thread
        self.fn = _lib.PROGRESS_FN(self._progress)
        # to the main thread: b"p" a progress call waits, b"d" the run is over;
        # to the worker: the progress call's answer, b"1" to cancel
        self.to_main = os.pipe()
        self.to_worker = os.pipe()

    def _progress(self, ctx, in_bytes, in_hprof, out_hprof):
        """The job's progress callback, on the run's thread."""
        if self.cancelled:
            return 1
        if self.user is None:
            return 0
        self.request = (in_bytes, in_hprof, out_hprof)
        os.write(self.to_main[1], b"p")
        answer = os.read(self.to_worker[0], 1)
        return 1 if self.cancelled or answer != b"0" else 0

    def _body(self, job, src, dst, report_p):
        # the process's signals go to the other threads, the main one
        signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals() - _SYNCHRONOUS)
        try:
            self.rc = self.lib.hs_job_run(ctypes.byref(job), src, dst, report_p)
        except BaseException as e:  # noqa: B902 - given to the main thread
            self.error = e
        finally:
            try:
                os.write(self.to_main[1], b"d")
            finally:
                # after the write: the main thread closes the pipes once it
                # sees this (the thread does nothing more)
                self.finished = True

    def _next(self):
        """The worker's next word (b"p", b"d"), or None after _POLL_S."""
        ready, _, _ = select.select([self.to_main[0]], [], [], _POLL_S)
        return os.read(self.to_main[0], 1) if ready else None

    def _serve(self):
        """Answers progress calls until the run is over."""
        while True:
            word = self._next()
            if word == b"d" or (word is None and self.finished):
                return
            if word == b"p":
                answer = self.user(*self.request)
                os.write(self.to_worker[1], b"1" if answer else b"0")

    def _cancel(self):
        """Cancels the run and waits for its end, whatever is raised
        meanwhile (a second Ctrl-C): the caller cleans up after it."""
        self.cancelled = True
        while True:
            try:
                # a progress call may wait for an answer (it was read, or
                # is on its way): this one, or cancelled seen first
                os.write(self.to_worker[1], b"1")
                while not self.finished:
                    if self._next() == b"p":
                        os.write(self.to_worker[1], b"1")
                return
            except BaseException:  # noqa: B902 - the first exception is the one raised
                continue

    def run(self, job, src, dst, report_p):
        """hs_job_run(&job, src, dst, report_p) on the worker: its return."""
        job.progress = self.fn
        thread = threading.Thread(target=self._body, args=(job, src, dst, report_p),
                                  name="hprofstrip-run")
        try:
            thread.start()
            self._serve()
        except BaseException:
            if thread.ident is not None:
                self._cancel()
            raise
        finally:
            if thread.ident is not None:
                thread.join()  # finished: it only returns now
            for fd in self.to_main + self.to_worker:
                os.close(fd)
        if self.error is not None:
            raise self.error
        return self.rc
