#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The statistics the bench's verdicts rest on (bench/median.awk,
# bench/paired.awk), on lists whose answers are known: a wrong median or
# bound would turn "no row slower" (issue #13) into a wrong yes or no.
# Usage: tests/bench_stats.sh
set -u
NAME=bench_stats
. "$(dirname "$0")/lib.sh"
cd "$TESTS/.." || exit 2

# check NAME EXPECTED AWK-EXPRESSION: prints the expression with %.4f
check() {
    got=$(awk "$(cat bench/median.awk bench/paired.awk)"'
        function rep(v, n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s " " v; return s }
        BEGIN { printf "%.4f", '"$3"' }')
    if [ "$got" = "$2" ]; then ok; else bad "$1: expected $2, got $got"; fi
}

check "median, odd" 3.0000 'median(" 5 1 3")'
check "median, even" 2.5000 'median(" 4 1 3 2")'
check "paired median, now 10 % slower in each pair" 1.1000 '(paired("1.1 2.2 3.3 4.4 5.5", "1 2 3 4 5") ? pr_med : -1)'
# five pairs: the bound is the smallest ratio (P(X = 0) = 1/32 <= 0.05)
check "5 pairs all slower: bound is the least" 1.0500 '(paired("1.05 1.2 1.1 1.3 1.4", "1 1 1 1 1") ? pr_low : -1)'
check "5 pairs, one faster: bound below 1" 0.9000 '(paired("0.9 1.2 1.1 1.3 1.4", "1 1 1 1 1") ? pr_low : -1)'
# under five pairs there is no bound at 95 %: nothing can be called slower
check "4 pairs: no bound" 0.0000 '(paired("2 2 2 2", "1 1 1 1") ? pr_low : -1)'
check "no pairs" -1.0000 '(paired("", "") ? pr_low : -1)'
# 40 pairs: P(X <= 14) = 0.040, P(X <= 15) = 0.077, so the bound is the
# 15th smallest: 26 slower pairs of 40 are beyond noise, 25 are not
check "40 pairs, 26 slower" 1.0150 '(paired(rep(0.99, 14) rep(1.015, 26), rep(1, 40)) ? pr_low : -1)'
check "40 pairs, 25 slower" 0.9900 '(paired(rep(0.99, 15) rep(1.015, 25), rep(1, 40)) ? pr_low : -1)'
# pairs go by run order, not by sorting each side apart: here now is
# faster in every pair although its median run time is the larger
check "pairs by run order" 0.5000 '(paired("1 10 2 20 3", "2 20 4 40 6") ? pr_med : -1)'
check "the shorter list sets the pairs" 2.0000 '(paired("2 4 6 8 10 12", "1 2 3 4 5") ? pr_low : -1)'

finish
