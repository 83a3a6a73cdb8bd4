#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages hprof-strip needs, when they are missing.
#
#   sh tools/install-deps.sh            what building and running need (make run)
#   sh tools/install-deps.sh --test     that, and what the tests add (make test)
#   sh tools/install-deps.sh --cross    the cross lane's toolchains (make test-cross)
#   ... --dry-run                       say what would be installed, install nothing
#
# Needs root (or sudo) only when something is missing. The build set is
# the compiler, make, pkg-config and the -dev packages of the libraries the
# program links (README.md, "Dependencies", names them with their runtime
# packages); the test set is everything the suites run besides.
set -e
test=no
cross=no
dry=no
for a in "$@"; do
    case $a in
        --test) test=yes ;;
        --cross) cross=yes ;;
        --dry-run|-n) dry=yes ;;
        *) echo "usage: sh tools/install-deps.sh [--test] [--cross] [--dry-run]" >&2; exit 2 ;;
    esac
done

pkgs=""
need() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || pkgs="$pkgs $1"; }

# Building and running: gcc, make and libc's headers; the libraries of
# `ldd ./hprof-strip` (and the Makefile's LDLIBS_CLI; pthread is libc's).
need build-essential
need pkg-config       # hprofstrip.pc, for programs built against the library
need libzstd-dev      # zstd input and -z output
need libisal-dev      # gzip input (ISA-L's inflate)
need libdeflate-dev   # --gzip output
need libxxhash-dev    # duplicate arrays (XXH3)

if [ $test = yes ]; then
    need zlib1g-dev        # tests/unit/test_input.c makes gzip streams with zlib
    need libcriterion-dev  # the C suites (build/run-tests)
    need zstd              # the zstd(1) CLI: round trips, compressed inputs
    need time              # /usr/bin/time: peak RSS in tests/cli/cli.sh and the bench
    need valgrind          # make test-valgrind
    need strace            # make test-posix: which calls each build makes (tests/lanes/port_calls.sh)
    need clang             # make test-clang, test-tsan, fuzz
    need libclang-rt-14-dev  # clang's sanitizer and libFuzzer runtimes
    need python3           # tests/cli/deobf_names.py, report_schema.py, fuzz seeds
    need python3-pytest    # the Python package's suite (tests/lanes/python.sh)
    need python3-pip       # its offline `pip install ./python` check
    need python3-venv      # and the same into a venv
    need python3-distributed  # Dask: examples/dask_strip.py's cluster (tests/lanes/dask.sh)
    need python3-aiohttp   # the push API's upload server (python/tests/test_push.py)
    need openjdk-17-jdk-headless  # fresh dumps (tools/makedump.sh), tests/cli/privacy, tests/ext/proguard
    need hprof-conv        # Android's converter, a second parser (tests/ext/external.sh)
    [ -n "${HS_SKIP_VISUALVM:-}" ] || need visualvm  # VisualVM's heap parser (tools/vvm-histogram.sh)
    need proguard-cli      # tests/ext/proguard: ProGuard 6.2 for the end-to-end mapping check
fi

# The cross lane (tests/lanes/cross.sh): Debian's cross compilers, qemu-user, and
# the program's libraries for arm64 and s390x as multiarch packages, which
# need the two architectures added to dpkg first (ISA-L is the exception:
# its -dev cannot sit beside the host's, so tests/lanes/cross.sh unpacks its .deb).
# The cross compilers' own libc (libc6-dev-ARCH-cross) is named: the
# compilers only recommend it.
foreign=""
if [ $cross = yes ]; then
    for arch in arm64 s390x; do
        dpkg --print-foreign-architectures | grep -qx $arch || foreign="$foreign $arch"
        need libzstd-dev:$arch
        need libdeflate-dev:$arch
        need libxxhash-dev:$arch
    done
    need gcc-aarch64-linux-gnu
    need libc6-dev-arm64-cross
    need gcc-s390x-linux-gnu
    need libc6-dev-s390x-cross
    need qemu-user
    need file
fi

if [ -z "$pkgs" ]; then
    [ $dry = no ] || echo "install-deps: nothing to install"
    exit 0
fi
if [ $dry = yes ]; then
    echo "install-deps: would install$pkgs"
    exit 0
fi
echo "install-deps: installing$pkgs" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
for arch in $foreign; do $SUDO dpkg --add-architecture "$arch"; done
$SUDO apt-get update -qq
# shellcheck disable=SC2086 # a list of package names
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
