#!/usr/bin/env python3
"""Summarizes a width scan: ensemble files of one problem with different
hidden sizes, written by `bpinn ensemble --out` (docs/curvature.md, the
burgers-wide width scan). Usage: scripts/width-scan.py w10.jsonl w20.jsonl ...

Prints one Markdown row per fit (net, weights, seed, the final Laplace's
structure, ln Z, rel L2, the paper's and the calibrated 2-sigma coverage,
the record's seconds), one row per net (its best-by-evidence and
lowest-error fits), the net the evidence picks (the highest ln Z of all
fits) against the net of the lowest error, and Spearman's rho between ln
Z and rel L2 over the fits with both (average ranks for ties; strongly
negative means the evidence selects the lower error), and over the fits
on each side of the dense limit (a dense Laplace, another structure).
Fits without a log evidence (failed) are listed and left out of the
ranking."""
import json
import sys


def load(path):
    return [json.loads(line) for line in open(path) if line.strip()]


def ranks(xs):
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def spearman(xs, ys):
    rx, ry = ranks(xs), ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5 if sxx and syy else float("nan")


def net(r):
    return "-".join(str(h) for h in r["architecture"])


def weights(r):
    a = r["architecture"]
    return sum((a[i] + 1) * a[i + 1] for i in range(len(a) - 1))


def fmt(x, f):
    return "-" if x is None else format(x, f)


fits = [r for p in sys.argv[1:] for r in load(p)]
print("| net | weights | seed | Laplace | ln Z | rel L2 | coverage (2σ) | calibrated coverage | s | status |")
print("|---|---|---|---|---|---|---|---|---|---|")
for r in fits:
    e = r.get("errors") or {}
    print(f"| {net(r)} | {weights(r)} | {r['seed']} | {r.get('laplace_structure') or '-'} | {fmt(r.get('log_evidence'), '.1f')} | "
          f"{fmt(e.get('rel_l2'), '.4f')} | {fmt(e.get('coverage_2sigma'), '.3f')} | "
          f"{fmt(e.get('coverage_2sigma_calibrated'), '.3f')} | {fmt(r.get('seconds'), '.0f')} | {r['status']} |")

ranked = [r for r in fits if r.get("log_evidence") is not None and (r.get("errors") or {}).get("rel_l2") is not None]
print()
print("| net | fits | best by evidence: ln Z, rel L2 | lowest rel L2 | median rel L2 |")
print("|---|---|---|---|---|")
for name in dict.fromkeys(net(r) for r in fits):
    rs = [r for r in fits if net(r) == name and (r.get("errors") or {}).get("rel_l2") is not None]
    if not rs:
        continue
    errs = sorted(r["errors"]["rel_l2"] for r in rs)
    med = errs[len(errs) // 2] if len(errs) % 2 else (errs[len(errs) // 2 - 1] + errs[len(errs) // 2]) / 2
    ev = [r for r in rs if r in ranked]
    best = max(ev, key=lambda r: r["log_evidence"]) if ev else None
    bt = f"{best['log_evidence']:.1f}, {best['errors']['rel_l2']:.4f}" if best else "no evidence"
    print(f"| {name} | {len(rs)} | {bt} | {errs[0]:.4f} | {med:.4f} |")

if ranked:
    top = max(ranked, key=lambda r: r["log_evidence"])
    low = min(ranked, key=lambda r: r["errors"]["rel_l2"])
    print()
    print(f"evidence picks {net(top)} seed {top['seed']} (rel L2 {top['errors']['rel_l2']:.4f}); "
          f"lowest error among them: {net(low)} seed {low['seed']} (rel L2 {low['errors']['rel_l2']:.4f})")
    rho = spearman([r["log_evidence"] for r in ranked], [r["errors"]["rel_l2"] for r in ranked])
    print(f"spearman rho(ln Z, rel L2) = {rho:.3f} over {len(ranked)} fits with evidence")
    for label, keep in (("a dense", lambda r: r.get("laplace_structure") == "dense"),
                        ("another structure's", lambda r: r.get("laplace_structure") not in (None, "dense"))):
        part = [r for r in ranked if keep(r)]
        if 3 <= len(part) < len(ranked):
            rho = spearman([r["log_evidence"] for r in part], [r["errors"]["rel_l2"] for r in part])
            print(f"spearman rho(ln Z, rel L2) = {rho:.3f} over the {len(part)} fits with {label} Laplace")
