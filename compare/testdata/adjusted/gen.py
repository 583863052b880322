#!/usr/bin/python3
"""Writes the fixture of TestAdjustedPDecides and its reference values.

Two runs, baseline and candidate, scored on the same 200 users on three
metrics, each written as a wide per-user scores file (what `verdict log`
reads):

  ndcg@10    the candidate is better by about 0.03: p far below alpha,
             adjusted or not;
  recall@10  the candidate is worse by about 0.012: the paired t's raw p is
             below alpha 0.05, but every adjustment across the three metrics
             (Holm, Benjamini-Hochberg, Bonferroni) lifts it to alpha or
             above;
  mrr@10     no difference: p far above alpha.

Every value is a multiple of 1/1024 in [0, 1], so that the single-precision
real the store keeps is the very number scipy reads here. The seed is the
first from 1 up whose recall@10 raw p lies in [0.036, 0.045] (so that Holm's
2p, BH's 1.5p and Bonferroni's 3p all reach 0.05 by a margin) and whose
mrr@10 p is above 0.2.

reference.json holds, for each metric, scipy.stats.ttest_rel's t, df and
two-sided p, the 95 % t interval of the mean difference baseline -
candidate, and statsmodels' multipletests adjustments of the three p-values.

Run with Debian's python3 (python3-scipy, python3-statsmodels):

    /usr/bin/python3 gen.py
"""

import csv
import json

import numpy as np
import scipy
import statsmodels
from scipy import stats
from statsmodels.stats.multitest import multipletests

N = 200
METRICS = ["ndcg@10", "recall@10", "mrr@10"]
# (candidate's shift, noise sd) per metric.
SHAPE = {"ndcg@10": (0.03, 0.06), "recall@10": (-0.012, 0.08), "mrr@10": (0.0, 0.08)}
CONFIDENCE = 0.95


def quantize(x):
    return np.clip(np.round(x * 1024) / 1024, 0, 1)


def draw(seed):
    rng = np.random.default_rng(seed)
    base, cand = {}, {}
    for m in METRICS:
        shift, sd = SHAPE[m]
        base[m] = quantize(rng.uniform(0.2, 0.8, N))
        cand[m] = quantize(base[m] + shift + rng.normal(0, sd, N))
    return base, cand


def pvalue(base, cand, m):
    return float(stats.ttest_rel(base[m], cand[m]).pvalue)


seed = 1
while True:
    base, cand = draw(seed)
    if 0.036 <= pvalue(base, cand, "recall@10") <= 0.045 and pvalue(base, cand, "mrr@10") > 0.2:
        break
    seed += 1

ids = [f"user-{u:03d}" for u in range(N)]
for name, side in (("baseline.csv", base), ("candidate.csv", cand)):
    with open(name, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["sample_id"] + METRICS)
        for u, id in enumerate(ids):
            # repr of a multiple of 1/1024 is exact.
            w.writerow([id] + [repr(float(side[m][u])) for m in METRICS])

ref = {
    "generator": f"gen.py, seed {seed}: scipy {scipy.__version__} ttest_rel and t.ppf, statsmodels {statsmodels.__version__} multipletests",
    "n": N,
    "confidence": CONFIDENCE,
    "metrics": [],
}
ps = []
for m in METRICS:
    d = base[m] - cand[m]
    r = stats.ttest_rel(base[m], cand[m])
    df = N - 1
    half = stats.t.ppf(0.5 + CONFIDENCE / 2, df) * d.std(ddof=1) / np.sqrt(N)
    ps.append(float(r.pvalue))
    ref["metrics"].append({
        "metric": m,
        "baseline_mean": float(base[m].mean()),
        "candidate_mean": float(cand[m].mean()),
        "mean_diff": float(d.mean()),
        "t": float(r.statistic),
        "df": df,
        "p_value": float(r.pvalue),
        "ci_low": float(d.mean() - half),
        "ci_high": float(d.mean() + half),
    })
for name, method in (("holm", "holm"), ("bh", "fdr_bh"), ("bonferroni", "bonferroni")):
    adj = multipletests(ps, method=method)[1]
    for i, m in enumerate(ref["metrics"]):
        m.setdefault("p_adjusted", {})[name] = float(adj[i])

with open("reference.json", "w") as f:
    json.dump(ref, f, indent=2)
    f.write("\n")
print(json.dumps(ref, indent=2))
