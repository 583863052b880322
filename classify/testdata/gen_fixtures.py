#!/usr/bin/python3
"""Writes fixtures.json, the reference the classify package's tests compare against.

Run with Debian's Python (python3-sklearn, python3-numpy) from this folder:

    /usr/bin/python3 gen_fixtures.py

Every expected number comes from scikit-learn except ECE, which scikit-learn
does not have: it is computed here with NumPy from its definition (equal-width
bins with edges j/B, a probability on an edge in the bin above it, 1.0 in the
last bin; the sum over bins of |mean(label) - mean(prob)| * n_bin / n).

Threshold metrics binarise with score >= threshold, written out below with
NumPy, because scikit-learn's metrics take hard predictions. (scikit-learn's
own Binarizer and its classifiers' predict use score > threshold; the
"at threshold" cases below make the difference visible.)

The "bootstrap_example" section is ExamplePairedBootstrapMulticlass's input
with scikit-learn's accuracy of each model and the exact distribution of
the stratified bootstrap's accuracy difference, found by enumerating every
draw (see bootstrap_example below).

Cases where scikit-learn refuses a metric, or where verdict does, list it in
"errors" instead of "want". The inputs are fixed by a seeded generator, so
rerunning reproduces the file byte for byte with the same library versions.
"""

import itertools
import json
import math
import re
import sys
import warnings
from fractions import Fraction

import numpy as np
import sklearn
from sklearn import metrics

RNG = np.random.default_rng(20250612)

VERSIONS = {
    "python": sys.version.split()[0],
    "numpy": np.__version__,
    "sklearn": sklearn.__version__,
}

SOURCES = {
    "roc_auc": "sklearn.metrics.roc_auc_score",
    "average_precision": "sklearn.metrics.average_precision_score",
    "log_loss": "sklearn.metrics.log_loss(labels=range(k)), default eps='auto'",
    "brier": "sklearn.metrics.brier_score_loss",
    "accuracy": "sklearn.metrics.accuracy_score on score >= threshold (binary) or argmax (multi-class)",
    "precision": "sklearn.metrics.precision_score on score >= threshold, default zero_division",
    "recall": "sklearn.metrics.recall_score on score >= threshold, default zero_division",
    "f1": "sklearn.metrics.f1_score on score >= threshold, default zero_division",
    "ece": "NumPy, by its definition (sklearn has no ECE)",
    "macro_f1": "sklearn.metrics.f1_score(average='macro') on argmax",
    "micro_f1": "sklearn.metrics.f1_score(average='micro') on argmax",
    "macro_roc_auc": "sklearn.metrics.roc_auc_score(multi_class='ovr', average='macro')",
}


def ece(y, p, bins):
    edges = np.arange(bins + 1) / bins
    idx = np.searchsorted(edges[1:-1], p, side="right")
    total = 0.0
    for b in range(bins):
        m = idx == b
        if m.any():
            total += abs(y[m].mean() - p[m].mean()) * m.sum() / len(p)
    return float(total)


def binary_case(name, y, s, threshold=0.5, bins=10, note=""):
    y = np.asarray(y, dtype=np.int64)
    s = np.asarray(s, dtype=np.float64)
    want, errors = {}, []
    single = len(np.unique(y)) < 2
    if single:
        # roc_auc_score raises; average_precision_score warns and returns a
        # number; verdict refuses both (ErrSingleClass).
        errors += ["roc_auc", "average_precision"]
    else:
        want["roc_auc"] = metrics.roc_auc_score(y, s)
        want["average_precision"] = metrics.average_precision_score(y, s)
    if s.min() >= 0 and s.max() <= 1:
        want["log_loss"] = metrics.log_loss(y, s, labels=[0, 1])
        want["brier"] = metrics.brier_score_loss(y, s, pos_label=1)
        want["ece"] = ece(y, s, bins)
    else:
        errors += ["log_loss", "brier", "ece"]
    pred = (s >= threshold).astype(np.int64)
    with warnings.catch_warnings():
        # Zero division warns and gives 0, which is what verdict returns.
        warnings.simplefilter("ignore", category=metrics._classification.UndefinedMetricWarning)
        want["accuracy"] = metrics.accuracy_score(y, pred)
        want["precision"] = metrics.precision_score(y, pred)
        want["recall"] = metrics.recall_score(y, pred)
        want["f1"] = metrics.f1_score(y, pred)
    c = {
        "name": name,
        "labels": [int(v) for v in y],
        "scores": [float(v) for v in s],
        "threshold": float(threshold),
        "bins": bins,
        "want": {k: float(v) for k, v in want.items()},
    }
    if errors:
        c["errors"] = errors
    if note:
        c["note"] = note
    return c


def multiclass_case(name, y, p, note=""):
    y = np.asarray(y, dtype=np.int64)
    p = np.asarray(p, dtype=np.float64)
    n, k = p.shape
    pred = np.argmax(p, axis=1)  # first maximum on ties
    want, errors = {}, []
    want["accuracy"] = metrics.accuracy_score(y, pred)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=metrics._classification.UndefinedMetricWarning)
        want["macro_f1"] = metrics.f1_score(y, pred, average="macro")
        want["micro_f1"] = metrics.f1_score(y, pred, average="micro")
    want["log_loss"] = metrics.log_loss(y, p, labels=list(range(k)))
    if len(np.unique(y)) == k:
        want["macro_roc_auc"] = metrics.roc_auc_score(y, p, multi_class="ovr", average="macro")
    else:
        # roc_auc_score refuses a class missing from y_true; verdict refuses
        # it with ErrSingleClass (that class's one-vs-rest AUC is undefined).
        errors.append("macro_roc_auc")
    c = {
        "name": name,
        "k": int(k),
        "labels": [int(v) for v in y],
        "probs": [float(v) for v in p.ravel()],
        "want": {kk: float(v) for kk, v in want.items()},
    }
    if errors:
        c["errors"] = errors
    if note:
        c["note"] = note
    return c


def informative(n, prevalence, strength):
    """Labels and probabilities that carry some signal about them."""
    y = (RNG.random(n) < prevalence).astype(np.int64)
    logit = np.log(prevalence / (1 - prevalence)) + strength * (y - prevalence) + RNG.normal(size=n)
    return y, 1 / (1 + np.exp(-logit))


def binary_cases():
    cases = []
    y, p = informative(200, 0.4, 1.5)
    cases.append(binary_case("random, n=200", y, p))

    y, p = informative(500, 0.5, 1.0)
    p = np.round(p * 10) / 10
    p[:5] = [0.0, 1.0, 0.5, 0.5, 0.3]
    cases.append(binary_case(
        "heavy ties: scores on the 0.1 grid, 0 and 1 included", y, p,
        note="every score sits on a bin edge j/10 and many on the threshold 0.5"))

    y = RNG.integers(0, 2, 40)
    y[:2] = [0, 1]
    cases.append(binary_case("all scores equal", y, np.full(40, 0.5)))

    cases.append(binary_case("n=2", [0, 1], [0.3, 0.7]))
    cases.append(binary_case("n=2, reversed", [1, 0], [0.3, 0.7]))
    cases.append(binary_case("n=2, tied", [1, 0], [0.6, 0.6]))

    y = np.array([0] * 30 + [1] * 20)
    p = np.concatenate([RNG.uniform(0, 0.4, 30), RNG.uniform(0.6, 1, 20)])
    p[0], p[-1] = 0.0, 1.0
    cases.append(binary_case("perfect separation, 0 and 1 included", y, p))

    y = np.array([1, 0, 1, 0, 1, 0])
    p = np.array([0.0, 1.0, 0.9, 0.1, 1.0, 0.0])
    cases.append(binary_case("confidently wrong: probabilities 0 and 1 clipped", y, p))

    y, p = informative(3000, 0.01, 2.0)
    y[:2] = [1, 0]
    p = np.round(p, 5)
    cases.append(binary_case("1% positives, n=3000", y, p))

    y, _ = informative(300, 0.3, 0.0)
    s = np.round(RNG.normal(size=300) + 1.2 * y, 2)
    s[:3] = 0.0
    cases.append(binary_case("logits, threshold 0", y, s, threshold=0.0,
                             note="scores are not probabilities; several sit exactly on the threshold"))
    cases.append(binary_case("logits, threshold 0.5", y, s, threshold=0.5))

    y, p = informative(100, 0.5, 1.0)
    p = p * 0.45
    cases.append(binary_case("nothing predicted positive", y, p,
                             note="precision divides 0 by 0: sklearn warns and gives 0"))

    y = np.ones(25, dtype=np.int64)
    cases.append(binary_case("all positive", y, RNG.uniform(0, 1, 25)))
    y = np.zeros(25, dtype=np.int64)
    cases.append(binary_case("all negative", y, RNG.uniform(0, 1, 25),
                             note="recall divides 0 by 0: sklearn warns and gives 0"))

    y, _ = informative(220, 0.5, 0.0)
    p = RNG.integers(0, 23, 220) / 22
    cases.append(binary_case("edges j/22, 22 bins", y, p, bins=22,
                             note="j/22*22 rounds below j for some j, so a bin computed as floor(p*B) would differ"))
    y, p = informative(400, 0.3, 1.0)
    cases.append(binary_case("random, 15 bins, threshold 0.3", y, p, threshold=0.3, bins=15))
    cases.append(binary_case("random, 1 bin", y, p, bins=1))
    y, p = informative(20000, 0.2, 1.5)
    p = np.round(p, 4)
    cases.append(binary_case("n=20000, 4 decimals", y, p))
    return cases


def dirichlet_rows(y, k, strength):
    alpha = np.ones((len(y), k))
    alpha[np.arange(len(y)), y] += strength
    return np.array([RNG.dirichlet(a) for a in alpha])


def multiclass_cases():
    cases = []
    y = RNG.integers(0, 3, 300)
    cases.append(multiclass_case("3 classes, n=300", y, dirichlet_rows(y, 3, 2.0)))

    y = RNG.integers(0, 5, 500)
    cases.append(multiclass_case("5 classes, n=500", y, dirichlet_rows(y, 5, 1.5)))

    # Rows of twentieths, many with a tied maximum, so argmax's first-index
    # rule decides the prediction.
    y = RNG.integers(0, 3, 90)
    rows = []
    for i in range(90):
        if i % 3 == 0:
            a = RNG.integers(4, 10)
            rows.append(RNG.permutation([a, a, 20 - 2 * a]))
        else:
            c = RNG.multinomial(20, [1 / 3] * 3)
            rows.append(c)
    p = np.array(rows, dtype=np.float64) / 20
    cases.append(multiclass_case("3 classes, ties in argmax", y, p))

    y = RNG.integers(0, 5, 60)
    y[y == 4] = 0
    p = dirichlet_rows(y, 5, 3.0)
    p[:, 4] = 0
    p /= p.sum(axis=1, keepdims=True)
    cases.append(multiclass_case(
        "5 classes, class 4 never seen nor predicted", y, p,
        note="macro F1 averages over the classes present in labels or predictions, as sklearn does"))

    y = RNG.integers(0, 3, 50)
    p = dirichlet_rows(y, 3, 1.0)
    p[:5] = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0]]
    y[:5] = [0, 0, 2, 1, 1]
    cases.append(multiclass_case("3 classes, probabilities 0 and 1 clipped", y, p))

    y = RNG.choice(5, 1000, p=[0.6, 0.2, 0.1, 0.07, 0.03])
    cases.append(multiclass_case("5 classes, imbalanced, n=1000", y, dirichlet_rows(y, 5, 1.0)))
    return cases


def bootstrap_example():
    """ExamplePairedBootstrapMulticlass's models and its exact bootstrap.

    The point estimates are scikit-learn's accuracy of each model's argmax
    (numpy's argmax takes the first of tied maxima). The stratified
    bootstrap draws 3 samples with replacement from each class's 3, so its
    replicates are the 27**3 equally likely ordered draws; enumerating them
    gives the exact distribution of the accuracy difference that the
    example's 2000 seeded replicates sample: its probabilities, its lower
    2.5 % and 97.5 % quantiles (the least d with P(D <= d) >= q), its
    standard deviation and 2 * min(P(D <= 0), P(D >= 0)), the limit of the
    bootstrap p-value. Probabilities are counted exactly with Fraction.
    """
    labels = np.array([0, 0, 0, 1, 1, 1, 2, 2, 2])
    baseline = np.array([
        0.6, 0.3, 0.1, 0.3, 0.5, 0.2, 0.5, 0.1, 0.4,
        0.2, 0.7, 0.1, 0.4, 0.4, 0.2, 0.1, 0.6, 0.3,
        0.2, 0.2, 0.6, 0.5, 0.2, 0.3, 0.3, 0.4, 0.3,
    ]).reshape(9, 3)
    candidate = np.array([
        0.7, 0.2, 0.1, 0.6, 0.3, 0.1, 0.5, 0.3, 0.2,
        0.1, 0.8, 0.1, 0.3, 0.6, 0.1, 0.4, 0.3, 0.3,
        0.1, 0.2, 0.7, 0.2, 0.2, 0.6, 0.2, 0.3, 0.5,
    ]).reshape(9, 3)
    n = len(labels)
    hit_left = baseline.argmax(axis=1) == labels
    hit_right = candidate.argmax(axis=1) == labels
    diff = hit_left.astype(int) - hit_right.astype(int)
    classes = [np.flatnonzero(labels == c) for c in range(3)]
    counts = {}
    draws = [itertools.product(idx, repeat=len(idx)) for idx in classes]
    for drawn in itertools.product(*draws):
        k = int(sum(diff[i] for group in drawn for i in group))
        counts[k] = counts.get(k, 0) + 1
    total = sum(counts.values())
    assert total == 27 ** 3
    ks = sorted(counts)
    prob = {k: Fraction(counts[k], total) for k in ks}

    def quantile(q):
        cum = Fraction(0)
        for k in ks:
            cum += prob[k]
            if cum >= q:
                return k / n

    mean = sum(Fraction(k, n) * prob[k] for k in ks)
    var = sum((Fraction(k, n) - mean) ** 2 * prob[k] for k in ks)
    le0 = sum(prob[k] for k in ks if k <= 0)
    ge0 = sum(prob[k] for k in ks if k >= 0)
    return {
        "name": "ExamplePairedBootstrapMulticlass",
        "source": "sklearn.metrics.accuracy_score on argmax; the bootstrap "
                  "distribution by enumerating all 27**3 stratified draws",
        "k": 3,
        "labels": [int(x) for x in labels],
        "left": [float(x) for x in baseline.ravel()],
        "right": [float(x) for x in candidate.ravel()],
        "want": {
            "left": float(metrics.accuracy_score(labels, baseline.argmax(axis=1))),
            "right": float(metrics.accuracy_score(labels, candidate.argmax(axis=1))),
            "differences": [k / n for k in ks],
            "probabilities": [float(prob[k]) for k in ks],
            "quantile_025": quantile(Fraction(25, 1000)),
            "quantile_975": quantile(Fraction(975, 1000)),
            "sd": math.sqrt(var),
            "p_value": float(min(1, 2 * min(le0, ge0))),
        },
    }


def main():
    doc = {
        "generator": "gen_fixtures.py",
        "versions": VERSIONS,
        "sources": SOURCES,
        "binary": binary_cases(),
        "multiclass": multiclass_cases(),
        "bootstrap_example": bootstrap_example(),
    }
    text = json.dumps(doc, indent=1, allow_nan=False)
    # One line per array of numbers keeps the file small and its diffs short.
    text = re.sub(r"\[\s*([-+0-9.eE,\s]+?)\s*\]",
                  lambda m: "[" + re.sub(r",\s+", ", ", m.group(1)) + "]", text)
    with open("fixtures.json", "w") as f:
        f.write(text + "\n")


if __name__ == "__main__":
    main()
