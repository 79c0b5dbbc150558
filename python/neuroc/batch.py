"""A batch's output folder (--instances B or --sweep): the top-level manifest and its
instance_<b>/ folders."""
import csv
import json
import os

from .errors import OutputError
from .run import Run

COLUMNS = ("index", "folder", "seed", "exit_status", "completed_steps", "interrupted", "spikes", "rtf")


class Batch:
    """A batch made by neuroc.load(folder) on a --instances/--sweep output folder.

    manifest   -- the raw top-level manifest.json
    sweep      -- the swept parameters, one {"name": "P.x", "values": [...]} per --sweep
                  option (in the declared unit; several make a grid, the last varying
                  fastest), or None
    seeds      -- --seeds K, or None
    table      -- one dict per instance started: index, folder, seed, exit_status,
                  completed_steps, interrupted, spikes, rtf, and the swept parameters'
                  values ("P.x": value, in the declared unit) from the manifest's per-instance
                  "values", else from instances.csv, else (sweeps) from each instance's own
                  manifest
    len(batch), batch.instance(b) -> Run, iter(batch) -> the Runs, batch.to_pandas(),
    batch.rates() -> per instance, the rate of every population and declared view
    """

    def __init__(self, folder, manifest):
        self.folder = os.path.abspath(folder)
        self.manifest = manifest
        self.sweep = manifest.get("sweep")
        self.seeds = manifest.get("seeds")
        self.dt = manifest.get("dt_ms")
        self.interrupted = bool(manifest.get("interrupted"))
        self._table = None

    def __len__(self):
        return len(self.manifest["instances"])

    def __repr__(self):
        return "<neuroc Batch %s: %s, %d instances>" % (self.folder, self.manifest.get("model"), len(self))

    def _csv_values(self):
        p = os.path.join(self.folder, "instances.csv")
        if not os.path.isfile(p):
            return {}
        out = {}
        with open(p, encoding="utf-8", newline="") as f:
            for row in csv.DictReader(f):
                b = int(row.get("index", len(out)))
                out[b] = {k: _number(v) for k, v in row.items() if k not in COLUMNS and k != "index"}
        return out

    @property
    def table(self):
        if self._table is None:
            from_csv = None
            rows = []
            for e in self.manifest["instances"]:
                row = {k: e.get(k) for k in COLUMNS}
                vals = e.get("values")
                if vals is None:
                    if from_csv is None:
                        from_csv = self._csv_values()
                    vals = from_csv.get(e["index"])
                if vals is None and self.sweep:
                    mf = os.path.join(self.folder, e["folder"], "manifest.json")
                    if os.path.isfile(mf):
                        with open(mf, encoding="utf-8") as f:
                            ps = json.load(f).get("parameters", {})
                        vals = {k: v.get("value") for k, v in ps.items()}
                row.update(vals or {})
                rows.append(row)
            self._table = rows
        return self._table

    def to_pandas(self):
        """The table as a pandas DataFrame indexed by instance (needs pandas)."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Batch.to_pandas() needs pandas; Batch.table is the same as a list of dicts")
        return pandas.DataFrame(self.table).set_index("index")

    def rates(self):
        """One dict per instance started: the mean rate (Hz) of every population and every
        declared view in it ({name: rate}; None where the instance wrote no manifest or a
        view's spikes were not counted), from the instances' own manifests."""
        out = []
        for e in self.manifest["instances"]:
            mf = os.path.join(self.folder, e["folder"], "manifest.json")
            row = {}
            if os.path.isfile(mf):
                with open(mf, encoding="utf-8") as f:
                    m = json.load(f)
                sim_s = m.get("completed_steps", 0) * m.get("dt_ms", 0) * 1e-3
                for p in m.get("populations", []) + m.get("views", []):
                    ok = p.get("spikes") is not None and sim_s > 0 and p.get("size")
                    row[p["name"]] = p["spikes"] / p["size"] / sim_s if ok else None
            out.append(row)
        return out

    def instance(self, b):
        """The Run of instance b (its index, 0 .. B-1)."""
        for e in self.manifest["instances"]:
            if e["index"] == b:
                return Run(os.path.join(self.folder, e["folder"]))
        raise OutputError("%s: no instance %r (the batch started %d)"
                          % (os.path.join(self.folder, "manifest.json"), b, len(self)))

    def __iter__(self):
        return (self.instance(e["index"]) for e in self.manifest["instances"])


def _number(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return s
