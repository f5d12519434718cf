#!/usr/bin/env python3
"""Scores the paper's and the calibrated 2-sigma band, and the overconfidence
warning, over ensemble files written by `bpinn ensemble --out` (docs/results.md,
section 5). Usage: scripts/calib-ensembles.py heat.jsonl wave.jsonl ...

A band meets the targets of issue 22 when its grid coverage lies in
[0.90, 0.99] and its q95 (95 % quantile of |u - u*|/sigma) in [1.4, 2.6]. A
fit counts as overconfident when the paper's band covers below 0.90. The
warning is recomputed at each threshold from residual_rms (largest fresh/train
ratio of a beta group; known-noise groups are not in play in these studies),
and the calibrated band is the paper's where the warning does not fire, as
bayes.Fit.Calibrated does."""
import json
import statistics
import sys


def load(path):
    recs = [json.loads(line) for line in open(path) if line.strip()]
    return [r for r in recs if r.get("errors") and r["errors"].get("coverage_2sigma_calibrated") is not None]


def ratio(r):
    return max(v["fresh"] / v["train"] for v in r["residual_rms"].values() if v["train"])


def meets(c, q):
    return 0.90 <= c <= 0.99 and 1.4 <= q <= 2.6


def band(r, thr):
    e = r["errors"]
    if ratio(r) > thr:
        return e["coverage_2sigma_calibrated"], e["q95_calibrated"]
    return e["coverage_2sigma"], e["q95"]


studies = {p: load(p) for p in sys.argv[1:]}
print("study (fits) | paper: both targets | median coverage / q95 | calibrated: both | median coverage / q95 | calibrated < 0.9 | > 0.99")
for p, recs in studies.items():
    paper = [(r["errors"]["coverage_2sigma"], r["errors"]["q95"]) for r in recs]
    cal = [band(r, 2.0) for r in recs]
    n = len(recs)
    print("%s (%d) | %.2f | %.3f / %.2f | %.2f | %.3f / %.2f | %.2f | %.2f" % (
        p, n, sum(meets(*b) for b in paper) / n, statistics.median(c for c, _ in paper), statistics.median(q for _, q in paper),
        sum(meets(*b) for b in cal) / n, statistics.median(c for c, _ in cal), statistics.median(q for _, q in cal),
        sum(c < 0.9 for c, _ in cal) / n, sum(c > 0.99 for c, _ in cal) / n))
print()
print("threshold | false alarms | misses | fits meeting both targets with the calibrated band | per study: false alarms, misses")
for thr in (1.5, 1.75, 2.0, 2.25, 2.5, 3.0):
    fa = no = miss = over = good = total = 0
    per = []
    for p, recs in studies.items():
        sfa = sno = smiss = sover = 0
        for r in recs:
            o, w = r["errors"]["coverage_2sigma"] < 0.9, ratio(r) > thr
            sover, smiss = sover + o, smiss + (o and not w)
            sno, sfa = sno + (not o), sfa + (w and not o)
            good += meets(*band(r, thr))
        total += len(recs)
        fa, no, miss, over = fa + sfa, no + sno, miss + smiss, over + sover
        per.append("%s %d/%d, %d/%d" % (p, sfa, sno, smiss, sover))
    print("%.2f | %d / %d | %d / %d | %d / %d | %s" % (thr, fa, no, miss, over, good, total, "; ".join(per)))
