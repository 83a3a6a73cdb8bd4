# SPDX-License-Identifier: Apache-2.0
"""A PEP 517 build backend for the hprofstrip package, standard library only.

The package is a directory of .py files: a wheel of it is a zip of those
files and a .dist-info (METADATA, WHEEL, RECORD), which needs no
setuptools, so pip builds it offline inside its isolated environment. It
builds wheels, editable wheels (a .pth naming this directory) and sdists.
"""
import base64
import hashlib
import io
import os
import re
import tarfile
import zipfile

NAME = "hprofstrip"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
TAG = "py3-none-any"
# A fixed date for the files of the wheel: the same sources, the same wheel.
EPOCH = (2026, 1, 1, 0, 0, 0)


def _version():
    path = os.path.join(HERE, NAME, "_version.py")
    with open(path, encoding="utf-8") as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    if not m:
        raise RuntimeError(f"no __version__ in {path}")
    return m.group(1)


def _metadata():
    readme = os.path.join(HERE, "README.md")
    with open(readme, encoding="utf-8") as f:
        body = f.read()
    return (
        "Metadata-Version: 2.1\n"
        f"Name: {NAME}\n"
        f"Version: {_version()}\n"
        "Summary: Strip and audit HPROF heap dumps: Python binding of libhprofstrip\n"
        "License: Apache-2.0\n"
        "Requires-Python: >=3.8\n"
        "Description-Content-Type: text/markdown\n"
        "\n" + body)


def _sources():
    """(archive name, path) of the package's files."""
    pkg = os.path.join(HERE, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            yield f"{NAME}/{name}", os.path.join(pkg, name)


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def _wheel(directory, files):
    """Writes a wheel holding `files` ((name, bytes)) and returns its name."""
    dist = f"{NAME}-{_version()}"
    info = f"{dist}.dist-info"
    files = list(files) + [
        (f"{info}/METADATA", _metadata().encode()),
        (f"{info}/WHEEL", ("Wheel-Version: 1.0\nGenerator: hsbuild\n"
                           f"Root-Is-Purelib: true\nTag: {TAG}\n").encode()),
    ]
    record = "".join(_record_line(n, d) for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    wheel = f"{dist}-{TAG}.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            zi = zipfile.ZipInfo(name, EPOCH)
            zi.external_attr = 0o644 << 16
            zi.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(zi, data)
    return wheel


def _read(path):
    with open(path, "rb") as f:
        return f.read()


# ---- PEP 517 -------------------------------------------------------------

def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [(n, _read(p)) for n, p in _sources()])


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: the package stays here; a .pth puts this directory on sys.path
    return _wheel(wheel_directory, [(f"{NAME}.pth", (HERE + "\n").encode())])


def build_sdist(sdist_directory, config_settings=None):
    dist = f"{NAME}-{_version()}"
    name = f"{dist}.tar.gz"
    members = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
               ("README.md", os.path.join(HERE, "README.md")),
               ("_backend/hsbuild.py", os.path.abspath(__file__))]
    members += list(_sources())
    pkg_info = _metadata().encode()
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        for arc, path in members:
            data = _read(path)
            ti = tarfile.TarInfo(f"{dist}/{arc}")
            ti.size, ti.mode, ti.mtime = len(data), 0o644, 1767225600
            t.addfile(ti, io.BytesIO(data))
        ti = tarfile.TarInfo(f"{dist}/PKG-INFO")
        ti.size, ti.mode, ti.mtime = len(pkg_info), 0o644, 1767225600
        t.addfile(ti, io.BytesIO(pkg_info))
    return name
