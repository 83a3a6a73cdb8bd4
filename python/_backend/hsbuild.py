# SPDX-License-Identifier: Apache-2.0
"""A PEP 517 build backend for the hprofstrip package, standard library only.

The package is .py files over libhprofstrip.so (ctypes). A wheel carries
the library: the backend compiles it from the repository's C sources (the
Makefile's CORE_SRC, linked with its LDLIBS_LIB, as `make lib` builds
build/libhprofstrip.so) into a temporary directory and puts it in the
package as hprofstrip/libhprofstrip.so.MAJOR, which _lib.py loads before
any other but HPROFSTRIP_LIBRARY's. The wheel is then a platform wheel
(py3-none-<platform>: the Python side is version-independent ctypes), and
installs on a machine without the sources; it links the system's libzstd,
libisal, libdeflate and libxxhash, as the library installed by `make
install` does.

The C sources are looked for beside this package (python/.. : the
repository, as `pip install ./python` builds in place since pip 21.3), then
in csrc/ (the sdist carries them there, so the sdist builds alone too).
Without them the build fails, unless asked for a wheel without the library
(config setting bundle-library=no, or HPROFSTRIP_BUNDLE_LIBRARY=0 in the
environment), which then loads a library installed on the system.

No setuptools (a backend from PyPI would be fetched into pip's isolated
build environment first): pip builds it offline. It builds wheels, editable
wheels (a .pth naming this directory; the library is then the tree's
build/, `make lib`) and sdists. CC and CFLAGS are honoured as make does.
"""
import base64
import concurrent.futures
import hashlib
import io
import os
import re
import shlex
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import zipfile

NAME = "hprofstrip"
HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # python/
PURE_TAG = "py3-none-any"
# A fixed date for the files of the wheel: the same sources, the same wheel.
EPOCH = (2026, 1, 1, 0, 0, 0)
# Where the sdist keeps the C sources (the repository's Makefile and src/lib).
CSRC = "csrc"
# What the library is compiled with beyond CFLAGS: the Makefile's STDFLAGS
# and its shared objects' flags ($(BUILD)/pic/%.o).
STDFLAGS = ["-std=c11", "-D_FILE_OFFSET_BITS=64", "-fPIC", "-fvisibility=hidden"]


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
        if name.endswith(".py") or name == "py.typed":
            yield f"{NAME}/{name}", os.path.join(pkg, name)


# ---- the C library ---------------------------------------------------------

def _c_root():
    """The directory holding the Makefile and src/lib, or None."""
    for root in (os.path.dirname(HERE), os.path.join(HERE, CSRC)):
        if os.path.isfile(os.path.join(root, "Makefile")) and \
                os.path.isfile(os.path.join(root, "src", "lib", "hprof_strip.h")):
            return root
    return None


def _make_variable(makefile, name):
    """The words of the Makefile's variable NAME, as make expands it (CORE_SRC
    names the I/O files through src/lib/io.mk's functions, which only make
    reads right)."""
    root = os.path.dirname(os.path.abspath(makefile))
    cmd = ["make", "-s", "--no-print-directory", "-C", root, "-f", os.path.basename(makefile),
           "--eval", f"hsbuild-print: ; @echo $({name})", "hsbuild-print"]
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as e:
        raise RuntimeError(f"hsbuild: building the library needs make: {e}") from e
    words = p.stdout.split()
    if p.returncode != 0 or not words:
        raise RuntimeError(f"{makefile} sets no {name}: {p.stderr.strip()}")
    return words


def _soname_major(root):
    with open(os.path.join(root, "src", "lib", "hprof_strip.h"), encoding="utf-8") as f:
        m = re.search(r'^#define HS_VERSION_STRING "(\d+)\.', f.read(), re.M)
    if not m:
        raise RuntimeError("src/lib/hprof_strip.h has no HS_VERSION_STRING")
    return m.group(1)


def _wants_library(config_settings):
    value = (config_settings or {}).get("bundle-library")
    if value is None:
        value = os.environ.get("HPROFSTRIP_BUNDLE_LIBRARY", "yes")
    return str(value).lower() not in ("0", "no", "false")


def _compile(root, out):
    """Builds the library from `root`'s sources into the file `out`; returns
    its soname."""
    makefile = os.path.join(root, "Makefile")
    sources = _make_variable(makefile, "CORE_SRC")
    libs = _make_variable(makefile, "LDLIBS_LIB")
    soname = f"libhprofstrip.so.{_soname_major(root)}"
    cc = shlex.split(os.environ.get("CC") or "cc")
    cflags = shlex.split(os.environ.get("CFLAGS", "-O2"))
    tmp = os.path.dirname(out)

    def one(src):
        obj = os.path.join(tmp, os.path.basename(src)[:-2] + ".o")
        cmd = cc + STDFLAGS + cflags + ["-c", os.path.join(root, src), "-o", obj]
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"hsbuild: {' '.join(cmd)} failed:\n{p.stdout}")
        return obj

    print(f"hsbuild: compiling libhprofstrip from {root} ({len(sources)} files)",
          file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 1) as pool:
        objs = list(pool.map(one, sources))
    cmd = cc + cflags + ["-shared", f"-Wl,-soname,{soname}", "-Wl,--no-undefined",
                         "-o", out] + objs + libs
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"hsbuild: {' '.join(cmd)} failed:\n{p.stdout}")
    return soname


def _library(config_settings):
    """[(archive name, bytes)] of the library built for the wheel: [] when
    asked for none."""
    if not _wants_library(config_settings):
        return []
    root = _c_root()
    if root is None:
        raise RuntimeError(
            f"hsbuild: no C sources of libhprofstrip beside {HERE} (the repository) nor in "
            f"{CSRC}/ (an sdist): build from the repository or its sdist, or ask for a wheel "
            "without the library (--config-settings bundle-library=no, or "
            "HPROFSTRIP_BUNDLE_LIBRARY=0), which loads the system's")
    tmp = tempfile.mkdtemp(prefix="hsbuild-")
    try:
        out = os.path.join(tmp, "libhprofstrip.so")
        soname = _compile(root, out)
        return [(f"{NAME}/{soname}", _read(out))]
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _platform_tag():
    """The wheel's tag with a native library: any Python 3 (ctypes, no
    extension module, no ABI of CPython's), this platform."""
    plat = re.sub(r"[^A-Za-z0-9_]", "_", sysconfig.get_platform())
    return f"py3-none-{plat}"


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}\n"


def _wheel(directory, files, tag=PURE_TAG):
    """Writes a wheel holding `files` ((name, bytes)) and returns its name."""
    dist = f"{NAME}-{_version()}"
    info = f"{dist}.dist-info"
    purelib = "true" if tag == PURE_TAG else "false"
    files = list(files) + [
        (f"{info}/METADATA", _metadata().encode()),
        (f"{info}/WHEEL", ("Wheel-Version: 1.0\nGenerator: hsbuild\n"
                           f"Root-Is-Purelib: {purelib}\nTag: {tag}\n").encode()),
    ]
    record = "".join(_record_line(n, d) for n, d in files) + f"{info}/RECORD,,\n"
    files.append((f"{info}/RECORD", record.encode()))
    wheel = f"{dist}-{tag}.whl"
    with zipfile.ZipFile(os.path.join(directory, wheel), "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in files:
            zi = zipfile.ZipInfo(name, EPOCH)
            mode = 0o755 if ".so" in name else 0o644
            zi.external_attr = mode << 16
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
    lib = _library(config_settings)
    files = [(n, _read(p)) for n, p in _sources()] + lib
    return _wheel(wheel_directory, files, _platform_tag() if lib else PURE_TAG)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    # PEP 660: the package stays here; a .pth puts this directory on sys.path
    # (the library: the tree's build/, or HPROFSTRIP_LIBRARY, or the system's)
    return _wheel(wheel_directory, [(f"{NAME}.pth", (HERE + "\n").encode())])


def _c_members():
    """(archive name, path) of the C sources the sdist carries in csrc/."""
    root = _c_root()
    if root is None:
        return []
    # the Makefile and what it includes (make expands CORE_SRC from them)
    members = [(f"{CSRC}/Makefile", os.path.join(root, "Makefile")),
               (f"{CSRC}/tests/fuzz/fuzz.mk", os.path.join(root, "tests", "fuzz", "fuzz.mk"))]
    lib = os.path.join(root, "src", "lib")
    for name in sorted(os.listdir(lib)):
        if name.endswith((".c", ".h", ".mk")):
            members.append((f"{CSRC}/src/lib/{name}", os.path.join(lib, name)))
    return members


def build_sdist(sdist_directory, config_settings=None):
    dist = f"{NAME}-{_version()}"
    name = f"{dist}.tar.gz"
    members = [("pyproject.toml", os.path.join(HERE, "pyproject.toml")),
               ("README.md", os.path.join(HERE, "README.md")),
               ("_backend/hsbuild.py", os.path.abspath(__file__))]
    members += list(_sources()) + _c_members()
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
