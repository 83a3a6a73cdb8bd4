# SPDX-License-Identifier: Apache-2.0
"""The tool's file rule for an output named by path (hprof-strip(1), FILES).

A run replaces no file but its named output, and that only when asked
(force): a regular output is written under a temporary name beside it,
NAME.tmp-XXXXXX, and given its name at the end by a rename that replaces
nothing; the temporary is removed on every failure. Never a file the run
reads, never a directory; a character device or a FIFO (/dev/null, a pipe)
is written into as it is. A new file gets what any new file gets (0666 less
the umask), never wider than the input's bits, nor than those of the file
it replaces.
"""
import ctypes
import errno
import os
import secrets
import stat
import string

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_ALPHABET = string.ascii_letters + string.digits


class Refused(Exception):
    """The output is one the file rule refuses (a usage error, exit 2)."""


class Output:
    """The descriptor a run writes into, and what to do with it at the end."""

    def __init__(self, path, fd, temp):
        self.path = path  # the name asked for
        self.fd = fd
        self.temp = temp  # the temporary name, or None when written in place

    def discard(self):
        """After a failure: close, and remove the temporary name."""
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None
        if self.temp is not None:
            try:
                os.unlink(self.temp)
            except FileNotFoundError:
                pass
            self.temp = None

    def commit(self, force, reads):
        """After a complete run: close, and give the output its name.
        Raises OSError when that fails (the temporary is removed then)."""
        fd, self.fd = self.fd, None
        try:
            os.close(fd)
            if self.temp is not None:
                if force:
                    # Never a file the run reads, nor what is not a regular
                    # file, though it came there during the run.
                    _check_target(self.path, reads, force)
                    os.replace(self.temp, self.path)
                else:
                    _rename_noreplace(self.temp, self.path)
                self.temp = None
        finally:
            self.discard()


def _identity(st):
    return (st.st_dev, st.st_ino)


def _check_target(path, reads, force):
    """Raises Refused when the file at `path` may not be replaced; returns
    its stat result, or None when there is none."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        return None
    if _identity(st) in reads:
        raise Refused(f"{os.fsdecode(path)} is a file this run reads: it is never replaced")
    if stat.S_ISDIR(st.st_mode):
        raise Refused(f"{os.fsdecode(path)} is a directory")
    if stat.S_ISBLK(st.st_mode) and not force:
        raise Refused(f"{os.fsdecode(path)} is a block device (force=True writes it)")
    if stat.S_ISREG(st.st_mode) and not force:
        raise Refused(f"{os.fsdecode(path)} exists (force=True replaces it)")
    return st


def open_output(path, reads, in_mode, force):
    """Opens the output named `path` under the file rule. `reads` is the set
    of (device, inode) of the files the run reads; `in_mode` the input
    file's mode bits, or None when the input is not a regular file."""
    st = _check_target(path, reads, force)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # A character device, FIFO, socket (or a block device with force):
        # opened and written into, never replaced nor removed.
        fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
        return Output(path, fd, None)
    mode = 0o666
    if in_mode is not None:
        mode &= in_mode
    if st is not None:
        mode &= st.st_mode
    while True:
        temp = os.fsencode(path) + b".tmp-" + "".join(
            secrets.choice(_ALPHABET) for _ in range(6)).encode()
        if isinstance(path, str):
            temp = os.fsdecode(temp)
        try:
            # the umask applies on top of `mode`, as for any new file
            fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, mode)
        except FileExistsError:
            continue
        return Output(path, fd, temp)


def _renameat2():
    try:
        fn = ctypes.CDLL(None, use_errno=True).renameat2
    except (AttributeError, OSError):
        return None
    fn.restype = ctypes.c_int
    fn.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    return fn


def _rename_noreplace(src, dst):
    """Renames src to dst unless dst exists (FileExistsError then), as the
    tool does: renameat2(RENAME_NOREPLACE), else a hard link and the removal
    of the old name, else (a file system with neither) a check and a rename."""
    fn = _renameat2()
    if fn is not None:
        if fn(_AT_FDCWD, os.fsencode(src), _AT_FDCWD, os.fsencode(dst), _RENAME_NOREPLACE) == 0:
            return
        e = ctypes.get_errno()
        if e not in (errno.EINVAL, errno.ENOSYS, errno.ENOTSUP):
            raise OSError(e, os.strerror(e), os.fsdecode(dst))
    try:
        os.link(src, dst)
    except OSError as e:
        if e.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV):
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(dst))
        os.rename(src, dst)
        return
    os.unlink(src)
