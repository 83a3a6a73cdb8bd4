#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages hprof-strip builds and tests with, when they
# are missing. Needs root (or sudo) only when something is missing.
set -e
pkgs=""
need() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed" || pkgs="$pkgs $1"; }
need build-essential
need pkg-config
need libzstd-dev
need zlib1g-dev
need libdeflate-dev
need libisal-dev
need libxxhash-dev
need libcriterion-dev
need zstd
need time
need valgrind
need python3
need clang
need libclang-rt-14-dev
need hprof-conv
[ -n "$HS_SKIP_VISUALVM" ] || need visualvm
need openjdk-17-jdk-headless
need proguard-cli  # tests/proguard: ProGuard 6.2 for the end-to-end mapping check
need python3       # tests/deobf_names.py (tests/deobf.sh), report_schema.py, artsim
[ -z "$pkgs" ] && exit 0
echo "install-deps: installing$pkgs" >&2
SUDO=""
[ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $pkgs >/dev/null
