# SPDX-License-Identifier: Apache-2.0
"""What a Python package is expected to be: a namespace of its own names
alone, exceptions that are also the built-in ones they mean, type hints
(py.typed), docstrings that give the defaults the library has."""
import inspect
import os
import types
import typing

import pytest

from conftest import JVM, PYTHON_DIR


def test_namespace_holds_no_modules(hs):
    public = [n for n in dir(hs) if not n.startswith("_")]
    assert not [n for n in public if isinstance(getattr(hs, n), types.ModuleType)]
    assert sorted(public) == sorted(n for n in hs.__all__ if not n.startswith("_"))
    for name in ("ctypes", "os", "json", "io", "stat", "operator", "typing", "errno"):
        assert not hasattr(hs, name), name


def test_missing_input_is_a_file_not_found_error(hs, tmp_path):
    missing = tmp_path / "nothing.hprof"
    with pytest.raises(FileNotFoundError) as e:
        hs.strip(missing, tmp_path / "out.hprof")
    assert isinstance(e.value, hs.Error) and isinstance(e.value, hs.NotFoundError)
    assert (e.value.status, e.value.exit_status) == ("read", 4)
    assert e.value.filename == str(missing) and e.value.errno == 2
    with pytest.raises(FileNotFoundError):
        hs.audit(missing)
    # a rule file or mapping that is not there: the command's usage error
    for kw in ({"rules": tmp_path / "nothing.rules"}, {"mapping": tmp_path / "nothing.txt"}):
        with pytest.raises(FileNotFoundError) as e:
            hs.strip(JVM, tmp_path / "out.hprof", **kw)
        assert isinstance(e.value, hs.Error) and e.value.status == "usage"
    assert os.listdir(tmp_path) == []


def test_bad_argument_is_a_value_error(hs, tmp_path):
    for kw in ({"preset": "nosuch"}, {"rules": "frobnicate everything\n"}, {"level": 99},
               {"compress": "xz"}, {"threads": -1}, {"timeout": -1}, {"max_held": 0}):
        with pytest.raises(ValueError) as e:
            hs.strip(JVM, tmp_path / "out.hprof", **kw)
        assert isinstance(e.value, hs.UsageError), kw
        assert (e.value.status, e.value.exit_status) == ("usage", 2), kw
    (tmp_path / "there.hprof").write_bytes(b"")
    with pytest.raises(ValueError):
        hs.strip(JVM, tmp_path / "there.hprof")  # exists: force=True replaces it
    assert sorted(os.listdir(tmp_path)) == ["there.hprof"]


def test_errors_still_pickle_whole(hs, tmp_path):
    import pickle
    with pytest.raises(hs.NotFoundError) as e:
        hs.strip(tmp_path / "nothing.hprof", tmp_path / "out.hprof")
    back = pickle.loads(pickle.dumps(e.value))
    assert type(back) is hs.NotFoundError
    assert (back.status, back.exit_status, back.filename, str(back)) == \
        (e.value.status, e.value.exit_status, e.value.filename, str(e.value))


def test_typed(hs):
    assert os.path.exists(os.path.join(PYTHON_DIR, "hprofstrip", "py.typed"))
    for name in ("strip", "strip_many", "output_name", "audit", "audit_many",
                 "worst_exit_status", "presets",
                 "preset_rules", "library_version"):
        hints = typing.get_type_hints(getattr(hs, name))
        assert "return" in hints, name
    params = inspect.signature(hs.strip).parameters
    assert not [p for p in params if p not in typing.get_type_hints(hs.strip)]


def test_docstrings_give_the_librarys_default_levels(hs, tmp_path, cli):
    # level None is the command's -z and --gzip: zstd 1 for 8-byte ids,
    # gzip 1; the docstring says so
    doc = hs.strip.__doc__
    assert "zstd 1" in doc and "gzip 1" in doc
    assert "zstd 3)" not in doc and "gzip 6" not in doc
    for ext, flag in ((".zst", "-z"), (".gz", "--gzip")):
        cli(flag, "-o", str(tmp_path / ("cli.hprof" + ext)), JVM)
        hs.strip(JVM, tmp_path / ("py.hprof" + ext))
        for lvl in ("1",):
            cli(f"{flag}={lvl}" if flag == "--gzip" else f"-z{lvl}",
                "-o", str(tmp_path / ("l.hprof" + ext)), JVM)
        a = (tmp_path / ("cli.hprof" + ext)).read_bytes()
        assert a == (tmp_path / ("py.hprof" + ext)).read_bytes()
        assert a == (tmp_path / ("l.hprof" + ext)).read_bytes()
        os.unlink(tmp_path / ("l.hprof" + ext))
