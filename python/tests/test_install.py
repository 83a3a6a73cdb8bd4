# SPDX-License-Identifier: Apache-2.0
"""`pip install ./python` offline (no index: build isolation with nothing to
download), then the issue's one-liner through the installed package: with
the library the wheel carries (built from the repository's sources, no
`make install`, no HPROFSTRIP_LIBRARY), in a fresh venv; the wheel
`pip wheel ./python` makes, installed in another fresh venv from a copy
elsewhere; and a wheel without the library, which finds the system's by its
soname on the loader's path."""
import os
import shutil
import subprocess
import sys
import sysconfig
import zipfile

import pytest

from conftest import JVM_GZ, PYTHON_DIR, cli_path, library_path
from hprofstrip import _version
from hprofstrip._lib import SONAME

# Debian's interpreter, whose pip the tests drive (the issue's fresh venv)
SYSTEM_PYTHON = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable

ISSUE = ('import hprofstrip; print(hprofstrip.strip("in.hprof.gz", "out.hprof.zst", '
         'preset="privacy", compress="zstd")["exit_status"])')


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("HPROFSTRIP_LIBRARY", "PYTHONPATH")}
    # offline: an index asked for anything fails the install
    env.update(PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_CACHE_DIR="1", PIP_ROOT_USER_ACTION="ignore")
    env.update(extra)
    return env


def pip_install(target, tmp_path):
    # a copy, so that no build/ or egg-info can be left in the tree; no C
    # sources beside it, so a wheel without the library is asked for
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "__pycache__", ".pytest_cache", "tests", "libhprofstrip.so*"))
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index",
                        "--target", str(target), str(src)],
                       env=clean_env(HPROFSTRIP_BUNDLE_LIBRARY="0"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    return p


@pytest.fixture
def issue_dir(tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    shutil.copy(JVM_GZ, d / "in.hprof.gz")
    return d


def test_issue_one_liner_from_the_tree(issue_dir):
    p = subprocess.run([sys.executable, "-c", ISSUE], cwd=issue_dir,
                       env=clean_env(PYTHONPATH=PYTHON_DIR),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "0\n"
    assert (issue_dir / "out.hprof.zst").read_bytes()[:4] == b"\x28\xb5\x2f\xfd"


def test_pip_install_without_the_library_finds_the_systems(tmp_path, issue_dir):
    target = tmp_path / "site"
    pip_install(target, tmp_path)
    assert (target / "hprofstrip" / "__init__.py").exists()
    assert not list((target / "hprofstrip").glob("libhprofstrip*"))
    dist = [n for n in os.listdir(target) if n.endswith(".dist-info")]
    assert len(dist) == 1 and dist[0].startswith("hprofstrip-")
    # the library as installed: found by its soname (LD_LIBRARY_PATH stands
    # for ldconfig's directories), not by the source tree
    libdir = tmp_path / "lib"
    libdir.mkdir()
    shutil.copy(os.path.realpath(library_path()), libdir / "libhprofstrip.so.0")
    env = clean_env(PYTHONPATH=str(target), LD_LIBRARY_PATH=str(libdir))
    p = subprocess.run([sys.executable, "-c", ISSUE], cwd=issue_dir, env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == "0\n"
    p = subprocess.run([sys.executable, "-c",
                        "import hprofstrip._lib as l; print(l.path_of(l.load()))"],
                       cwd=issue_dir, env=env, stdout=subprocess.PIPE, text=True)
    assert p.stdout.strip() == "libhprofstrip.so.0"


def fresh_venv(path):
    """A venv of Debian's interpreter, without pip: the system's pip installs
    into it (--python); skips when pip or venv cannot."""
    p = subprocess.run([SYSTEM_PYTHON, "-m", "venv", "--without-pip", str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        pytest.skip(f"no venv here: {p.stdout}")
    return path / "bin" / "python"


def venv_pip(py, *args):
    p = subprocess.run([SYSTEM_PYTHON, "-m", "pip", "--python", str(py), *args],
                       env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       text=True)
    if "no such option: --python" in p.stdout:
        pytest.skip("pip older than 22.3 has no --python")
    assert p.returncode == 0, p.stdout
    return p


# The one-liner, then where the package and its library were loaded from.
WHERE = ISSUE + ('; import hprofstrip._lib as l; print(hprofstrip.__file__); '
                 'print(l.path_of(l.load()))')


def run_issue(py, issue_dir, venv):
    """The issue's one-liner by the venv's interpreter, from a directory
    outside the repository, with neither HPROFSTRIP_LIBRARY nor PYTHONPATH:
    it works, and the package and library are the venv's own."""
    p = subprocess.run([str(py), "-c", WHERE], cwd=issue_dir, env=clean_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    status, package, library = p.stdout.splitlines()
    assert status == "0"
    assert package.startswith(str(venv)), package
    assert library.startswith(str(venv)), library
    assert os.path.basename(library) == SONAME
    # the same bytes as the command's
    out = issue_dir / "out.hprof.zst"
    ref = issue_dir / "ref.hprof.zst"
    subprocess.run([cli_path(), "-q", "-p", "privacy", "-z", "-o", str(ref),
                    str(issue_dir / "in.hprof.gz")], check=True)
    assert out.read_bytes() == ref.read_bytes()


def test_pip_install_into_a_fresh_venv_bundles_the_library(tmp_path, issue_dir):
    venv = tmp_path / "venv"
    py = fresh_venv(venv)
    # the system's pip, installing the repository's python/ into the venv
    venv_pip(py, "install", "--no-index", PYTHON_DIR)
    libs = list(venv.glob(f"lib/python*/site-packages/hprofstrip/{SONAME}"))
    assert len(libs) == 1
    run_issue(py, issue_dir, venv)


def test_pip_wheel_installs_without_the_sources(tmp_path, issue_dir):
    built = tmp_path / "built"
    p = subprocess.run([SYSTEM_PYTHON, "-m", "pip", "wheel", "--no-index", "--no-deps",
                        "-w", str(built), PYTHON_DIR], env=clean_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    assert p.returncode == 0, p.stdout
    wheels = os.listdir(built)
    assert len(wheels) == 1
    # a platform wheel: any Python 3 (ctypes), this machine's platform
    plat = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert wheels[0] == f"hprofstrip-{_version.__version__}-py3-none-{plat}.whl"
    with zipfile.ZipFile(built / wheels[0]) as z:
        names = z.namelist()
        wheel_meta = z.read(f"hprofstrip-{_version.__version__}.dist-info/WHEEL").decode()
    assert f"hprofstrip/{SONAME}" in names and "hprofstrip/py.typed" in names
    assert "Root-Is-Purelib: false" in wheel_meta
    # the wheel alone, copied elsewhere, installed in another fresh venv
    # (the repository is never named: the install and the run see no source)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(built / wheels[0], elsewhere / wheels[0])
    shutil.rmtree(built)
    venv = tmp_path / "venv2"
    py = fresh_venv(venv)
    venv_pip(py, "install", "--no-index", str(elsewhere / wheels[0]))
    run_issue(py, issue_dir, venv)


def test_sdist_carries_the_c_sources(tmp_path):
    """The sdist builds alone: it holds the Makefile and every source of
    the library (CORE_SRC) and header, in csrc/, beside the package."""
    import tarfile
    sys.path.insert(0, os.path.join(PYTHON_DIR, "_backend"))
    try:
        import hsbuild
    finally:
        sys.path.pop(0)
    name = hsbuild.build_sdist(str(tmp_path))
    with tarfile.open(tmp_path / name) as t:
        names = set(t.getnames())
    top = name[:-len(".tar.gz")]
    root = os.path.dirname(PYTHON_DIR)
    wanted = hsbuild._make_variable(os.path.join(root, "Makefile"), "CORE_SRC")
    assert len(wanted) > 30
    for src in wanted + ["Makefile", "src/lib/hprof_strip.h"]:
        assert f"{top}/csrc/{src}" in names, src
    for h in os.listdir(os.path.join(root, "src", "lib")):
        if h.endswith(".h"):
            assert f"{top}/csrc/src/lib/{h}" in names, h
    assert f"{top}/hprofstrip/py.typed" in names and f"{top}/_backend/hsbuild.py" in names
