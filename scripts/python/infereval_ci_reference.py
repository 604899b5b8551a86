#!/usr/bin/env python3
"""The expected values of test/metrics/infereval.test.ts, computed outside evalkit.

An independent, standard-library-only implementation (Python 3.11) of the infereval spec's agreement statistics and
their Politis-Romano subsampling interval, as the reference implementation computes them:

- consensus verdict of an item: good when more analysts say good than bad, bad when more say bad, else abstain;
- Cohen's kappa (model vs consensus) over the items where both verdicts are good/bad;
- Fleiss' kappa over the items where every rater (the analysts and the model) gave good/bad;
- subsampling CI: b = max(2, round(n ** 0.7)) items per draw, random.Random(seed).sample(range(n), b) for each draw,
  the statistic on each subsample (undefined ones dropped), the sorted values' floor(alpha * L) and
  floor((1 - alpha) * L) - 1 order statistics, centred on their mean and scaled by sqrt(b / n) around the estimate.

It is not run by the tests (which must not need Python); run it to reproduce their numbers:

    python3 scripts/python/infereval_ci_reference.py

Prints JSON: the values for test/fixtures/metrics/eta-run1.json (seed 42, 1000 draws; seed 7, 500 draws) and for
the 2000 generated rows (seed 2024, 200 draws) of "subsampling CI matches CPython on the set-based sample branch".
"""
import json
import math
import random
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SUBSTANTIVE = ("good", "bad")


def consensus(verdicts):
    good = sum(v == "good" for v in verdicts)
    bad = sum(v == "bad" for v in verdicts)
    return "good" if good > bad else "bad" if bad > good else "abstain"


def cohen(a, b):
    pairs = [(x, y) for x, y in zip(a, b) if x in SUBSTANTIVE and y in SUBSTANTIVE]
    if not pairs:
        return None
    n = len(pairs)
    po = sum(x == y for x, y in pairs) / n
    pe = sum((sum(x == c for x, _ in pairs) / n) * (sum(y == c for _, y in pairs) / n) for c in SUBSTANTIVE)
    if abs(1 - pe) < 1e-12:
        return None
    return (po - pe) / (1 - pe)


def fleiss(rows):
    if not rows:
        return None
    k = len(rows[0])
    kept = [r for r in rows if all(v in SUBSTANTIVE for v in r)]
    if k < 2 or not kept:
        return None
    p_sum = 0.0
    totals = {c: 0 for c in SUBSTANTIVE}
    for r in kept:
        counts = {c: sum(v == c for v in r) for c in SUBSTANTIVE}
        p_sum += sum(n * (n - 1) for n in counts.values()) / (k * (k - 1))
        for c in SUBSTANTIVE:
            totals[c] += counts[c]
    p_bar = p_sum / len(kept)
    pe = sum((totals[c] / (len(kept) * k)) ** 2 for c in SUBSTANTIVE)
    if abs(1 - pe) < 1e-12:
        return None
    return (p_bar - pe) / (1 - pe)


def subsampling_ci(n, statistic, seed, iterations, confidence=0.95):
    b = max(2, round(n**0.7))
    point = statistic(list(range(n)))
    rng = random.Random(seed)
    values = []
    for _ in range(iterations):
        v = statistic(rng.sample(range(n), b))
        if v is not None and not math.isnan(v):
            values.append(v)
    values.sort()
    alpha = (1 - confidence) / 2
    count = len(values)
    lo = values[math.floor(alpha * count)]
    hi = values[max(0, math.floor((1 - alpha) * count) - 1)]
    centre = sum(values) / count
    scale = math.sqrt(b / n)
    return {
        "estimate": point,
        "lo": point + scale * (lo - centre),
        "hi": point + scale * (hi - centre),
        "subsample_size": b,
        "defined": count,
    }


def metrics(items, seed, iterations):
    model = [it["model_verdict"] for it in items]
    ref = [consensus(it["analyst_verdicts"]) for it in items]
    rows = [list(it["analyst_verdicts"]) + [it["model_verdict"]] for it in items]
    kc = lambda idx: cohen([model[i] for i in idx], [ref[i] for i in idx])
    kf = lambda idx: fleiss([rows[i] for i in idx])
    return {
        "cohens_kappa_consensus": cohen(model, ref),
        "cohens_kappa_consensus_ci": subsampling_ci(len(items), kc, seed, iterations),
        "fleiss_kappa": fleiss(rows),
        "fleiss_kappa_ci": subsampling_ci(len(items), kf, seed, iterations),
    }


def generated_rows():
    v = ("good", "bad", "abstain")
    items = []
    for i in range(2000):
        analysts = [v[(i * 7) % 3], v[(i * 11 + 1) % 3], "good" if i % 5 else "bad"]
        items.append({"analyst_verdicts": analysts, "model_verdict": analysts[0] if i % 4 else v[(i * 13) % 3]})
    return items


def main():
    eta = json.loads((ROOT / "test/fixtures/metrics/eta-run1.json").read_text())
    out = {
        "eta-run1, seed 42, 1000 draws": metrics(eta["items"], 42, 1000),
        "eta-run1, seed 7, 500 draws": metrics(eta["items"], 7, 500),
        "2000 generated rows, seed 2024, 200 draws": metrics(generated_rows(), 2024, 200),
    }
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
