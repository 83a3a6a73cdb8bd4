#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# The statistics the bench's verdicts rest on (bench/median.awk,
# bench/paired.awk), on lists whose answers are known: a wrong median or
# bound would turn "no row slower" (issue #13) into a wrong yes or no.
# Usage: tests/lanes/bench_stats.sh
set -u
NAME=bench_stats
. "$(dirname "$0")/../lib.sh"
cd "$TESTS/.." || exit 2

# expect FORMAT NAME EXPECTED AWK-EXPRESSION: prints the expression with
# FORMAT and compares; check is it for a number (%.4f), checkv for a string
expect() {
    got=$(awk "$(cat bench/median.awk bench/paired.awk)"'
        function rep(v, n,   s, i) { s = ""; for (i = 0; i < n; i++) s = s " " v; return s }
        BEGIN { printf "'"$1"'", '"$4"' }')
    if [ "$got" = "$3" ]; then ok; else bad "$2: expected $3, got $got"; fi
}
check() { expect %.4f "$@"; }
checkv() { expect %s "$@"; }

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
# the upper bound is the k-th largest: the mirror of the lower one
check "5 pairs: upper bound is the largest" 1.4000 '(paired("1.05 1.2 1.1 1.3 1.4", "1 1 1 1 1") ? pr_high : -1)'
check "40 pairs: upper bound is the 15th largest" 1.0150 '(paired(rep(0.99, 25) rep(1.015, 15), rep(1, 40)) ? pr_high : -1)'
check "40 pairs: one fewer above, upper bound below" 0.9900 '(paired(rep(0.99, 26) rep(1.015, 14), rep(1, 40)) ? pr_high : -1)'
check "4 pairs: no upper bound" 0.0000 '(paired("2 2 2 2", "1 1 1 1") ? pr_high : -1)'
# (ab.sh once took 1 / the lower bound of the sides swapped: the same)
check "7 pairs: upper bound" 1.3000 '(paired("1.2 0.8 1.1 0.95 1.3 1.05 0.9", "1 1 1 1 1 1 1") ? pr_high : -1)'
check "7 pairs swapped: lower bound is its inverse" 0.7692 '(paired("1 1 1 1 1 1 1", "1.2 0.8 1.1 0.95 1.3 1.05 0.9") ? pr_low : -1)'


# goal_met: a bound must clear the goal for yes, the other must miss it for
# no; a median on the right side of the goal is not enough either way
checkv "at least 2: lower bound above" "yes" 'goal_met(2.6, 2.07, 2.9, 2, 1)'
checkv "at least 2: lower bound on it" "yes" 'goal_met(2.5, 2, 2.9, 2, 1)'
checkv "at least 2: median above, lower bound under" "within noise" 'goal_met(2.3, 1.9, 2.9, 2, 1)'
checkv "at least 2: median under, upper bound above" "within noise" 'goal_met(1.9, 1.5, 2.1, 2, 1)'
checkv "at least 2: upper bound under" "no" 'goal_met(1.3, 0.97, 1.44, 2, 1)'
checkv "at most 1.15: upper bound under" "yes" 'goal_met(1.09, 1.07, 1.11, 1.15, 0)'
checkv "at most 1.15: upper bound on it" "yes" 'goal_met(1.1, 1.05, 1.15, 1.15, 0)'
checkv "at most 1.15: median over, bounds straddle" "within noise" 'goal_met(1.21, 0.75, 1.4, 1.15, 0)'
checkv "at most 1.15: median under, bounds straddle" "within noise" 'goal_met(1.1, 1.07, 1.2, 1.15, 0)'
checkv "at most 1.15: lower bound over" "no" 'goal_met(1.3, 1.2, 1.4, 1.15, 0)'
checkv "no bounds: the median, said" "no (under 5 rounds: no bounds)" 'goal_met(1.2, 0, 0, 1.15, 0)'
checkv "no bounds, met" "yes (under 5 rounds: no bounds)" 'goal_met(2.2, 0, 0, 2, 1)'
# and from paired itself: 7 pairs whose bounds are the least and the most
checkv "7 pairs straddling 1.15" "within noise" '(paired("1.1 1.3 1.12 1.2 1.14 1.16 1.1", "1 1 1 1 1 1 1") ? goal_met(pr_med, pr_low, pr_high, 1.15, 0) : "none")'
checkv "7 pairs all under 1.15" "yes" '(paired("1.1 1.13 1.12 1.05 1.14 1.08 1.1", "1 1 1 1 1 1 1") ? goal_met(pr_med, pr_low, pr_high, 1.15, 0) : "none")'
# goal_worse: a target's rows as one verdict, the worst of them, whatever
# their order; bounds_label: what the tables print
checkv "worst of yes and no" "no" 'goal_worse(goal_worse("", "yes"), "no")'
checkv "worst of no and yes" "no" 'goal_worse(goal_worse("", "no"), "yes")'
checkv "worst of yes and within noise" "within noise" 'goal_worse(goal_worse("", "yes"), "within noise")'
checkv "no is worse than within noise" "no" 'goal_worse(goal_worse("", "within noise"), "no")'
checkv "all yes" "yes" 'goal_worse(goal_worse("", "yes"), "yes")'
checkv "no without bounds counts as no" "no (under 5 rounds: no bounds)" 'goal_worse("yes", "no (under 5 rounds: no bounds)")'
checkv "bounds label" "bounds 1.07 to 1.12" 'bounds_label(1.068, 1.121)'
checkv "no bounds label" "under 5 rounds" 'bounds_label(0, 0)'

finish
