/* rec_writer.c -- writes a known set of recordings for check_numpy.py to read back:
 * spikes.npy / spikes.csv (200000 spikes, several flushes), state.npy / state.csv (V and m
 * of neurons 0, 2500, 7 every 10 steps) and manifest.json, into the folder argv[1].
 * The values follow formulas the Python side recomputes bit for bit.
 */
#include "neurort.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    static nrt_ctx ctx;
    const char *args[] = {"rec_writer", "--out", NULL, "--quiet", "--seed", "1234", NULL};
    const char *vars[2] = {"V", "m"}, *units[2] = {"mV", "1"};
    const int64_t idx[3] = {0, 2500, 7};
    nrt_rec *sn, *sc, *vn, *vc;
    long s;
    int v, k;
    double vals[6];
    if (argc < 2)
        return 2;
    args[2] = argv[1];
    ctx.model = "writer";
    ctx.backend = "c";
    ctx.dt = 0.1;
    ctx.total_steps = 3000;
    if (nrt_init(&ctx, 6, (char **)args) != NRT_OK) {
        fprintf(stderr, "rec_writer: %s\n", ctx.errmsg);
        return 1;
    }
    nrt_pop_register(&ctx, "exc", 3000);
    sn = nrt_rec_spikes(&ctx, "spikes.npy", "exc", 3000);
    sc = nrt_rec_spikes(&ctx, "spikes.csv", "exc", 3000);
    vn = nrt_rec_state(&ctx, "state.npy", "exc", 2, vars, units, 3, idx, 10);
    vc = nrt_rec_state(&ctx, "state.csv", "exc", 2, vars, units, 3, idx, 10);
    if (!sn || !sc || !vn || !vc) {
        fprintf(stderr, "rec_writer: %s\n", ctx.errmsg);
        return 1;
    }
    for (s = 0; s < 200000; s++) {
        long step = s / 67;
        int32_t i = (int32_t)((s * 31) % 3000);
        if (nrt_rec_spike(sn, step, i) != NRT_OK || nrt_rec_spike(sc, step, i) != NRT_OK) {
            fprintf(stderr, "rec_writer: %s\n", ctx.errmsg);
            return 1;
        }
        ctx.pops[0].spikes++;
    }
    for (s = 0; s < 3000; s++) {
        if (!nrt_rec_due(vn, s))
            continue;
        for (v = 0; v < 2; v++)
            for (k = 0; k < 3; k++)
                vals[v * 3 + k] = v == 0 ? -65.0 + 0.5 * (double)s + k : (double)s / 1024.0 + k;
        if (nrt_rec_state_row(vn, s, vals) != NRT_OK || nrt_rec_state_row(vc, s, vals) != NRT_OK) {
            fprintf(stderr, "rec_writer: %s\n", ctx.errmsg);
            return 1;
        }
    }
    ctx.step = 3000;
    if (nrt_finish(&ctx) != NRT_OK) {
        fprintf(stderr, "rec_writer: %s\n", ctx.errmsg);
        return 1;
    }
    return 0;
}
