#!/usr/bin/python3
"""Prints the exact values that compare/example_test.go's Examples estimate,
which their comments and TestExamplesAgainstExactReferences cite.

Run with Debian's python3 (python3-scipy):

    /usr/bin/python3 examples_reference.py
"""

import itertools
from collections import Counter
from fractions import Fraction

from scipy import stats


def exact_sign_flip_p(d):
    """The sign-flip test's exact p: the share of the 2^k sign patterns of
    the k non-zero differences whose sum is at least as far from 0 as the
    observed one."""
    nz = [x for x in d if x != 0]
    t = abs(sum(nz))
    hits = sum(1 for s in itertools.product((1, -1), repeat=len(nz))
               if abs(sum(a * x for a, x in zip(s, nz))) >= t)
    return Fraction(hits, 2 ** len(nz))


def bootstrap_mean_cdf(d):
    """The exact distribution of the mean of len(d) draws from d with
    replacement, as (mean, P(mean <= it)) pairs."""
    n, counts = len(d), Counter(d)
    dist = {Fraction(0): Fraction(1)}
    for _ in range(n):
        nxt = {}
        for s, p in dist.items():
            for v, k in counts.items():
                nxt[s + v] = nxt.get(s + v, 0) + p * Fraction(k, n)
        dist = nxt
    cum, out = Fraction(0), []
    for s in sorted(dist):
        cum += dist[s]
        out.append((s / n, cum))
    return out


print("ExampleScores_distinguishable: 16 differences of 1, 4 of 0")
d = [Fraction(1)] * 16 + [Fraction(0)] * 4
p = exact_sign_flip_p(d)
print(f"  exact sign-flip p = {p} = {float(p):.3g}")
print(f"  P(2000 flips find more than 2 as extreme) = {stats.binom(2000, float(p)).sf(2):.3g}")
k = stats.binom(20, 0.8)
for x in (10, 11, 12, 13, 17, 18, 19):
    print(f"  Binomial(20, 0.8): P(K <= {x}) = {k.cdf(x):.4f}")
print(f"  quantiles 2.5 %, 97.5 %: K = {k.ppf(0.025):g}, {k.ppf(0.975):g}")

print("ExampleScores_indistinguishable: differences 1, 0, 0, 0, 0.5, 0, 0, 0.5")
d = [Fraction(x) for x in (1, 0, 0, 0, Fraction(1, 2), 0, 0, Fraction(1, 2))]
p = exact_sign_flip_p(d)
print(f"  exact sign-flip p = {p} = {float(p):g}")
for m, c in bootstrap_mean_cdf(d):
    if m <= Fraction(1, 16) or Fraction(7, 16) <= m <= Fraction(9, 16):
        print(f"  bootstrap mean: P(mean <= {float(m):g}) = {float(c):.4f}")
