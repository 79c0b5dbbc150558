"""check_assembly.py OUT_DIR -- check a run of an examples/assembly model against the
assembly-calculus behaviour (Papadimitriou et al. 2020). The model is told by the manifest's
model name (run_assembly.sh writes the variants):

  projection        every cap has exactly k winners; from some round <= 20 on, consecutive caps
                    of A overlap > 0.95; the number of neurons that ever won stays bounded
                    (< 4 k, and it stops growing once converged)
  projection_beta0  the same model with beta = 0: consecutive overlaps stay < 0.9 and the
                    number of neurons that ever won keeps growing past 4 k
  association       X (sx alone) and Y (sy alone) converge; after 20 rounds of co-firing,
                    X and Y recalled by their own stimulus overlap more than before (+0.2)
  merge             A and B converge; C (driven by both) converges within 20 rounds
  topk_1e6          (models/topk_1e6.neuro, static) exactly k winners in every round but the first

Caps are read from the recorded spikes: a round is a step, a rest step (no spikes) separates
operations. k is the size of the stimulus population (manifest)."""
import json
import os
import sys

import numpy as np


def fail(msg):
    print("check_assembly: FAIL: " + msg)
    sys.exit(1)


def caps_of(out, fname):
    a = np.load(os.path.join(out, fname))
    steps = np.rint(a["t"]).astype(np.int64)
    caps = {}
    for s in np.unique(steps):
        caps[int(s)] = frozenset(a["i"][steps == s].tolist())
    return caps


def segments(caps):
    """Runs of consecutive steps with a cap: one per operation (rest steps separate them)."""
    segs, cur = [], []
    for s in sorted(caps):
        if cur and s != cur[-1] + 1:
            segs.append(cur)
            cur = []
        cur.append(s)
    if cur:
        segs.append(cur)
    return segs


def overlaps(caps, seg, k):
    return [len(caps[a] & caps[b]) / k for a, b in zip(seg, seg[1:])]


def converged_by(ov, rounds, thr=0.95):
    """1-based round from which every later consecutive overlap exceeds thr, or None."""
    for r in range(len(ov)):
        if all(x > thr for x in ov[r:]):
            return r + 1 if r + 1 <= rounds else None
    return None


def check_sizes(caps, k, what):
    sizes = {len(c) for c in caps.values()}
    if sizes != {k}:
        fail("%s: caps of sizes %s, expected exactly k = %d" % (what, sorted(sizes), k))


def main():
    out = sys.argv[1]
    man = json.load(open(os.path.join(out, "manifest.json")))
    model = man["model"]
    pops = {p["name"]: p for p in man["populations"]}
    stim = [p for p in man["populations"] if p["name"].startswith("s")][0]
    k = stim["size"]
    if model.startswith("projection"):
        caps = caps_of(out, "A_caps.npy")
        check_sizes(caps, k, "A")
        seg = segments(caps)[0]
        ov = overlaps(caps, seg, k)
        support, grow = set(), []
        for s in seg:
            support |= caps[s]
            grow.append(len(support))
        print("overlaps " + " ".join("%.2f" % x for x in ov))
        print("ever won " + " ".join(str(x) for x in grow))
        if model == "projection":
            r = converged_by(ov, 20)
            if r is None:
                fail("consecutive caps do not stay above 0.95 overlap from round 20 on")
            if grow[-1] >= 4 * k:
                fail("%d neurons won at some round, not bounded (>= 4k = %d)" % (grow[-1], 4 * k))
            if grow[-1] != grow[min(len(grow) - 1, r + 5)]:
                fail("the set of winners still grows after convergence (round %d)" % r)
            print("check_assembly: converged at round %d, %d neurons ever won (k = %d)" % (r, grow[-1], k))
        else:
            if max(ov[5:]) >= 0.9:
                fail("with beta = 0 consecutive caps overlap %.2f >= 0.9" % max(ov[5:]))
            if grow[-1] < 4 * k:
                fail("with beta = 0 only %d neurons ever won (< 4k)" % grow[-1])
            print("check_assembly: beta = 0 does not converge: max overlap %.2f, %d neurons ever won"
                  % (max(ov[5:]), grow[-1]))
    elif model == "association":
        caps = caps_of(out, "C_caps.npy")
        check_sizes(caps, k, "C")
        segs = segments(caps)
        if len(segs) != 5:
            fail("expected 5 operations (X, Y, association, recall X, recall Y), found %d" % len(segs))
        for name, seg in zip(("X", "Y", "X+Y"), segs):
            r = converged_by(overlaps(caps, seg, k), 20)
            if r is None:
                fail("%s does not converge" % name)
        X, Y = caps[segs[0][-1]], caps[segs[1][-1]]
        X2, Y2 = caps[segs[3][-1]], caps[segs[4][-1]]
        before, after = len(X & Y) / k, len(X2 & Y2) / k
        print("overlap of X and Y: %.2f before, %.2f after association (chance %.4f)"
              % (before, after, k / pops["C"]["size"]))
        if not after > before + 0.2:
            fail("association did not increase the overlap enough (%.2f -> %.2f)" % (before, after))
        if len(X & X2) / k < 0.5 or len(Y & Y2) / k < 0.5:
            fail("the recalled assemblies lost their identity (%.2f, %.2f)"
                 % (len(X & X2) / k, len(Y & Y2) / k))
        print("check_assembly: association passed")
    elif model == "topk_1e6":
        caps = caps_of(out, "A_caps.npy")
        check_sizes(caps, k, "A")
        if len(caps) != man["completed_steps"] - 1:
            fail("%d rounds with a cap, expected %d" % (len(caps), man["completed_steps"] - 1))
        print("check_assembly: %d rounds of exactly k = %d winners among %d neurons"
              % (len(caps), k, pops["A"]["size"]))
    elif model == "merge":
        for area in ("A", "B", "C"):
            caps = caps_of(out, area + "_caps.npy")
            check_sizes(caps, k, area)
            seg = segments(caps)[0]
            ov = overlaps(caps, seg, k)
            r = converged_by(ov, 20)
            print("%s overlaps %s" % (area, " ".join("%.2f" % x for x in ov)))
            if r is None:
                fail("%s does not converge within 20 rounds" % area)
        print("check_assembly: merge passed")
    else:
        fail("unknown model '%s'" % model)


if __name__ == "__main__":
    main()
