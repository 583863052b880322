#!/usr/bin/python3
"""Writes reference.json, the fixture of TestMarginPairedTAgainstStatsmodels.

Each case is a baseline and a candidate scored on the same 200 users on one
metric, higher- or lower-is-better, with a practical margin delta, built so
that the paired t's margin decision at alpha 0.05 is the case's name:

  non_inferior  the candidate is better by about 0.008 but not
                distinguishably: worse by less than delta 0.01, not shown
                within delta on the better side;
  inferior      the candidate is worse by about 0.03, delta 0.015;
  equivalent    no difference, small spread: within +-delta 0.004 (TOST);
  inconclusive  worse by about delta 0.01, wide spread.

The margins differ between cases, so that a margin taken from anywhere but
the request shows.

Each is written for both directions: for a lower-is-better metric the
candidate's values move the other way, so that "worse" means higher.

"worse" is how much worse the candidate is: baseline - candidate for a
higher-is-better metric, candidate - baseline for a lower-is-better one.
The p-values are statsmodels' ttost_paired on the oriented differences
(x1 - x2 = worse, bounds -delta and +delta):

  p_non_inferior          H0: worse >= delta   (ttost_paired's upper test)
  p_not_better_by_margin  H0: worse <= -delta  (its lower test)
  p_equivalence           ttost_paired's p-value, the larger of the two
  p_inferior              H0: worse <= delta, one-sided t
                          (ttost_paired with bounds delta, +inf: lower test)

worse_low and worse_high are the one-sided bounds at alpha, the 90 % t
interval of the mean of worse, with the quantile solved by brentq on
scipy's accurate t.sf (scipy 1.10's t.ppf is good to about 1e-9 only).
The decision is the first that holds of superior (two-sided ttest_rel p
below alpha and the candidate better), equivalent, non_inferior, inferior,
else inconclusive.

Every value is a multiple of 1/1024 in [0, 1], so that the single-precision
real the store keeps is the very number read here. Each case's seed is the
first from 1 up whose decision is its name.

Run with Debian's python3 (python3-scipy, python3-statsmodels):

    /usr/bin/python3 gen.py
"""

import json
import math

import numpy as np
import scipy
import statsmodels
from scipy import optimize, stats
from statsmodels.stats.weightstats import ttost_paired

N = 200
ALPHA = 0.05

# name: (mean of worse, spread of the difference, delta)
CASES = {
    "non_inferior": (-0.008, 0.085, 0.01),
    "inferior": (0.03, 0.05, 0.015),
    "equivalent": (0.0, 0.01, 0.004),
    "inconclusive": (0.01, 0.05, 0.01),
}


def grid(x):
    return np.clip(np.round(np.asarray(x) * 1024), 0, 1024) / 1024


def upper_quantile(df, q):
    return optimize.brentq(lambda t: stats.t.sf(t, df) - q, 0, 100, xtol=1e-15, rtol=1e-15)


def decide(worse, delta):
    n = len(worse)
    mean, se = worse.mean(), worse.std(ddof=1) / math.sqrt(n)
    p_eq, (t_lo, p_lo, _), (t_hi, p_hi, _) = ttost_paired(worse, np.zeros(n), -delta, delta)
    _, (_, p_inf, _), _ = ttost_paired(worse, np.zeros(n), delta, np.inf)
    two = stats.ttest_rel(worse, np.zeros(n)).pvalue
    q = upper_quantile(n - 1, ALPHA)
    out = {
        "worse": mean, "se": se, "df": n - 1,
        "worse_low": mean - q * se, "worse_high": mean + q * se,
        "p_non_inferior": p_hi, "p_not_better_by_margin": p_lo,
        "p_equivalence": p_eq, "p_inferior": p_inf, "p_two_sided": two,
    }
    if two < ALPHA and mean < 0:
        d = "superior"
    elif p_hi < ALPHA and p_lo < ALPHA:
        d = "equivalent"
    elif p_hi < ALPHA:
        d = "non_inferior"
    elif p_inf < ALPHA:
        d = "inferior"
    else:
        d = "inconclusive"
    out["decision"] = d
    return out


def case(name, lower):
    shift, spread, delta = CASES[name]
    for seed in range(1, 10000):
        rng = np.random.default_rng(seed)
        base = grid(rng.uniform(0.3, 0.7, N))
        worse = rng.normal(shift, spread, N)
        cand = grid(base + worse if lower else base - worse)
        w = (cand - base) if lower else (base - cand)
        ref = decide(w, delta)
        if ref["decision"] == name:
            ref.update({
                "name": name + ("-lower" if lower else "-higher"), "lower_is_better": lower,
                "margin": delta, "seed": seed,
                "baseline": base.tolist(), "candidate": cand.tolist(),
            })
            return ref
    raise SystemExit(f"no seed gives {name}")


def main():
    doc = {
        "generator": "gen.py", "alpha": ALPHA, "n": N,
        "versions": {"numpy": np.__version__, "scipy": scipy.__version__, "statsmodels": statsmodels.__version__},
        "cases": [case(name, lower) for lower in (False, True) for name in CASES],
    }
    with open("reference.json", "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
