#!/usr/bin/env python3
"""Known-answer checks of bench/stats.py; prints one PASS:/FAIL: line each.

Run by bench/selftest.sh with Debian's python3 (numpy, scipy).
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stats  # noqa: E402

failed = 0


def check(ok, what):
    global failed
    print(("PASS: " if ok else "FAIL: ") + "stats: " + what)
    if not ok:
        failed += 1


def close(a, b, tol=1e-9):
    return a is not None and b is not None and abs(a - b) <= tol * max(1.0, abs(b))


# Median interval from order statistics: n = 8 reaches 95% only with the
# extremes (coverage 1 - 2/256); n = 5 cannot (1 - 2/32 = 0.9375).
med, lo, hi, cov = stats.median_ci([5, 1, 8, 3, 7, 2, 6, 4])
check(med == 4.5 and lo == 1 and hi == 8 and close(cov, 1 - 2 / 256),
      f"median_ci n=8: 4.5 [1,8] coverage 0.992 (got {med} [{lo},{hi}] {cov:.4f})")
med, lo, hi, cov = stats.median_ci([3, 1, 2, 5, 4])
check(med == 3 and lo is None and hi is None,
      f"median_ci n=5: no 95% interval (got {med} [{lo},{hi}])")
# n = 17: k = 5 is the largest with coverage >= 95% (0.9510), k = 6 is 0.8565.
xs = list(range(1, 18))
med, lo, hi, cov = stats.median_ci(xs)
check(med == 9 and lo == 5 and hi == 13 and 0.95 <= cov < 0.96,
      f"median_ci n=17: 9 [5,13] (got {med} [{lo},{hi}] {cov:.4f})")

# A configuration that loses exactly twice as many (+1) frames as the
# control in every state: ratio 2, a zero-width interval above 1, and the
# exact signed-rank p of 8 positive differences, 2/2^8.
ctl = [10, 40, 3, 0, 120, 7, 55, 19]
x = [2 * (c + 1) - 1 for c in ctl]
r = stats.paired_ratio(x, ctl)
check(close(r["ratio"], 2.0) and close(r["lo"], 2.0) and close(r["hi"], 2.0)
      and r["verdict"] == "higher" and close(r["p"], 2 / 256),
      f"paired_ratio x2 in every state: x2.00 [2,2] higher p=0.0078 (got {r})")

# Half the states twice as bad, half twice as good: no change, and the
# interval must say so.
x = [2 * (c + 1) - 1 if i % 2 else (c + 1) / 2 - 1 for i, c in enumerate(ctl)]
r = stats.paired_ratio(x, ctl)
check(close(r["ratio"], 1.0) and r["lo"] < 1 < r["hi"]
      and r["verdict"] == "no change shown" and r["p"] > 0.5,
      f"paired_ratio x2 and /2 alternating: spans 1, no change shown (got {r})")

# Identical runs: ratio 1, zero-width interval at 1 (not "lower" or
# "higher"), p = 1.
r = stats.paired_ratio(ctl, ctl)
check(close(r["ratio"], 1.0) and r["verdict"] == "no change shown" and r["p"] == 1.0,
      f"paired_ratio of a sample with itself: x1.00, no change shown (got {r})")

# Ten times fewer in most states, with noise: lower, interval below 1.
x = [round((c + 1) / 10 * f) for c, f in zip(ctl, (1, 1.3, 0.8, 1, 1.1, 0.9, 1.2, 1))]
r = stats.paired_ratio(x, ctl)
check(r["hi"] < 1 and r["verdict"] == "lower" and r["p"] < 0.05,
      f"paired_ratio about /10: lower, interval below 1 (got {r})")

# Zero spread: three states, each exactly twice the control. The t interval
# has no width, but three pairs cannot give a rank test p below 0.25: no
# verdict (CPU time counted in whole ticks looks like this).
r = stats.paired_ratio([1, 3, 5], [0, 1, 2])
check(close(r["ratio"], 2.0) and close(r["lo"], 2.0) and r["p"] >= 0.25
      and r["verdict"] == "no change shown",
      f"paired_ratio x2 in 3 states: zero-width interval, p >= 0.25, no verdict (got {r})")
# Zeros: pairs with no difference are left out of the rank test, exactly.
r = stats.paired_ratio([0, 0, 1, 3, 5, 9], [0, 0, 0, 1, 2, 4])
check(close(r["p"], 0.125),
      f"paired_ratio with 2 tied pairs: exact p on the 4 others, 2/16 (got {r['p']})")

# One pair: a ratio but no interval.
r = stats.paired_ratio([5], [9])
check(close(r["ratio"], 0.6) and r["lo"] is None and r["verdict"] == "n too small",
      f"paired_ratio n=1: ratio 0.6, no interval (got {r})")

# Two-sample: the same values in another order are no change; four times
# more (+1) with the same spread is a ratio of 4 with 1 outside.
a = [10, 40, 3, 0, 120, 7, 55, 19]
r = stats.two_sample_ratio(list(reversed(a)), a)
check(close(r["ratio"], 1.0) and r["verdict"] == "no change shown",
      f"two_sample_ratio same values: x1.00, no change shown (got {r})")
b = [4 * (v + 1) - 1 for v in a]
r = stats.two_sample_ratio(b, a)
check(close(r["ratio"], 4.0) and r["lo"] < 1 < r["hi"] and r["verdict"] == "no change shown",
      f"two_sample_ratio x4 on a sample spread 0..120: cannot tell (got {r})")
a = [20, 25, 30, 22, 28, 24, 26, 27]
b = [4 * (v + 1) - 1 for v in a]
r = stats.two_sample_ratio(b, a)
check(close(r["ratio"], 4.0) and r["lo"] > 1 and r["verdict"] == "higher",
      f"two_sample_ratio x4 on a tight sample: interval above 1 (got {r})")
# Welch's interval on the logs by hand for a small case.
x, y = [1, 3, 7], [0, 1, 1, 3]
lx = [math.log(v + 1) for v in x]
ly = [math.log(v + 1) for v in y]
r = stats.two_sample_ratio(x, y)
check(close(r["ratio"], math.exp(sum(lx) / 3 - sum(ly) / 4)),
      f"two_sample_ratio: ratio of geometric means of (x+1) (got {r['ratio']:.4f})")

# Two constant samples: no spread, and 3 against 3 cannot reach p < 0.05.
r = stats.two_sample_ratio([1, 1, 1], [2, 2, 2])
check(r["verdict"] == "no change shown",
      f"two_sample_ratio constant 3 vs 3: no verdict (got {r})")

print(f"stats selftest: {failed} failed")
sys.exit(1 if failed else 0)
