#!/usr/bin/env python3
"""check_grid.py WORKDIR SEED: the batch `--sweep S.rate=20Hz,45Hz --sweep T.C=200pF,250pF,300pF
--seeds 2 --seed SEED` (WORKDIR/batch) against the single runs (WORKDIR/single_<b>, b = point * 2
+ s with seed SEED + s): every instance folder identical to its single run (check_instances.py's
rules), and the top-level manifest and instances.csv say the grid, the seeds and the values."""
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_instances import against_single, all_distinct  # noqa: E402

RATES, CS, K = [20, 45], [200, 250, 300], 2


def main():
    work, seed = sys.argv[1], int(sys.argv[2])
    batch = os.path.join(work, "batch")
    errors = []
    with open(os.path.join(batch, "manifest.json")) as f:
        top = json.load(f)
    want_top = {"sweep": [{"name": "S.rate", "values": RATES}, {"name": "T.C", "values": CS}],
                "seeds": K, "seed": seed, "seed_rule": "seed + index % seeds",
                "instances_requested": 12, "interrupted": False}
    for k, v in want_top.items():
        if top.get(k) != v:
            errors.append(f"top-level manifest: '{k}' is {top.get(k)!r}, expected {v!r}")
    with open(os.path.join(batch, "instances.csv"), newline="") as f:
        rows = list(csv.reader(f))
    if rows[:1] != [["index", "folder", "seed", "S.rate", "T.C", "exit_status", "spikes"]]:
        errors.append(f"instances.csv: header {rows[:1]}")
    datas = []
    b = 0
    for r in RATES:
        for c in CS:
            for s in range(K):
                seed_b = seed + s
                inst = top["instances"][b] if b < len(top.get("instances", [])) else {}
                want = {"index": b, "folder": f"instance_{b}", "seed": seed_b, "exit_status": 0,
                        "values": {"S.rate": r, "T.C": c}}
                for k, v in want.items():
                    if inst.get(k) != v:
                        errors.append(f"instance {b}: manifest '{k}' is {inst.get(k)!r}, expected {v!r}")
                idir = os.path.join(batch, f"instance_{b}")
                sdir = os.path.join(work, f"single_{b}")
                mi, _, blob = against_single(b, idir, sdir, errors)
                spikes = sum(p["spikes"] for p in mi.get("populations", []))
                row = [str(b), f"instance_{b}", str(seed_b), str(r), str(c), "0", str(spikes)]
                if b + 1 >= len(rows) or rows[b + 1] != row:
                    errors.append(f"instances.csv: row {b} is {rows[b + 1] if b + 1 < len(rows) else None}, "
                                  f"expected {row}")
                datas.append(blob)
                print(f"instance {b} (seed {seed_b}, S.rate {r} Hz, T.C {c} pF): {spikes} spikes, "
                      "identical to the single run")
                b += 1
    if len(rows) != b + 1 or len(top.get("instances", [])) != b:
        errors.append(f"{len(rows) - 1} rows in instances.csv, {len(top.get('instances', []))} "
                      f"instances in the manifest, expected {b}")
    all_distinct(datas, errors)
    if errors:
        print("\n".join("FAIL: " + e for e in errors))
        return 1
    print(f"PASS: {b} instances of the grid, each identical to its single run, all distinct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
