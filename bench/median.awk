# SPDX-License-Identifier: Apache-2.0
# median(list): the median of the numbers in a space-separated list. Shared
# by the awk programs of bench.sh and ab.sh, which start with this text.
function median(list,   n, a, i, j, t) {
    n = split(list, a, " ")
    for (i = 2; i <= n; i++)            # insertion sort (mawk has no asort)
        for (j = i; j > 1 && a[j - 1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
