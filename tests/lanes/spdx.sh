#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# tests/lanes/spdx.sh - every file the project wrote carries the licence's SPDX
# line in its first three lines (after a #! line), and LICENSE holds the
# Apache-2.0 text. Data (dumps, fuzz seeds, mappings) and prose (Markdown)
# are not sources and carry none. Usage: sh tests/lanes/spdx.sh
set -u
NAME=spdx
. "$(dirname "$0")/../lib.sh"
cd "$TESTS/.."
TAG='SPDX-License-Identifier: Apache-2.0'

if [ -d .git ] && command -v git >/dev/null; then
    git ls-files >"$T/files"
else
    find . -type f ! -path './.git/*' ! -path './build*' | sed 's|^\./||' >"$T/files"
fi
grep -E '(^|/)(Makefile|run)$|\.(c|h|java|sh|py|awk|mk|pro|dict|supp|in|1|3)$' "$T/files" |
    grep -Ev '^(tests/fuzz/(seeds|regress)|tests/data|fixtures|build)' >"$T/sources"
n=0
while IFS= read -r f; do
    n=$((n + 1))
    if head -n 3 "$f" | grep -q "$TAG"; then ok; else bad "$f: no '$TAG' in its first lines"; fi
done <"$T/sources"
[ "$n" -gt 140 ] && ok || bad "only $n sources found: the list is wrong"
grep -q 'Apache License' LICENSE && grep -q 'Version 2.0, January 2004' LICENSE &&
    grep -q 'END OF TERMS AND CONDITIONS' LICENSE && ok || bad "LICENSE is not the Apache-2.0 text"
finish
