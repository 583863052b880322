#!/usr/bin/python3
"""Writes cancer_reference.json, the fits demo/cancer_test.go checks demo's
logistic regressions against.

Run with Debian's Python (python3-sklearn, python3-numpy) from this folder:

    /usr/bin/python3 gen_cancer_reference.py

It reads the repository's copy of the data
(../../testdata/breast-cancer-wisconsin/breast_cancer.csv.gz), checks that it
equals scikit-learn's load_breast_cancer(), and repeats demo's protocol
independently of the Go code:

  - Labels: scikit-learn codes 0 = malignant, 1 = benign; demo's label is
    1 = malignant, so y = 1 - target.
  - IDs: "wdbc-0001" is the first data row of the file.
  - Split (demo.SplitTumours): within each class, in row order, every third
    sample (the 3rd, 6th, 9th, ...) is a test sample; the rest train.
  - Standardisation: StandardScaler fitted on the training samples (mean and
    population standard deviation, ddof = 0), applied to both parts.
  - Model: LogisticRegression(C=...) with its L2 penalty, which minimises
    C * sum(log loss) + ||w||^2 / 2 with an unpenalised intercept. demo
    states the same penalty as lambda = 1/C on the summed log loss.

The solver is newton-cholesky (Newton's method, new in scikit-learn 1.2)
with tol=1e-12, which converges to the optimum to rounding: the script
prints the largest gradient component of the penalised objective at
scikit-learn's solution as a check (below 1e-14 with the versions recorded
in the output).
Rerunning reproduces the file with the same library versions.
"""

import gzip
import json
import os
import sys

import numpy as np
import sklearn
from sklearn.datasets import load_breast_cancer
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "..", "..", "testdata", "breast-cancer-wisconsin", "breast_cancer.csv.gz")

# The models of demo.BreastCancerModels: name, feature columns, C.
MODELS = [
    ("logistic-radius-texture", [0, 1], 1.0),
    ("logistic-all-features", list(range(30)), 0.1),
]


def load():
    with gzip.open(DATA, "rt") as f:
        header = f.readline().strip().split(",")
        rows = np.loadtxt(f, delimiter=",")
    assert header == ["569", "30", "malignant", "benign"], header
    X, target = rows[:, :30], rows[:, 30].astype(int)
    ref = load_breast_cancer()
    assert np.array_equal(X, ref.data) and np.array_equal(target, ref.target)
    assert list(ref.target_names) == ["malignant", "benign"]
    return X, 1 - target, ref.feature_names


def split(y):
    test = np.zeros(len(y), dtype=bool)
    for c in (1, 0):
        rows = np.flatnonzero(y == c)
        test[rows[2::3]] = True
    return test


def main():
    X, y, names = load()
    ids = np.array(["wdbc-%04d" % (i + 1) for i in range(len(y))])
    test = split(y)
    train = ~test
    out = {
        "generator": "demo/testdata/gen_cancer_reference.py",
        "versions": {
            "python": sys.version.split()[0],
            "numpy": np.__version__,
            "sklearn": sklearn.__version__,
        },
        "train": int(train.sum()),
        "test_ids": ids[test].tolist(),
        "test_labels": y[test].tolist(),
        "models": [],
    }
    for name, cols, C in MODELS:
        scaler = StandardScaler().fit(X[train][:, cols])
        Ztr = scaler.transform(X[train][:, cols])
        Zte = scaler.transform(X[test][:, cols])
        m = LogisticRegression(C=C, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(Ztr, y[train])
        w, b = m.coef_[0], m.intercept_[0]
        # Gradient of sum(log loss) + ||w||^2 / (2C) at the solution.
        p = 1 / (1 + np.exp(-(Ztr @ w + b)))
        grad = np.concatenate([[np.sum(p - y[train])], Ztr.T @ (p - y[train]) + w / C])
        print("%s: max |gradient| %.2e after %d iterations" % (name, np.abs(grad).max(), m.n_iter_[0]))
        out["models"].append({
            "name": name,
            "features": [str(names[c]) for c in cols],
            "columns": cols,
            "C": C,
            "mean": scaler.mean_.tolist(),
            "scale": scaler.scale_.tolist(),
            "intercept": float(b),
            "coef": w.tolist(),
            "probabilities": m.predict_proba(Zte)[:, 1].tolist(),
        })
    with open(os.path.join(HERE, "cancer_reference.json"), "w") as f:
        json.dump(out, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
