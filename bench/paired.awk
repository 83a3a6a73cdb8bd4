# SPDX-License-Identifier: Apache-2.0
# paired(now, base): the runs of two commands that ran alternately (times in
# run order, space-separated lists), run i of each taken as a pair that
# shared the machine's state. Sets pr_med, the median of the pairs' ratios
# now / base, pr_low, its one-sided 95 % lower bound: the k-th smallest
# ratio, k the largest with P(Binomial(n, 1/2) < k) <= 0.05 (a sign-test
# order statistic: it assumes nothing about the spread), and pr_high, its
# one-sided 95 % upper bound: the k-th largest. Both are 0 under 5 pairs,
# where no ratio is such a bound. Returns n, the number of pairs.
# goal_met(): a target's verdict from those three; goal_worse(): several
# verdicts as one; bounds_label(): the bounds as a table shows them.
# Shared by bench.sh and ab.sh (after median.awk); tested by
# tests/lanes/bench_stats.sh.
function paired(ln, lb,   a, b, r, n, i, j, x, pmf, cdf, k) {
    n = split(ln, a, " "); i = split(lb, b, " "); if (i < n) n = i
    for (i = 1; i <= n; i++) {
        r[i] = b[i] > 0 ? a[i] / b[i] : 0
        for (j = i; j > 1 && r[j - 1] > r[j]; j--) { x = r[j]; r[j] = r[j - 1]; r[j - 1] = x }
    }
    pr_med = 0; pr_low = 0; pr_high = 0
    if (!n) return 0
    pr_med = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
    pmf = 0.5 ^ n; cdf = 0; k = 0
    for (j = 0; j < n; j++) {           # cdf = P(X <= j)
        cdf += pmf
        if (cdf > 0.05) break
        k = j + 1
        pmf = pmf * (n - j) / (j + 1)
    }
    pr_low = k ? r[k] : 0
    pr_high = k ? r[n + 1 - k] : 0
    return n
}

# The verdict on a goal for a ratio whose median is `med` and bounds `lo`
# and `hi` (paired's; 0: none), the goal `goal` or more when `at_least`,
# else `goal` or less: "yes" only when the bound on the goal's side clears
# it, "no" only when the other bound misses it, "within noise" when they
# straddle it: a median alone would turn a noisy hour into a yes or a no.
# With no bounds (under 5 pairs) the median decides, and says so.
function goal_met(med, lo, hi, goal, at_least,   ok) {
    if (!lo || !hi) {
        ok = at_least ? med >= goal : med <= goal
        return (ok ? "yes" : "no") " (under 5 rounds: no bounds)"
    }
    if (at_least)
        return lo >= goal ? "yes" : hi < goal ? "no" : "within noise"
    return hi <= goal ? "yes" : lo > goal ? "no" : "within noise"
}

# Verdicts of several rows of one target as one: "no" if any is, else
# "within noise" if any is, else "yes" ("" for none yet).
function goal_worse(a, b,   ra, rb) {
    if (a == "") return b
    ra = a ~ /^no/ ? 2 : a ~ /^within/ ? 1 : 0
    rb = b ~ /^no/ ? 2 : b ~ /^within/ ? 1 : 0
    return rb > ra ? b : a
}

# A ratio's bounds for a label: "bounds L to H", or "under 5 rounds".
function bounds_label(lo, hi) {
    return lo && hi ? sprintf("bounds %.2f to %.2f", lo, hi) : "under 5 rounds"
}
