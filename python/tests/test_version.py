# SPDX-License-Identifier: Apache-2.0
"""The version, and how the library is found."""
import os
import re
import subprocess
import sys

from conftest import PYTHON_DIR, ROOT, library_path


def header_version():
    with open(os.path.join(ROOT, "src", "lib", "hprof_strip.h")) as f:
        return re.search(r'#define HS_VERSION_STRING "([^"]+)"', f.read()).group(1)


def test_version_is_the_projects(hs):
    assert hs.__version__ == header_version(), \
        "python/hprofstrip/_version.py must say HS_VERSION_STRING (src/lib/hprof_strip.h)"
    assert re.fullmatch(r"\d+\.\d+\.\d+", hs.__version__)


def test_library_version(hs):
    from hprofstrip import _lib
    lib = _lib.load()
    v = hs.library_version()
    if getattr(lib, "hs_version", None) is not None:
        assert v == lib.hs_version().decode()
    assert v == header_version()


def run_python(code, env_extra, cwd=None, unset=()):
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(env_extra)
    return subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_named_library_that_is_missing_is_an_error(tmp_path):
    p = run_python("import hprofstrip; hprofstrip.audit('x')",
                   {"PYTHONPATH": PYTHON_DIR,
                    "HPROFSTRIP_LIBRARY": str(tmp_path / "libnothing.so")})
    assert p.returncode != 0
    assert "LibraryNotFound" in p.stderr and "HPROFSTRIP_LIBRARY" in p.stderr


def test_found_in_the_source_tree(tmp_path):
    """No HPROFSTRIP_LIBRARY: the repository's build/libhprofstrip.so."""
    code = ("import hprofstrip, hprofstrip._lib as l; "
            "print(l.path_of(l.load()))")
    p = run_python(code, {"PYTHONPATH": PYTHON_DIR}, cwd=tmp_path,
                   unset=("HPROFSTRIP_LIBRARY",))
    assert p.returncode == 0, p.stderr
    assert os.path.realpath(p.stdout.strip()) == \
        os.path.realpath(os.path.join(ROOT, "build", "libhprofstrip.so"))
    assert os.path.exists(library_path())
