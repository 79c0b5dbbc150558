#!/usr/bin/env python3
"""check_instances.py WORKDIR B SEED: instance b of `--instances B --seed SEED` (in
WORKDIR/batch/instance_<b>/) holds exactly what the single run `--seed SEED+b` wrote (in
WORKDIR/single_<b>/): every recording byte-identical in its data (.npy: the part after the
header, and the same header; .csv: the whole file), the same manifest apart from timings;
the top-level manifest lists the B instances with their seeds and folders (and, where
$EXPECT_RUN_AS is set, says the batch ran so: "processes", or "one process" side by side;
with $SWEEP, a --sweep batch: every instance with the seed, instance b with value b);
and the instances differ from one another (so the seed rule is really applied)."""
import json
import os
import sys


def npy_split(path):
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:6] != b"\x93NUMPY":
        raise SystemExit(f"{path}: not a .npy file")
    hlen = int.from_bytes(raw[8:10], "little")
    return raw[:10 + hlen], raw[10 + hlen:]


def data_of(path):
    if path.endswith(".npy"):
        return npy_split(path)
    with open(path, "rb") as f:
        return b"", f.read()


def strip_timing(m):
    m = dict(m)
    m.pop("timing_s", None)
    return m


def against_single(b, idir, sdir, errors):
    """Instance b's folder against its single run's: the manifests (timings aside) and every
    recording's header and data. Returns both manifests and the instance's data bytes."""
    with open(os.path.join(idir, "manifest.json")) as f:
        mi = json.load(f)
    with open(os.path.join(sdir, "manifest.json")) as f:
        ms = json.load(f)
    if strip_timing(mi) != strip_timing(ms):
        errors.append(f"instance {b}: manifest differs from the single run's")
    files = sorted(r["file"] for r in ms.get("recordings", []))
    if not files:
        errors.append(f"instance {b}: the model records nothing")
    blob = b""
    for name in files:
        hi, di = data_of(os.path.join(idir, name))
        hs, ds = data_of(os.path.join(sdir, name))
        if hi != hs or di != ds:
            errors.append(f"instance {b}: {name} differs from its single run"
                          f" ({len(di)} vs {len(ds)} data bytes)")
        blob += di
    return mi, ms, blob


def all_distinct(datas, errors, why=""):
    """Every two instances recorded different data."""
    for a in range(len(datas)):
        for b in range(a + 1, len(datas)):
            if datas[a] == datas[b]:
                errors.append(f"instances {a} and {b} recorded the same data{why}")


def main():
    work, B, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    batch = os.path.join(work, "batch")
    errors = []
    with open(os.path.join(batch, "manifest.json")) as f:
        top = json.load(f)
    if top.get("instances_requested") != B or len(top.get("instances", [])) != B:
        errors.append(f"top-level manifest: {B} instances expected, got {top.get('instances')}")
    if top.get("seed") != seed or top.get("interrupted") is not False:
        errors.append(f"top-level manifest: seed {top.get('seed')}, interrupted {top.get('interrupted')}")
    sweep = os.environ.get("SWEEP")   # every instance has the seed, instance b value b
    want_sweep = None
    if sweep:   # NAME=V0,V1,...: the manifest lists the name and the values as numbers
        name, vals = sweep.split("=", 1)
        want_sweep = [{"name": name, "values": [float(v.rstrip("ms")) for v in vals.split(",")]}]
    if sweep and (top.get("sweep") != want_sweep or top.get("seed_rule") != "seed"):
        errors.append(f"top-level manifest: sweep {top.get('sweep')!r}, seed rule {top.get('seed_rule')!r}")
    if not sweep and top.get("seed_rule") != "seed + index":
        errors.append(f"top-level manifest: seed rule {top.get('seed_rule')!r}")
    run_as = os.environ.get("EXPECT_RUN_AS")
    if run_as and top.get("run_as") != run_as:
        errors.append(f"top-level manifest: the batch ran as {top.get('run_as')!r}, expected {run_as!r}")
    datas = []
    for b in range(B):
        inst = top["instances"][b] if b < len(top.get("instances", [])) else {}
        want = {"index": b, "folder": f"instance_{b}", "seed": seed if sweep else seed + b, "exit_status": 0}
        for k, v in want.items():
            if inst.get(k) != v:
                errors.append(f"instance {b}: manifest '{k}' is {inst.get(k)!r}, expected {v!r}")
        idir = os.path.join(batch, f"instance_{b}")
        sdir = os.path.join(work, f"single_{b}")
        mi, ms, blob = against_single(b, idir, sdir, errors)
        if mi.get("seed") != (seed if sweep else seed + b):
            errors.append(f"instance {b}: its manifest has seed {mi.get('seed')}")
        spikes = sum(p["spikes"] for p in mi.get("populations", []))
        if inst.get("spikes") != spikes or inst.get("completed_steps") != mi.get("completed_steps"):
            errors.append(f"instance {b}: top-level spikes/steps {inst.get('spikes')}/"
                          f"{inst.get('completed_steps')} != its manifest's {spikes}/{mi.get('completed_steps')}")
        datas.append(blob)
        print(f"instance {b} (seed {seed if sweep else seed + b}): {len(ms.get('recordings', []))} recordings, {len(blob)} data bytes, "
              f"{spikes} spikes: identical to the single run")
    all_distinct(datas, errors, ": the seed rule is not applied")
    if errors:
        print("\n".join("FAIL: " + e for e in errors))
        return 1
    print(f"PASS: {B} instances, each identical to its single run, all distinct")
    return 0


if __name__ == "__main__":
    sys.exit(main())
