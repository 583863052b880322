#!/usr/bin/python3
"""Reference values for stats.SeedBootstrap, written to seeds.json.

Two configurations, each trained with several seeds (runs) and evaluated on
the same users, are drawn from a crossed random-effects model:
value = mu_config + run effect + user effect + noise. The script computes,
independently of verdict's code:
- the grand means and their difference;
- each configuration's variance components by the two-way ANOVA of a
  balanced crossed design, and by statsmodels' MixedLM (REML) with crossed
  variance components for runs and users;
- the two-level bootstrap (users drawn with replacement, the same for both
  configurations; each configuration's runs drawn with replacement, their
  spread about the configuration's mean widened by sqrt(R/(R-1))) with
  NumPy's generator and many replicates: its standard error, and the
  interval and p-value of the t reference on the Welch-Satterthwaite
  degrees of freedom of the run means, which verdict's bootstrap, with its
  own random numbers, must match within Monte Carlo error;
- the share of run pairs in which the candidate's run has the higher mean;
- the two-level bootstrap of configuration a's mean alone, its standard
  error and t interval on R - 1 degrees of freedom (stats.SeedMean).

Run with Debian's /usr/bin/python3 (python3-numpy, python3-statsmodels).
"""
import json
import os

import numpy as np
import pandas as pd
import statsmodels.api as sm
from scipy import stats

rng = np.random.default_rng(20261203)
USERS = 120


def config(mu, runs, seed_sd, user_effects):
    run = rng.normal(0, seed_sd, size=(runs, 1))
    noise = rng.normal(0, 0.05, size=(runs, USERS))
    return np.round(mu + run + user_effects[None, :] + noise, 6)


users = rng.normal(0, 0.1, size=USERS)
a = config(0.40, 4, 0.02, users)
b = config(0.42, 5, 0.02, users)


def anova(x):
    R, n = x.shape
    rm, um, g = x.mean(axis=1), x.mean(axis=0), x.mean()
    ms_run = n * ((rm - g) ** 2).sum() / (R - 1)
    ms_user = R * ((um - g) ** 2).sum() / (n - 1)
    e = x - rm[:, None] - um[None, :] + g
    ms_err = (e ** 2).sum() / ((R - 1) * (n - 1))
    return {"seed": max(0.0, (ms_run - ms_err) / n), "user": max(0.0, (ms_user - ms_err) / R), "residual": ms_err}


def reml(x):
    R, n = x.shape
    df = pd.DataFrame({"y": x.ravel(), "run": np.repeat(np.arange(R), n), "user": np.tile(np.arange(n), R), "g": 1})
    m = sm.MixedLM.from_formula("y ~ 1", groups="g", vc_formula={"run": "0 + C(run)", "user": "0 + C(user)"}, re_formula="0", data=df)
    f = m.fit(reml=True, method="lbfgs")
    vc = dict(zip(m.exog_vc.names, f.vcomp))
    return {"seed": float(vc["run"]), "user": float(vc["user"]), "residual": float(f.scale)}


def widened(x):
    R = x.shape[0]
    m = x.mean(axis=1)
    return x + (np.sqrt(R / (R - 1)) - 1) * (m - m.mean())[:, None]


def two_level(a, b, B):
    a, b = widened(a), widened(b)
    n = a.shape[1]
    out = np.empty(B)
    for i in range(B):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        ra = a[rng.integers(0, a.shape[0], a.shape[0])]
        rb = b[rng.integers(0, b.shape[0], b.shape[0])]
        out[i] = (ra @ counts).sum() / (a.shape[0] * n) - (rb @ counts).sum() / (b.shape[0] * n)
    return out


B = 20000
d = two_level(a, b, B)
se = d.std(ddof=1)
ma, mb = a.mean(axis=1), b.mean(axis=1)
va, vb = ma.var(ddof=1) / len(ma), mb.var(ddof=1) / len(mb)
df = (va + vb) ** 2 / (va ** 2 / (len(ma) - 1) + vb ** 2 / (len(mb) - 1))
diff = a.mean() - b.mean()
q = stats.t.ppf(0.975, df)
beats = np.mean([(1.0 if y > x else 0.5 if y == x else 0.0) for x in ma for y in mb])

def one_group(x, B):
    """The two-level bootstrap of one configuration's mean (stats.SeedMean)."""
    x = widened(x)
    R, n = x.shape
    out = np.empty(B)
    for i in range(B):
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        out[i] = (x[rng.integers(0, R, R)] @ counts).sum() / (R * n)
    return out


# Drawn after the values above, so that adding it changed none of them.
mean_se = one_group(a, B).std(ddof=1)
mean_q = stats.t.ppf(0.975, a.shape[0] - 1)
out = {
    "a": a.tolist(),
    "b": b.tolist(),
    "mean_a": float(a.mean()),
    "mean_b": float(b.mean()),
    "difference": float(a.mean() - b.mean()),
    "anova_a": anova(a),
    "anova_b": anova(b),
    "reml_a": reml(a),
    "reml_b": reml(b),
    "resamples": B,
    "se": float(se),
    "df": float(df),
    "ci_low_95": float(diff - q * se),
    "ci_high_95": float(diff + q * se),
    "p_value": float(2 * stats.t.sf(abs(diff) / se, df)),
    "b_beats_a": float(beats),
    "mean_a_se": float(mean_se),
    "mean_a_df": a.shape[0] - 1,
    "mean_a_ci_low_95": float(a.mean() - mean_q * mean_se),
    "mean_a_ci_high_95": float(a.mean() + mean_q * mean_se),
}
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds.json"), "w") as f:
    json.dump(out, f, indent=1)
