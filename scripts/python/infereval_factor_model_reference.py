#!/usr/bin/env python3
"""The expected values of test/infereval-parity/model.test.ts ("fitFactorModel on the example"), computed outside
evalkit.

An independent, standard-library-only implementation (Python 3.11) of the infereval reference's factor-effects
model, run on examples/infereval/model:

- rows: one per sample of an item with factor levels; the reference verdict of an item is the panel's plurality
  (abstain counts as a verdict; a tie is abstain); a failed sample (provider_error, or parse_status sample_failed),
  a sample of an item whose reference abstains, and a sample the model abstained on are dropped, counted apart;
  the outcome is 1 when the sample's parsed verdict equals the reference verdict;
- design: an intercept, then per factor in sorted name order one dummy per declared level after the first;
- maximum likelihood by Newton's method (Gauss-Jordan inverse of the information matrix) to convergence;
- item-clustered sandwich covariance with the correction G/(G-1) * (N-1)/(N-K);
- z = coef / se, two-sided p = erfc(|z| / sqrt(2)), 95% interval coef -+ 1.959963984540054 * se.

It is not run by the tests (which must not need Python); run it to reproduce their digits:

    python3 scripts/python/infereval_factor_model_reference.py
"""
import json
import math
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples/infereval/model"
Z95 = 1.959963984540054


def plurality(verdicts):
    counts = {}
    for v in verdicts:
        counts[v] = counts.get(v, 0) + 1
    top = max(counts.values())
    winners = [v for v, c in counts.items() if c == top]
    return winners[0] if len(winners) == 1 else "abstain"


def inverse(m):
    n = len(m)
    a = [list(row) + [1.0 if i == j else 0.0 for j in range(n)] for i, row in enumerate(m)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        p = a[col][col]
        a[col] = [v / p for v in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0.0:
                f = a[r][col]
                a[r] = [v - f * w for v, w in zip(a[r], a[col])]
    return [row[n:] for row in a]


def matmul(a, b):
    return [[sum(a[i][k] * b[k][j] for k in range(len(b))) for j in range(len(b[0]))] for i in range(len(a))]


def main():
    benchmark = json.loads((EXAMPLE / "benchmark.json").read_text())
    evaluation = json.loads((EXAMPLE / "evaluation.json").read_text())
    declared = benchmark["factors"]
    factors = sorted(declared)
    bench_items = {it["id"]: it for it in benchmark["items"]}
    dropped = {"model_abstain": 0, "reference_abstain": 0, "sample_failed": 0}
    rows = []
    for item in evaluation["items"]:
        bench = bench_items.get(item["id"])
        levels = (bench or {}).get("factor_levels") or {}
        if not bench or not levels or any(f not in levels for f in factors):
            continue
        ref = plurality(bench["analyst_verdicts"])
        for s in item.get("samples", []):
            if s.get("provider_error") is not None or s.get("parse_status") == "sample_failed":
                dropped["sample_failed"] += 1
            elif ref == "abstain":
                dropped["reference_abstain"] += 1
            elif s.get("parsed_verdict") == "abstain":
                dropped["model_abstain"] += 1
            else:
                rows.append((item["id"], 1.0 if s.get("parsed_verdict") == ref else 0.0, levels))
    columns = [("(intercept)", None, None)] + [
        (level, f, level) for f in factors for level in declared[f][1:]
    ]
    x = [[1.0 if f is None else (1.0 if lv[f] == level else 0.0) for _, f, level in columns] for _, _, lv in rows]
    y = [r[1] for r in rows]
    n, k = len(x), len(columns)

    beta = [0.0] * k
    for _ in range(100):
        p = [1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, xi)))) for xi in x]
        grad = [sum((y[i] - p[i]) * x[i][j] for i in range(n)) for j in range(k)]
        info = [[sum(p[i] * (1 - p[i]) * x[i][a] * x[i][b] for i in range(n)) for b in range(k)] for a in range(k)]
        step = [sum(r * g for r, g in zip(row, grad)) for row in inverse(info)]
        beta = [b + s for b, s in zip(beta, step)]
        if max(abs(s) for s in step) < 1e-14:
            break
    p = [1 / (1 + math.exp(-sum(b * v for b, v in zip(beta, xi)))) for xi in x]
    bread = inverse([[sum(p[i] * (1 - p[i]) * x[i][a] * x[i][b] for i in range(n)) for b in range(k)] for a in range(k)])
    scores = {}
    for i, (item, _, _) in enumerate(rows):
        s = scores.setdefault(item, [0.0] * k)
        for j in range(k):
            s[j] += x[i][j] * (y[i] - p[i])
    meat = [[sum(s[a] * s[b] for s in scores.values()) for b in range(k)] for a in range(k)]
    g = len(scores)
    correction = g / (g - 1) * (n - 1) / (n - k)
    cov = [[v * correction for v in row] for row in matmul(matmul(bread, meat), bread)]

    out = {"n_observations": n, "n_parameters": k, "n_items": g, "dropped": dropped, "coefficients": []}
    for j, (label, _, _) in enumerate(columns):
        se = math.sqrt(cov[j][j])
        z = beta[j] / se
        out["coefficients"].append(
            {
                "label": label,
                "coef": beta[j],
                "std_err": se,
                "z": z,
                "p": math.erfc(abs(z) / math.sqrt(2)),
                "lo": beta[j] - Z95 * se,
                "hi": beta[j] + Z95 * se,
            }
        )
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
