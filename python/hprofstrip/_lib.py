# SPDX-License-Identifier: Apache-2.0
"""The C library, found and declared for ctypes.

Only what the package calls is declared, each with its exact C types, so a
wrong argument fails here (ctypes.ArgumentError) rather than in the library.
The declarations follow src/lib/hprof_strip.h; hs_job is a sized struct,
so this package keeps working with a library that added fields after it.
"""
import ctypes
import ctypes.util
import os

# The soname's major number: what a library installed by `make install` is
# found under when no development link (libhprofstrip.so) was installed.
SONAME = "libhprofstrip.so.0"

# hs_compression
COMPRESS_NONE, COMPRESS_ZSTD, COMPRESS_GZIP = 0, 1, 2


class HsError(ctypes.Structure):
    """hs_error: everything known about a failure."""
    _fields_ = [
        ("code", ctypes.c_int),
        ("offset", ctypes.c_uint64),
        ("record_offset", ctypes.c_uint64),
        ("tag", ctypes.c_int),
        ("subtag", ctypes.c_int),
        ("message", ctypes.c_char * 320),
    ]


# int (*progress)(void *ctx, uint64_t in_bytes, uint64_t in_hprof_bytes,
#                 uint64_t out_hprof_bytes): hs_job_progress_fn
PROGRESS_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64, ctypes.c_uint64,
                               ctypes.c_uint64)


# int (*write)(void *ctx, uint64_t off, const void *buf, size_t len) and
# int (*read)(void *ctx, uint64_t off, void *buf, size_t len): hs_spill's
SPILL_WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                                  ctypes.c_void_p, ctypes.c_size_t)
SPILL_READ_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                                 ctypes.c_void_p, ctypes.c_size_t)


class HsSpill(ctypes.Structure):
    """hs_spill: where held instances go past hold_in_memory."""
    _fields_ = [("write", SPILL_WRITE_FN), ("read", SPILL_READ_FN), ("ctx", ctypes.c_void_p)]


class HsOptions(ctypes.Structure):
    """hs_options: the filter's options (hs_job.options, sized by
    options_size, so a newer library reads the fields it lacks as 0)."""
    _fields_ = [
        ("repack", ctypes.c_int),
        ("segment_cap", ctypes.c_size_t),
        ("salvage", ctypes.c_int),
        ("find_duplicates", ctypes.c_int),
        ("histogram", ctypes.c_int),
        ("count_nonzero", ctypes.c_int),
        ("findings", ctypes.c_int),
        ("to_jvm", ctypes.c_int),
        ("read_buffer", ctypes.c_size_t),
        ("max_held", ctypes.c_uint64),
        ("hold_in_memory", ctypes.c_uint64),
        ("spill", HsSpill),
        ("obfuscate_names", ctypes.c_int),
    ]


# int (*write)(void *ctx, const void *buf, size_t len)
WRITE_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)


class HsSink(ctypes.Structure):
    """hs_sink: where hs_filter_obfuscation_map writes."""
    _fields_ = [("write", WRITE_FN), ("ctx", ctypes.c_void_p)]


# int (*finished)(void *ctx, const hs_filter *filter, int exit_code)
FINISHED_FN = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


class HsJob(ctypes.Structure):
    """hs_job: one whole run, as the CLI makes it. `size` tells the library
    how much of the struct this package knows (later fields read as 0; a
    library older than `progress` ignores it and the names)."""
    _fields_ = [
        ("size", ctypes.c_size_t),
        ("preset", ctypes.c_char_p),
        ("rules_text", ctypes.c_char_p),
        ("rules_len", ctypes.c_size_t),
        ("mapping_path", ctypes.c_char_p),
        ("compress", ctypes.c_int),
        ("level", ctypes.c_int),
        ("threads", ctypes.c_int),
        ("histogram", ctypes.c_int),
        ("audit", ctypes.c_int),
        ("salvage", ctypes.c_int),
        # added in 0.3
        ("progress", PROGRESS_FN),
        ("progress_ctx", ctypes.c_void_p),
        ("in_name", ctypes.c_char_p),
        ("out_name", ctypes.c_char_p),
        # added in 0.4
        ("rules", ctypes.c_void_p),
        ("options", ctypes.POINTER(HsOptions)),
        ("options_size", ctypes.c_size_t),
        # added in 0.6
        ("report", ctypes.c_void_p),
        ("full_report", ctypes.c_int),
        ("snapshot", ctypes.c_void_p),
        ("started", ctypes.c_void_p),
        ("finished", FINISHED_FN),
        ("hooks_ctx", ctypes.c_void_p),
    ]


# What a job of the fields up to `salvage`, `out_name` and `options_size`
# is, for a library older than the fields after (0.3, 0.4).
JOB_SIZE_0_3 = HsJob.rules.offset
JOB_SIZE_0_4 = HsJob.report.offset


# long (*read)(void *ctx, void *buf, size_t cap)
READ_FN = ctypes.CFUNCTYPE(ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t)
_ERR = ctypes.POINTER(HsError)
_PROTOTYPES = {
    # name: (restype, argtypes)
    "hs_status_str": (ctypes.c_char_p, [ctypes.c_int]),
    "hs_input_open_path": (ctypes.c_void_p, [ctypes.c_char_p, _ERR]),
    "hs_input_open_fd": (ctypes.c_void_p, [ctypes.c_int, _ERR]),
    "hs_input_open_read": (ctypes.c_void_p, [READ_FN, ctypes.c_void_p, _ERR]),
    "hs_input_close": (None, [ctypes.c_void_p]),
    "hs_output_open_fd": (ctypes.c_void_p,
                          [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_int, _ERR]),
    "hs_output_open_write": (ctypes.c_void_p, [WRITE_FN, ctypes.c_void_p, ctypes.c_int,
                                               ctypes.c_int, ctypes.c_int, _ERR]),
    "hs_output_finish": (ctypes.c_int, [ctypes.c_void_p, _ERR]),
    "hs_output_close": (None, [ctypes.c_void_p]),
    # the report is a char * to give back with hs_free: c_void_p, not
    # c_char_p, which would copy it and lose the pointer
    "hs_job_run": (ctypes.c_int, [ctypes.POINTER(HsJob), ctypes.c_void_p, ctypes.c_void_p,
                                  ctypes.POINTER(ctypes.c_void_p)]),
    "hs_free": (None, [ctypes.c_void_p]),
}
# Declared when the library has them (helper "abi" adds hs_version).
_OPTIONAL = {
    "hs_version": (ctypes.c_char_p, []),
    # 0.4: --obfuscate-names' mapping; the presets as rule files
    "hs_filter_obfuscation_map": (ctypes.c_int, [ctypes.c_void_p, ctypes.POINTER(HsSink)]),
    "hs_rules_create": (ctypes.c_void_p, [ctypes.c_void_p]),
    "hs_rules_free": (None, [ctypes.c_void_p]),
    "hs_rules_preset": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p, _ERR]),
    "hs_rules_print": (ctypes.c_size_t, [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_size_t]),
    "hs_preset_summary": (ctypes.c_char_p, [ctypes.c_char_p]),
    # 0.7: the codec table's suffixes and names
    "hs_compression_of_path": (ctypes.c_int, [ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t)]),
    "hs_compression_of_name": (ctypes.c_int, [ctypes.c_char_p]),
    "hs_compression_suffix": (ctypes.c_char_p, [ctypes.c_int]),
    # 0.8: a compression not written here, by its suffix; an input's
    # message whole (a char * to give back with hs_free: c_void_p)
    "hs_compression_foreign_of_path": (ctypes.c_char_p, [ctypes.c_char_p]),
    "hs_input_open_path_ex": (ctypes.c_void_p, [ctypes.c_char_p, _ERR,
                                                ctypes.POINTER(ctypes.c_void_p)]),
}


def _candidates():
    """Where the library is looked for, in order, and whether it was named:

    1. HPROFSTRIP_LIBRARY, when set: that file or nothing, never a silent
       other one (a test's build, an ASan one, a newer one);
    2. the library the wheel carries, beside this file (pip install builds
       it from the repository's sources: _backend/hsbuild.py);
    3. the source tree's build/libhprofstrip.so, for the package run from
       the tree (PYTHONPATH=python, an editable install) after `make lib`;
    4. the system's: ctypes.util.find_library, then the soname (what
       `make install` put on the loader's path).
    """
    env = os.environ.get("HPROFSTRIP_LIBRARY")
    if env:
        return [env], True
    names = []
    here = os.path.dirname(os.path.abspath(__file__))
    bundled = os.path.join(here, SONAME)
    if os.path.exists(bundled):
        names.append(bundled)
    # python/hprofstrip/ -> the repository's build/
    tree = os.path.join(here, os.pardir, os.pardir, "build", "libhprofstrip.so")
    if os.path.exists(tree):
        names.append(os.path.normpath(tree))
    found = ctypes.util.find_library("hprofstrip")
    if found:
        names.append(found)
    names.append(SONAME)
    return names, False


class LibraryNotFound(OSError):
    """libhprofstrip.so could not be loaded."""


_lib = None


def load():
    """The library, loaded once and declared."""
    global _lib
    if _lib is not None:
        return _lib
    names, explicit = _candidates()
    errors = []
    lib = None
    for name in names:
        try:
            lib = ctypes.CDLL(name)
            break
        except OSError as e:
            errors.append(f"{name}: {e}")
    if lib is None:
        how = "HPROFSTRIP_LIBRARY names" if explicit else "tried"
        raise LibraryNotFound(
            f"hprofstrip: cannot load libhprofstrip ({how} {', '.join(names)}): "
            + "; ".join(errors)
            + " -- build it with `make lib`, install it, or set HPROFSTRIP_LIBRARY")
    missing = []
    for name, (restype, argtypes) in _PROTOTYPES.items():
        fn = getattr(lib, name, None)
        if fn is None:
            missing.append(name)
            continue
        fn.restype, fn.argtypes = restype, argtypes
    if missing:
        raise LibraryNotFound(
            f"hprofstrip: {lib._name} lacks {', '.join(missing)}: a library older than "
            "the I/O and job API this package needs")
    for name, (restype, argtypes) in _OPTIONAL.items():
        fn = getattr(lib, name, None)
        if fn is not None:
            fn.restype, fn.argtypes = restype, argtypes
    _lib = lib
    return lib


def path_of(lib):
    """The file the library was loaded from (for messages and tests)."""
    return lib._name
