#!/usr/bin/python3
"""Writes t_interval.json, the reference for stats.TInterval.

Run with Debian's Python (scipy 1.10, numpy) from this folder:

    /usr/bin/python3 gen_t_interval.py

Each case is a t-test's interval, mean +- q * se with q the
1 - (1 - confidence)/2 quantile of Student's t with df degrees of freedom,
computed from the data and the test's own standard error, not from
|mean / t|: the corrected resampled t (Nadeau and Bengio 2003,
se = sqrt((1/J + n_test/n_train) * s^2)) and the paired t (se = s/sqrt(n),
checked against scipy.stats.ttest_rel's confidence_interval). scipy 1.10's
t.ppf (cephes stdtrit) is accurate to about 1e-9 only, so q is solved with
brentq on scipy.stats.t.sf, which is accurate, and checked against t.ppf.
The case also records mean, t and df, the inputs TInterval takes.

It is separate from gen_reference.py so that it needs only scipy and numpy
and leaves the other fixtures alone. The inputs are fixed by a seeded
generator, so rerunning reproduces the file byte for byte with the same
library versions.
"""

import json
import math
import sys

import numpy as np
import scipy
from scipy import optimize, stats

RNG = np.random.default_rng(20250301)

VERSIONS = {
    "python": sys.version.split()[0],
    "numpy": np.__version__,
    "scipy": scipy.__version__,
}


def fl(xs):
    return [float(x) for x in xs]


def quantile(df, confidence):
    """The 1 - (1 - confidence)/2 quantile of t_df, solved from t.sf."""
    tail = (1 - confidence) / 2
    q = optimize.brentq(lambda x: stats.t.sf(x, df) - tail, 0, 1e6,
                        xtol=1e-300, rtol=4 * np.finfo(float).eps)
    ppf = stats.t.ppf(1 - tail, df)
    assert abs(q - ppf) <= 1e-8 * q, (df, confidence, q, ppf)
    return q


def case(name, source, d, se, confidence, extra):
    mean = float(d.mean())
    t = mean / se
    df = len(d) - 1
    q = quantile(df, confidence)
    c = {
        "name": name,
        "source": source,
        "diffs": fl(d),
        "confidence": confidence,
        "want": {"mean": mean, "t": float(t), "df": df,
                 "q": float(q),
                 "low": float(mean - q * se), "high": float(mean + q * se)},
    }
    c.update(extra)
    return c


def cases():
    out = []

    def corrected(name, diffs, n_train, n_test, confidence=0.95):
        d = np.asarray(diffs, dtype=float)
        j = len(d)
        se = math.sqrt((1 / j + n_test / n_train) * d.var(ddof=1))
        out.append(case(name, "corrected resampled t (Nadeau-Bengio) "
                        "interval, quantile by brentq on scipy.stats.t.sf",
                        d, se, confidence,
                        {"kind": "corrected", "n_train": n_train,
                         "n_test": n_test}))

    def paired(name, diffs, confidence=0.95):
        d = np.asarray(diffs, dtype=float)
        se = d.std(ddof=1) / math.sqrt(len(d))
        c = case(name, "paired t interval, quantile by brentq on "
                 "scipy.stats.t.sf, checked against scipy.stats.ttest_rel",
                 d, se, confidence, {"kind": "paired"})
        ci = stats.ttest_rel(d, np.zeros(len(d))).confidence_interval(
            confidence_level=confidence)
        assert abs(c["want"]["low"] - ci.low) < 1e-7
        assert abs(c["want"]["high"] - ci.high) < 1e-7
        out.append(c)

    corrected("10-fold", RNG.normal(0.01, 0.015, 10), 900, 100)
    corrected("5-fold at 90%", RNG.normal(0.02, 0.02, 5), 800, 200, 0.90)
    corrected("10x10 repeated CV at 99%", RNG.normal(0.005, 0.02, 100),
              4500, 500, 0.99)
    corrected("3-fold, negative", [-0.02, -0.035, -0.01], 2000, 1000)
    corrected("2 folds, df 1", [0.03, 0.01], 500, 500)
    corrected("2 folds, df 1 at 99.9%", [0.03, 0.01], 500, 500, 0.999)
    paired("paired, 40 users", RNG.normal(0.03, 0.1, 40))
    paired("paired, 1000 users at 80%", RNG.normal(-0.01, 0.2, 1000), 0.80)
    paired("paired, 4 users at 50%", [0.1, -0.05, 0.2, 0.07], 0.50)
    # The inputs of ExampleTInterval (ttest_example_test.go).
    corrected("ExampleTInterval",
              [0.012, 0.025, -0.004, 0.018, 0.009, 0.021, 0.003, 0.015,
               0.011, 0.007], 900, 100)
    return out


def main():
    doc = {"generator": "gen_t_interval.py", "versions": VERSIONS,
           "cases": cases()}
    with open("t_interval.json", "w") as f:
        json.dump(doc, f, indent=1, allow_nan=False)
        f.write("\n")


if __name__ == "__main__":
    main()
