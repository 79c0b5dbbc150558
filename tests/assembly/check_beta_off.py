"""check_beta_off.py OUT_DIR -- models/beta_off.neuro replayed independently in float32:
4 stimulus neurons fire every step into 6 cap units (k = 2, all-to-all, delay 1 step);
step s >= 1: input I_j = sum_i w_ij (in presynaptic order), the 2 largest (positive) win,
and while beta is on (steps 0-3, then `set SA.beta = 0`) w_ij *= 1 + beta for every i onto
a winner j. The recorded winners and weights must equal the replay exactly."""
import os
import sys

import numpy as np

NPRE, NPOST, K, BETA, ON = 4, 6, 2, np.float32(0.5), 4


def main():
    out = sys.argv[1]
    spk = np.load(os.path.join(out, "A.npy"))
    rec = np.load(os.path.join(out, "w.npy"))
    if rec["t"][0] != 0:
        print("check_beta_off: FAIL: no row at t = 0 (the initial weights)")
        return 1
    rec = rec[1:]                                              # the samples at the ends of steps
    w = rec["w"][0].astype(np.float32).reshape(NPRE, NPOST)   # after step 0: no growth yet
    steps = len(rec)
    for s in range(1, steps):
        inp = np.zeros(NPOST, dtype=np.float32)
        for i in range(NPRE):
            inp = (inp + w[i]).astype(np.float32)
        order = sorted(range(NPOST), key=lambda j: -inp[j])
        win = sorted(j for j in order[:K] if inp[j] > 0)
        got = sorted(spk["i"][np.rint(spk["t"]).astype(int) == s + 1].tolist())
        if got != win:
            print("check_beta_off: FAIL: step %d winners %s, replay %s" % (s, got, win))
            return 1
        if s < ON:
            for j in win:
                w[:, j] = (w[:, j] * (np.float32(1) + BETA)).astype(np.float32)
        if not np.array_equal(rec["w"][s].astype(np.float32), w.reshape(-1)):
            print("check_beta_off: FAIL: step %d weights differ from the replay" % s)
            return 1
    grown = rec["w"][ON - 1] / rec["w"][0]
    print("check_beta_off: %d steps match; growth factors while on: %s; constant after 'set SA.beta = 0'"
          % (steps, sorted(set(np.round(grown, 4).tolist()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
