"""Statistics of the paired benchmark, on numpy and scipy (Debian's packages).

Every function returns what it could not tell as well as what it could:
an interval that is None when n is too small for it, and a verdict that
says "no change shown" unless the interval excludes no change and the rank
test agrees (p < 0.05).

- median_ci(xs): the median and a distribution-free interval from order
  statistics, (x(k), x(n+1-k)) with the largest k whose binomial coverage
  is still >= level; None below n = 6 at 95%.
- paired_ratio(x, c, add): the configuration x against the control c run
  from the same saved states: geometric mean of (x+add)/(c+add) over the
  states, a t interval on the log ratios, and the Wilcoxon signed-rank p.
  add (1 for counts) keeps a zero count finite: 0 failures against 9 is a
  ratio of 0.1, not 0.
- two_sample_ratio(x, y, add): configurations that cannot share states
  (the stock kernel against the patched one): ratio of geometric means,
  Welch t interval on the logs, Mann-Whitney U p.
"""
import math
import warnings

import numpy as np
from scipy import stats

LEVEL = 0.95


def median_ci(xs, level=LEVEL):
    """(median, lo, hi, coverage); lo and hi are None if n is too small."""
    x = sorted(float(v) for v in xs)
    n = len(x)
    if n == 0:
        return None, None, None, 0.0
    med = float(np.median(x))
    best = None
    for k in range(1, n // 2 + 1):
        cov = 1.0 - 2.0 * stats.binom.cdf(k - 1, n, 0.5)
        if cov < level:
            break
        best = (k, cov)
    if best is None:
        return med, None, None, 1.0 - 2.0 * 0.5 ** n
    k, cov = best
    return med, x[k - 1], x[n - k], float(cov)


def verdict(lo, hi, p, alpha=1 - LEVEL):
    """'lower' / 'higher' when the interval excludes 1 and the rank test
    agrees (p < alpha), else 'no change shown'.  Both are asked for: with
    zero spread (CPU time in whole ticks, say) the interval has no width,
    and only the rank test knows that three equal pairs prove little."""
    if lo is None or hi is None:
        return "n too small"
    if p is None or p >= alpha:
        return "no change shown"
    if hi < 1.0:
        return "lower"
    if lo > 1.0:
        return "higher"
    return "no change shown"


def _t_interval(mean, sd, n, level):
    if n < 2:
        return None, None
    half = stats.t.ppf((1 + level) / 2, n - 1) * sd / math.sqrt(n)
    return mean - half, mean + half


def paired_ratio(x, c, add=1.0, level=LEVEL):
    """dict: n, ratio, lo, hi, p, verdict for x against c, pair by pair."""
    x = np.asarray(x, dtype=float)
    c = np.asarray(c, dtype=float)
    if x.shape != c.shape:
        raise ValueError("paired samples differ in length")
    n = len(x)
    if n == 0:
        return {"n": 0, "ratio": None, "lo": None, "hi": None, "p": None,
                "verdict": "n too small"}
    d = np.log((x + add) / (c + add))
    m = float(d.mean())
    lo, hi = _t_interval(m, float(d.std(ddof=1)) if n > 1 else 0.0, n, level)
    nz = d[d != 0]
    if len(nz) == 0:
        p = 1.0
    else:
        # Pairs with no difference carry no sign: the test runs on the
        # others (scipy would fall back to a normal approximation that is
        # too optimistic at this n); ties among them make it approximate.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            p = float(stats.wilcoxon(nz).pvalue)
    lo = math.exp(lo) if lo is not None else None
    hi = math.exp(hi) if hi is not None else None
    return {"n": n, "ratio": math.exp(m), "lo": lo, "hi": hi, "p": p,
            "verdict": verdict(lo, hi, p)}


def two_sample_ratio(x, y, add=1.0, level=LEVEL):
    """dict: nx, ny, ratio, lo, hi, p, verdict for x against y (unpaired)."""
    lx = np.log(np.asarray(x, dtype=float) + add)
    ly = np.log(np.asarray(y, dtype=float) + add)
    nx, ny = len(lx), len(ly)
    out = {"nx": nx, "ny": ny, "ratio": None, "lo": None, "hi": None, "p": None,
           "verdict": "n too small"}
    if nx < 2 or ny < 2:
        return out
    diff = float(lx.mean() - ly.mean())
    vx, vy = float(lx.var(ddof=1)) / nx, float(ly.var(ddof=1)) / ny
    se = math.sqrt(vx + vy)
    if se == 0:
        lo = hi = diff
    else:
        # Welch-Satterthwaite degrees of freedom.
        df = (vx + vy) ** 2 / (vx ** 2 / (nx - 1) + vy ** 2 / (ny - 1))
        half = stats.t.ppf((1 + level) / 2, df) * se
        lo, hi = diff - half, diff + half
    # Exact for small samples: the normal approximation that scipy takes
    # once there are ties would call 3 equal values against 3 others
    # significant (p = 0.047), where no arrangement of 3 + 3 can be (0.1).
    method = "exact" if nx + ny <= 20 else "auto"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p = float(stats.mannwhitneyu(lx, ly, alternative="two-sided",
                                     method=method).pvalue)
    out.update(ratio=math.exp(diff), lo=math.exp(lo), hi=math.exp(hi), p=p)
    out["verdict"] = verdict(out["lo"], out["hi"], p)
    return out
