# SPDX-License-Identifier: Apache-2.0
# paired(now, base): the runs of two commands that ran alternately (times in
# run order, space-separated lists), run i of each taken as a pair that
# shared the machine's state. Sets pr_med, the median of the pairs' ratios
# now / base, and pr_low, its one-sided 95 % lower bound: the k-th smallest
# ratio, k the largest with P(Binomial(n, 1/2) < k) <= 0.05 (a sign-test
# order statistic: it assumes nothing about the spread). pr_low is 0 under
# 5 pairs, where no ratio is such a bound. Returns n, the number of pairs.
# Shared by bench.sh and ab.sh (after median.awk); tested by
# tests/bench_stats.sh.
function paired(ln, lb,   a, b, r, n, i, j, x, pmf, cdf, k) {
    n = split(ln, a, " "); i = split(lb, b, " "); if (i < n) n = i
    for (i = 1; i <= n; i++) {
        r[i] = b[i] > 0 ? a[i] / b[i] : 0
        for (j = i; j > 1 && r[j - 1] > r[j]; j--) { x = r[j]; r[j] = r[j - 1]; r[j - 1] = x }
    }
    pr_med = 0; pr_low = 0
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
    return n
}
