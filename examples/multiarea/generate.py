#!/usr/bin/env python3
"""generate.py DATA_DIR OUT.neuro [options] -- the multi-area model of macaque visual cortex
(Schmidt et al. 2018a, b; stabilized in-degrees of Schuecker et al. 2017) written as a .neuro
model from the plain data set in DATA_DIR (../shared/data/multiarea: populations.csv,
synapses.csv, external.csv, area_distances.csv, repo_reference_rates.csv, params.json).

The data are CC BY-NC-SA 4.0 (INM-6/multi-area-model): the model this writes embeds them, so
it is not committed; examples/multiarea/README.md says where they come from.

What it writes, following params.json (the numbers stay in the file as named constants):
  * one base population `all` of stdlib LIF (NEST iaf_psc_exp: C_m 250 pF, tau_m 10 ms, so
    g_L = 25 nS; E_L = V_reset = -65 mV, V_th = -50 mV, t_ref 2 ms), initial V ~ N(-150, 50)
    mV, and a view per area and population (`V1_23E` ...; area 46 is `A46_...`) of
    floor(N * N_scaling) neurons;
  * a projection per (source, target) pair with floor(n_syn * N_scaling * K_scaling) > 0:
    fixed_total with multapses and autapses; weights N(J, 0.1 |J|) redrawn on a sign
    violation (E sources >= 0, I sources <= 0); delays N(d, 0.5 d) redrawn below dt, d =
    1.5 ms (E) / 0.75 ms (I) inside an area, distance / 3.5 mm/ms between areas; J = 87.81
    pA (a 0.15 mV PSP; 2x for 4E -> 23E inside an area; g = -11 from I), between areas
    chi J onto E and chi chi_I J onto I targets; every receptor ExpCurr(tau = 0.5 ms);
  * the external drive of each population: K_ext independent Poisson inputs at 10 Hz, each a
    PSC of 87.81 pA through the same ExpCurr (a stimulus `via`, as NEST's poisson_generator);
  * down-scaling (--scale): the recipe of the reference code (multiarea_model.py): neurons x
    N_scaling, in-degrees (external ones too) x K_scaling, every weight / sqrt(K_scaling),
    and a DC current I_e = C_m / tau_m (1 - sqrt(K_scaling)) (x1 + x1_ext) per population
    that restores the mean input (x1 = 1e-3 tau_m sum_j J_ij K_ij r_j in mV with the
    repository's full-scale rates r_j, x1_ext the same for the Poisson drive);
  * --areas: only these areas; the input from the others is replaced, as the reference
    code's 'het_poisson_stat' does, by Poisson input at their full-scale rates
    (repo_reference_rates.csv) through the inter-area weight (--no-replace drops it);
  * spikes of every neuron recorded to spikes.npy (the manifest's views map neurons to
    populations: check_rates.py).
"""
import argparse
import csv
import json
import math
import os
import sys

POPS = ["23E", "23I", "4E", "4I", "5E", "5I", "6E", "6I"]


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def ident(area, pop):
    """The view's name: an identifier (area 46 starts with a digit)."""
    return ("A" + area if area[0].isdigit() else area) + "_" + pop


def cw(code, comment):
    """A line of code with its comment in column 48."""
    return "%s# %s" % (code.ljust(47) if len(code) < 47 else code + " ", comment)


def fmt(x):
    """A number as the model writes it: shortest round trip, no exponent for ordinary sizes."""
    r = repr(float(x))
    return r[:-2] if r.endswith(".0") and abs(x) < 1e15 else r


class Model:
    def __init__(self, data, args):
        self.args = args
        P = json.load(open(os.path.join(data, "params.json")))
        self.params = P
        self.pops = read_csv(os.path.join(data, "populations.csv"))
        self.syn = read_csv(os.path.join(data, "synapses.csv"))
        self.ext = read_csv(os.path.join(data, "external.csv"))
        rates = read_csv(os.path.join(data, "repo_reference_rates.csv"))
        self.rate = {(r["area"], r["population"]): float(r["rate_Hz"]) for r in rates}
        dist = read_csv(os.path.join(data, "area_distances.csv"))
        key = list(dist[0].keys())[0]
        self.dist = {(row[key], s): float(v) for row in dist for s, v in row.items() if s != key}
        areas = P["network"]["area_order"]
        if args.areas:
            want = args.areas.split(",")
            bad = [a for a in want if a not in areas]
            if bad:
                sys.exit("generate.py: unknown area%s %s (the areas: %s)" % ("s" if len(bad) > 1 else "",
                         ", ".join(bad), ", ".join(areas)))
            self.areas = [a for a in areas if a in want]
        else:
            self.areas = areas
        self.chi, self.chi_I = (1.0, 1.0) if args.state == "ground" else (1.9, 2.0)
        sets = P["parameter_sets"]
        key = "ground_state" if args.state == "ground" else "metastable_state"
        assert sets[key]["cc_weights_factor_chi"] == self.chi and sets[key]["cc_weights_I_factor_chi_I"] == self.chi_I
        self.N_s = args.scale
        self.K_s = args.k_scale if args.k_scale is not None else args.scale
        n = P["neuron"]
        self.tau_m, self.C_m = n["tau_m_ms"], n["C_m_pF"]
        w = P["weights"]
        self.J_E, self.g, self.J_ext = w["J_E_pA"], w["g"], w["J_ext_pA"]
        self.psc_per_psp = w["PSC_per_PSP_pA_per_mV"]
        self.speed = P["delays"]["interarea_speed_mm_per_ms"]
        self.nu_ext = P["external_input"]["rate_ext_Hz"]

    # -- the rules of params.json, checked against the columns of synapses.csv --
    def weight(self, s):
        """(mean weight in units of J_E, full scale) of pair s, and its sign bound."""
        tgt, src = s["target_pop"], s["source_pop"]
        if s["projection"] == "intra":
            f = self.g if src.endswith("I") else (2.0 if (src, tgt) == ("4E", "23E") else 1.0)
        else:
            assert src.endswith("E")
            f = self.chi if tgt.endswith("E") else self.chi * self.chi_I
        ground = float(s["w_mean_pA"]) * (float(s["w_factor_metastable"]) if self.args.state != "ground" else 1)
        assert abs(f * self.J_E - ground) <= 1e-5 * abs(ground), (s, f)
        return f

    def delay(self, s):
        if s["projection"] == "intra":
            d = 0.75 if s["source_pop"].endswith("I") else 1.5
        else:
            d = self.dist[(s["target_area"], s["source_area"])] / self.speed
        assert abs(d - float(s["delay_mean_ms"])) <= 1e-5 * d, (s, d)
        return d

    def dc(self, pop, K_ext):
        """I_DC (pA) of the reference code for K_scaling < 1: (x1 + x1_ext) in mV."""
        x1 = 0.0
        for s in self.by_target.get(int(pop["pop_index"]), []):
            J = self.weight(s) * self.J_E / self.psc_per_psp
            x1 += J * float(s["indegree"]) * self.rate[(s["source_area"], s["source_pop"])]
        x1 *= 1e-3 * self.tau_m
        x1_ext = 1e-3 * self.tau_m * self.J_ext / self.psc_per_psp * K_ext * self.nu_ext
        return x1, x1_ext

    def write(self, out):
        a = self.args
        self.by_target = {}
        for s in self.syn:
            self.by_target.setdefault(int(s["target_index"]), []).append(s)
        ext = {int(e["pop_index"]): e for e in self.ext}
        pops = [p for p in self.pops if p["area"] in self.areas]
        size = {int(p["pop_index"]): int(math.floor(float(p["N"]) * self.N_s)) for p in pops}
        empty = [ident(p["area"], p["population"]) for p in pops if size[int(p["pop_index"])] < 1]
        if empty:
            sys.exit("generate.py: --scale %g leaves no neuron in %s" % (self.N_s, ", ".join(empty)))
        L = []
        w = L.append
        w("# multiarea.neuro -- the multi-area model of macaque visual cortex (Schmidt et al. 2018,")
        w("# Brain Struct Funct 223:1409 and PLoS Comput Biol 14:e1006359; stabilized in-degrees of")
        w("# Schuecker et al. 2017, PLoS Comput Biol 13:e1005179), %s state (chi = %g, chi_I = %g)."
          % (a.state, self.chi, self.chi_I))
        w("# Generated by examples/multiarea/generate.py from the data set of INM-6/multi-area-model")
        w("# (commit %s, CC BY-NC-SA 4.0: attribution, non-commercial," % self.params["source"]["commit"][:12])
        w("# share-alike); this file embeds those numbers: do not commit it. examples/multiarea/README.md")
        w("# says where every number comes from.")
        w("#   areas: %s" % ", ".join(self.areas))
        w("#   N_scaling %g, K_scaling %g, storage %s, %s ms simulated"
          % (self.N_s, self.K_s, "procedural" if a.procedural else "stored", fmt(a.t_sim)))
        w(cw('import "stdlib/neurons.neuro"', "LIF"))
        w(cw('import "stdlib/receptors.neuro"', "ExpCurr"))
        w("")
        w("sim { dt = %s ms; seed = %d }" % (fmt(self.params["simulation"]["dt_ms"]), a.seed))
        w("")
        w(cw("const N_scaling = %s" % fmt(self.N_s), "neurons per population x N_scaling"))
        w(cw("const K_scaling = %s" % fmt(self.K_s), "in-degrees x K_scaling, weights / sqrt(K_scaling)"))
        w(cw("const tau_s = 0.5 ms", "every PSC: ExpCurr, NEST tau_syn_ex = tau_syn_in"))
        w(cw("const J_E = %s pA / sqrt(K_scaling)" % fmt(self.J_E), "a PSP of 0.15 mV (585.39 pA per mV)"))
        w(cw("const g = %s" % fmt(self.g), "from I sources: g J_E"))
        w(cw("const chi = %s" % fmt(self.chi), "inter-area weights onto E: chi J_E"))
        w(cw("const chi_I = %s" % fmt(self.chi_I), "onto I: chi chi_I J_E"))
        w(cw("const J_ext = %s pA / sqrt(K_scaling)" % fmt(self.J_ext), "each external Poisson input"))
        w(cw("const nu_ext = %s Hz" % fmt(self.nu_ext), "the rate of each external input"))
        w(cw("const d_min = 0.1 ms", "delays are redrawn below one step"))
        w("const C_m = %s pF" % fmt(self.C_m))
        w("const tau_m = %s ms" % fmt(self.tau_m))
        w("")
        # sizes and offsets
        w("# neurons: floor(N * N_scaling) per population (N as computed, full scale)")
        prev = None
        for p in pops:
            v = ident(p["area"], p["population"])
            w("const N_%s = floor(%s * N_scaling)" % (v, p["N"]))
        for p in pops:
            v = ident(p["area"], p["population"])
            w("const O_%s = %s" % (v, "0" if prev is None else "O_%s + N_%s" % (prev, prev)))
            prev = v
        w("const N_all = O_%s + N_%s" % (prev, prev))
        w("")
        n = self.params["neuron"]
        w("population all = LIF(C = C_m, g_L = C_m / tau_m, E_L = %s mV, V_th = %s mV, V_reset = %s mV,"
          % (fmt(n["E_L_mV"]), fmt(n["V_th_mV"]), fmt(n["V_reset_mV"])))
        w("                     t_ref = %s ms)[N_all] {" % fmt(n["t_ref_ms"]))
        w(cw("  V = normal(%s mV, %s mV)" % (fmt(n["initial_V_m"]["mean_mV"]), fmt(n["initial_V_m"]["sd_mV"])),
             "hyperpolarised start, as the reference code"))
        w("}")
        for p in pops:
            v = ident(p["area"], p["population"])
            w(cw("population %s = all[O_%s:O_%s + N_%s]" % (v, v, v, v), "%s %s %s" % (p["area"], p["layer"],
                 "excitatory" if p["cell_type"] == "E" else "inhibitory")))
        w("")
        self.write_projections(w, pops, size)
        self.write_drive(w, pops, ext)
        w("")
        w('record spikes of all to "spikes.npy"')
        w("run %s ms" % fmt(a.t_sim))
        with open(out, "w") as f:
            f.write("\n".join(L) + "\n")
        return len(pops), self.nproj, self.nsyn

    def write_projections(self, w, pops, size):
        a = self.args
        idx = {int(p["pop_index"]) for p in pops}
        self.nproj, self.nsyn = 0, 0
        w("# recurrent projections, source -> target: floor(n_syn * N_scaling * K_scaling) synapses")
        w("# (fixed_total: multapses and autapses, as NEST's fixed_total_number), ExpCurr receptors;")
        w("# weights N(J, 0.1 |J|) redrawn until of the source's sign, delays N(d, d / 2) redrawn below")
        w("# one step (d: 1.5 ms from E, 0.75 ms from I in an area; distance / 3.5 mm/ms between)")
        for p in pops:
            t = int(p["pop_index"])
            tv = ident(p["area"], p["population"])
            srcs = [s for s in self.by_target.get(t, []) if int(s["source_index"]) in idx]
            w("")
            w("# ---- into %s (%s %s %s): from %d populations here, their in-degree %.0f at full scale" % (
                tv, p["area"], p["layer"], "excitatory" if p["cell_type"] == "E" else "inhibitory", len(srcs),
                sum(float(s["indegree"]) for s in srcs)))
            for s in srcs:
                k = int(math.floor(float(s["n_syn"]) * self.N_s * self.K_s))
                sv = ident(s["source_area"], s["source_pop"])
                if k < 1:
                    w("# %s -> %s: n_syn %s gives no synapse at this scale" % (sv, tv, s["n_syn"]))
                    continue
                f = self.weight(s)
                if s["projection"] == "intra":
                    J = "g * J_E" if f == self.g else "2 * J_E" if f == 2.0 else "J_E"
                else:
                    J = "chi * J_E" if tgt_is_e(s) else "chi * chi_I * J_E"
                bound = "hi = 0 pA" if f < 0 else "lo = 0 pA"
                d = self.delay(s)
                where = "" if s["projection"] == "intra" else "  # %s mm" % fmt(
                    round(self.dist[(s["target_area"], s["source_area"])], 3))
                w("projection %s_to_%s = %s -> %s {" % (sv, tv, sv, tv))
                w("  receptor = ExpCurr(tau = tau_s) -> I_syn")
                w("  connect  = fixed_total(floor(%s * N_scaling * K_scaling))" % s["n_syn"])
                w("  w        = normal(%s, %s0.1 * %s, %s)" % (J, "-" if f < 0 else "", J, bound))
                w("  delay    = normal(%s ms, 0.5 * %s ms, lo = d_min)%s" % (fmt(d), fmt(d), where))
                if a.procedural:
                    w("  storage  = procedural")
                w("}")
                self.nproj += 1
                self.nsyn += k

    def write_drive(self, w, pops, ext):
        a = self.args
        idx = {int(p["pop_index"]) for p in pops}
        w("")
        w("# external drive: K_ext x K_scaling independent Poisson inputs at nu_ext, each a PSC of J_ext")
        w("# through the population's ExpCurr; below full scale the DC of the reference code, I_e =")
        w("# C_m / tau_m (1 - sqrt(K_scaling)) (x1 + x1_ext), x1 = 1e-3 tau_m sum_j J_ij K_ij r_j (mV,")
        w("# full-scale J, K and rates r of repo_reference_rates.csv), x1_ext the same for the drive")
        if len(self.areas) < len(self.params["network"]["area_order"]) and a.replace:
            w("# Input from areas not simulated: Poisson input at their full-scale rates (the reference")
            w("# code's 'het_poisson_stat'), sum_j K_ij K_scaling r_j, through the inter-area weight")
        for p in pops:
            t = int(p["pop_index"])
            v = ident(p["area"], p["population"])
            e = ext[t]
            K_ext = float(e["K_ext"])
            x1, x1_ext = self.dc(p, K_ext)
            terms = ["J_ext * poisson(%s * K_scaling * nu_ext * dt)" % e["K_ext"]]
            if len(self.areas) < len(self.params["network"]["area_order"]) and a.replace:
                r = sum(float(s["indegree"]) * self.rate[(s["source_area"], s["source_pop"])]
                        for s in self.by_target.get(t, []) if int(s["source_index"]) not in idx)
                if r > 0:
                    J = "chi * J_E" if p["cell_type"] == "E" else "chi * chi_I * J_E"
                    terms.append("%s * poisson(%s Hz * K_scaling * dt)" % (J, fmt(round(r, 6))))
            w("stimulus ext_%s -> %s.I_syn via ExpCurr(tau = tau_s) = %s" % (v, v, " + ".join(terms)))
            if self.K_s != 1:
                w("set %s.I_e = C_m / tau_m * (1 - sqrt(K_scaling)) * (%s mV + %s mV)"
                  % (v, fmt(round(x1, 9)), fmt(round(x1_ext, 9))))


def tgt_is_e(s):
    return s["target_pop"].endswith("E")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", metavar="DATA_DIR", help="the data set (../shared/data/multiarea)")
    ap.add_argument("out", metavar="OUT.neuro")
    ap.add_argument("--scale", type=float, default=1.0,
                    help="N_scaling and K_scaling (default 1: full scale)")
    ap.add_argument("--k-scale", type=float, default=None, help="K_scaling, when it differs from --scale")
    ap.add_argument("--areas", default="", help="comma-separated areas (default: all 32)")
    ap.add_argument("--state", choices=["ground", "metastable"], default="ground")
    ap.add_argument("--procedural", action="store_true", help="storage = procedural for every projection")
    ap.add_argument("--no-replace", dest="replace", action="store_false",
                    help="with --areas: drop the input from the other areas instead of replacing it")
    ap.add_argument("--t-sim", type=float, default=10500.0, help="ms simulated (default 10500)")
    ap.add_argument("--seed", type=int, default=2018)
    args = ap.parse_args()
    if not (0 < args.scale <= 1) or (args.k_scale is not None and not (0 < args.k_scale <= 1)):
        sys.exit("generate.py: --scale and --k-scale are in (0, 1]")
    if not os.path.isfile(os.path.join(args.data, "params.json")):
        sys.exit("generate.py: %s holds no params.json: the data set is ../shared/data/multiarea "
                 "(examples/multiarea/README.md says how to get it)" % args.data)
    m = Model(args.data, args)
    npop, nproj, nsyn = m.write(args.out)
    print("generate.py: %s: %d populations, %d projections, %d synapses" % (args.out, npop, nproj, nsyn))
    return 0


if __name__ == "__main__":
    sys.exit(main())
