# SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: the repository's paths, the command to compare with,
and a few dumps (the repository's fixtures/, so no ../shared needed)."""
import os
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))
PYTHON_DIR = os.path.join(ROOT, "python")
FIXTURES = os.path.join(ROOT, "fixtures")
JVM = os.path.join(FIXTURES, "jvm17-64bit.hprof")           # HotSpot 1.0.2, 8-byte ids
JVM_GZ = os.path.join(FIXTURES, "jvm17-jcmd-gz1.hprof.gz")   # jcmd -gz=1: gzip members
JVM7 = os.path.join(FIXTURES, "jvm7-hprof-agent.hprof")      # 1.0.1
ART = os.path.join(FIXTURES, "android-art2025-ahat-test-dump.hprof")  # Android 1.0.3

if PYTHON_DIR not in sys.path:
    sys.path.insert(0, PYTHON_DIR)


def cli_path():
    return os.path.abspath(os.environ.get("HPROFSTRIP_CLI", os.path.join(ROOT, "hprof-strip")))


def library_path():
    """The library the tests load: HPROFSTRIP_LIBRARY, else the tree's."""
    return os.environ.get("HPROFSTRIP_LIBRARY") or os.path.join(ROOT, "build",
                                                                "libhprofstrip.so")


@pytest.fixture(scope="session")
def cli():
    path = cli_path()
    if not os.access(path, os.X_OK):
        pytest.fail(f"{path} is not built: run make (or set HPROFSTRIP_CLI)")

    def run(*args, check=True):
        p = subprocess.run([path, "-q", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if check and p.returncode != 0:
            raise AssertionError(f"hprof-strip {' '.join(args)}: exit {p.returncode}: "
                                 f"{p.stderr.decode(errors='replace')}")
        return p
    return run


@pytest.fixture(scope="session")
def hs():
    import hprofstrip
    return hprofstrip


def read(path):
    with open(path, "rb") as f:
        return f.read()


def decompress_zstd(path):
    zstd = shutil.which("zstd")
    if zstd is None:
        pytest.fail("the zstd command is needed (apt-get install zstd)")
    return subprocess.run([zstd, "-dc", path], check=True, stdout=subprocess.PIPE).stdout


def temps(directory):
    """Temporary outputs (NAME.tmp-XXXXXX) left in `directory`."""
    return [n for n in os.listdir(directory) if ".tmp-" in n]
