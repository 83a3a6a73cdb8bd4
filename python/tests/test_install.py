# SPDX-License-Identifier: Apache-2.0
"""`pip install ./python` offline (no index: build isolation with nothing to
download), then the issue's one-liner through the installed package, the
library found by its soname on the loader's path."""
import os
import shutil
import subprocess
import sys

import pytest

from conftest import JVM_GZ, PYTHON_DIR, library_path

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
    # a copy, so that no build/ or egg-info can be left in the tree
    src = tmp_path / "src"
    shutil.copytree(PYTHON_DIR, src, ignore=shutil.ignore_patterns(
        "__pycache__", ".pytest_cache", "tests"))
    p = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index",
                        "--target", str(target), str(src)], env=clean_env(),
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


def test_pip_install_offline(tmp_path, issue_dir):
    target = tmp_path / "site"
    pip_install(target, tmp_path)
    assert (target / "hprofstrip" / "__init__.py").exists()
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


def test_pip_install_into_a_venv(tmp_path):
    venv = tmp_path / "venv"
    p = subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        pytest.skip(f"no venv here: {p.stdout}")
    py = venv / "bin" / "python"
    # the system's pip, installing into the venv's interpreter
    p = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install",
                        "--no-index", PYTHON_DIR], env=clean_env(),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if "no such option: --python" in p.stdout:
        pytest.skip("pip older than 22.3 has no --python")
    assert p.returncode == 0, p.stdout
    p = subprocess.run([str(py), "-c", "import hprofstrip; print(hprofstrip.__file__)"],
                       cwd=tmp_path, env=clean_env(), stdout=subprocess.PIPE, text=True)
    assert p.stdout.startswith(str(venv))
