#!/bin/sh
# plan.sh NEUROC EXAMPLES WORKDIR: what the GPU device programs hold, read from --emit-only
# (no GPU or nvcc needed): the block and cluster schedules' shared-memory plans (simt.c)
# within each target's budget, the cluster schedule's push step (simt_push.c), one-weight
# projections delivered with atomic adds, which programs carry nc_k_block and nc_k_persistent
# (block_fits), and the schedule `auto` picks.
set -u
NEUROC=$1; EX=$2; WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK" || exit 2
fails=0
ok() { echo "ok   $1"; }
bad() { echo "FAIL $1"; fails=$((fails + 1)); }
emit() {   # emit NAME MODEL FLAGS...: the device program in $WORK/NAME
    n=$1; m=$2; shift 2
    "$NEUROC" "$m" --emit-only "$WORK/$n" "$@" >/dev/null 2>"$WORK/$n.err" || { bad "$n: neuroc failed: $(cat "$WORK/$n.err")"; return 1; }
}
resident() {   # resident FILE: the bytes the block kernel keeps in shared memory (0: none)
    sed -n 's|.*/\* \([0-9]*\) bytes of buffers resident in shared memory.*|\1|p' "$1" | head -n 1 | grep . || echo 0
}

# CUBA on sm_90: the network's state, rings and spike lists in shared memory, 211 KiB at most
emit cuba90 "$EX/cuba.neuro" --backend cuda --gpu-arch sm_90 && {
    f=$WORK/cuba90/cuba.cu; b=$(resident "$f")
    [ "$b" -gt 100000 ] && [ "$b" -le $((211 * 1024)) ] && ok "cuba sm_90: $b bytes resident" || bad "cuba sm_90: $b bytes resident"
    for buf in pop_P_V prj_Ce_ring prj_Ci_ring pop_P_spk pop_P_fm nc_cnt; do
        grep -q "^ *real \*const $buf = \|^ *int32_t \*const $buf = \|^ *uint32_t \*const $buf = " "$f" && ok "cuba sm_90: $buf resident" || bad "cuba sm_90: $buf not resident"
    done
    grep -q "the one-weight projections from P: 128 work-items per (spike, projection) of the spike's segment, atomic adds" "$f" &&
        ok "cuba: Ce and Ci delivered order-free, fused" || bad "cuba: Ce and Ci not order-free"
    grep -q "nc_k_block(" "$f" && grep -q "nc_k_persistent(" "$f" && grep -q "nc_k_cluster(" "$f" &&
        ok "cuba: block, persistent and cluster kernels" || bad "cuba: a schedule kernel is missing"
    grep -q "nc_st_async4(&nc_xw" "$f" && grep -q "static __shared__ __align__(16) uint32_t nc_xw\[512\];" "$f" &&
        ok "cuba: the cluster kernel exchanges 125 spike words by asynchronous stores, two steps' worth" || bad "cuba: no spike-word exchange"
    # the cluster kernel's own plan (plan_resident_cluster, emit_own_tables)
    grep -q "real \*const pop_P_V = (real \*)(nc_res + nc_o_pop_P_V) - nc_slo0;" "$f" &&
        ok "cuba cluster: P.V resident as the group's slice" || bad "cuba cluster: P.V not a slice"
    grep -q "nc_otab\[0\] = at, nc_otab\[1\] = cat;" "$f" && grep -q "nc_otab\[2\] = at, nc_otab\[3\] = cat;" "$f" &&
        grep -q "const uint16_t \*const ocol = (const uint16_t \*)(nc_dyn + nc_otab\[1\]);" "$f" &&
        ok "cuba cluster: Ce and Ci own synapses in shared memory, read by the delivery" || bad "cuba cluster: no own synapse tables"
    grep -q "if (nc_oc\[0\] == 1u && nc_oc\[1\] == nc_t0)" "$f" && grep -q "nc_oc\[0\] = 1u, nc_oc\[1\] = nc_t0, nc_oc\[2\] = nc_at;" "$f" &&
        ok "cuba cluster: the tables kept between launches (nc_otc)" || bad "cuba cluster: tables rebuilt every launch"
    # the states recorded by the other warps before the first warp's wait and compaction
    sed -n '/nc_k_cluster(NC_ARGS/,/while (step < step0 + nsteps)/p' "$f" | grep -A1 "nc_tail(NC_PASS, step, hf, 1, NC_GROUP, NC_NGROUPS, c0, every, 2, NC_LSIZE > 32 ? 32 : 0);" |
        grep -q "nc_exchange_pop_P_cluster(NC_PASS, step, hf);" &&
        ok "cuba cluster: states recorded while the words come" || bad "cuba cluster: the tail is not split"
    # whole-population spike records placed by rank, in the block and the cluster compactions
    [ "$(grep -c "rec0_ids\[(int64_t)hf \* 4000000 + nc_rb0 + nc_k\] = (int32_t)n;" "$f")" = 2 ] &&
        ok "cuba: spikes recorded by rank in both compactions" || bad "cuba: spike records by atomics in a compaction"
    # a stalled exchange: the step stops, the launch leaves no trace, the host goes on in block
    grep -q "nc_mbar_wait(.*) || (NC_GROUP == 0 && step == nc_inj)) nc_halt = step + 1;" "$f" &&
        sed -n '/nc_k_cluster(NC_ARGS/,/while (step < step0 + nsteps)/p' "$f" | grep -q "if (nc_halt) break;" &&
        grep -q "if (nc_ctl\[4\]) return;" "$f" &&
        grep -q "if (NC_GID == 0) nc_ctl\[4\] = nc_stall;" "$f" &&
        ok "cuba cluster: a stalled exchange stops the launch" || bad "cuba cluster: no stall watchdog"
    grep -q "the run goes on in the block schedule" "$WORK/cuba90/cuba.c" && grep -q "launch_chunk(pending, pending_step0, pending_len)" "$WORK/cuba90/cuba.c" &&
        ok "cuba cluster: the host redoes a stalled chunk in block" || bad "cuba cluster: no fallback after a stall"
    # the push step (simt_push.c): one-weight rings of their own, so CUBA has it
    p=$(sed -n '/nc_k_push(NC_ARGS/,/while (step < step0 + nsteps)/p' "$f" | sed -n '/int64_t step = step0;/,$p')
    echo "$p" | grep -q "nc_red_async1(dst + (e_\[u\] & 0xffffu), (int)(e_\[u\] >> 16), nc_bar);" &&
        echo "$p" | grep -q "if (nc_lane < (int)NC_NGROUPS) nc_arrive_remote(nc_bar, nc_lane, 4u \* (uint32_t)nc_myc);" &&
        grep -q "mbarrier.arrive.expect_tx.relaxed.cluster.shared::cluster.b64" "$f" &&
        ok "cuba push: spikes added into the targets' groups, one relaxed arrival per warp and group" || bad "cuba push: no pushes or arrivals"
    ! echo "$p" | grep -q "NC_BARRIER()\|__syncthreads" && echo "$p" | grep -c "nc_mbar_wait(" | grep -q "^1$" &&
        ok "cuba push: no barrier in the step, one wait" || bad "cuba push: a barrier or more than one wait in the step"
    echo "$p" | grep -q "l_x_0 = nc_kc0 > 0 ? a_ : l_x_0;" && echo "$p" | grep -q "for (uint32_t k_ = nc_kc0; k_ > 2; k_--) l_x_0 = l_x_0 + 16.2f;" &&
        echo "$p" | grep -q "dst\[0 + nc_rq1\] = (double)nc_h_pop_P_V;" && grep -q "^ *real nc_scal\[12\];" "$f" &&
        ok "cuba push: counts added as C adds the weight, states recorded by their owners, scalars in registers" || bad "cuba push: the update is not the push step's"
    grep -q "static int push_tables(void)" "$WORK/cuba90/cuba.c" && grep -q "NEUROC_CLUSTER_STEP" "$WORK/cuba90/cuba.c" &&
        grep -q "if (nc_ctl\[4\]) return;" "$f" && grep -q "nc_k_fwrite(" "$f" &&
        ok "cuba push: tables checked by the host, spike words recorded by the free schedule's kernels" || bad "cuba push: no host side"
}
# per-synapse delays: no push step (its counts are for a two-slot ring of one weight)
emit zoo90 "$(dirname "$0")/models/zoo.neuro" --backend cuda --gpu-arch sm_90 && {
    grep -q "nc_k_cluster(" "$WORK/zoo90/zoo.cu" && ! grep -q "nc_k_push(" "$WORK/zoo90/zoo.cu" &&
        ok "zoo: the word step only" || bad "zoo: a push step, or no cluster kernel"
}
# sm_75 (64 KiB): less fits, and never more than the budget
emit cuba75 "$EX/cuba.neuro" --backend cuda --gpu-arch sm_75 && {
    b=$(resident "$WORK/cuba75/cuba.cu")
    [ "$b" -gt 0 ] && [ "$b" -le $((48 * 1024)) ] && ok "cuba sm_75: $b bytes resident" || bad "cuba sm_75: $b bytes resident"
    ! grep -q "nc_k_cluster(" "$WORK/cuba75/cuba.cu" && ok "cuba sm_75: no cluster kernel" || bad "cuba sm_75: a cluster kernel"
}
# OpenCL: no residency (its phases take __global pointers)
emit cubacl "$EX/cuba.neuro" --backend opencl && {
    [ "$(resident "$WORK/cubacl/cuba.cl")" = 0 ] && ok "cuba opencl: nothing resident" || bad "cuba opencl: resident buffers"
}
# the microcircuit: graph; no block or persistent kernel in its CUDA program unless asked for
emit mc "$EX/microcircuit.neuro" --backend cuda --gpu-arch sm_90 && {
    f=$WORK/mc/microcircuit.cu
    ! grep -q "nc_k_block(\|nc_k_persistent(" "$f" && ok "microcircuit: no block or persistent kernel" || bad "microcircuit: carries block or persistent"
    grep -q "this simulator has no %s schedule" "$WORK/mc/microcircuit.c" && ok "microcircuit: the host refuses them" || bad "microcircuit: no refusal"
}
emit mcb "$EX/microcircuit.neuro" --backend cuda --gpu-arch sm_90 --gpu-mode persistent && {
    grep -q "nc_k_persistent(" "$WORK/mcb/microcircuit.cu" && ok "microcircuit --gpu-mode persistent: its kernel" || bad "microcircuit --gpu-mode persistent: no kernel"
}
emit mccl "$EX/microcircuit.neuro" --backend opencl && {
    grep -q "nc_k_block(" "$WORK/mccl/microcircuit.cl" && ok "microcircuit opencl: keeps nc_k_block" || bad "microcircuit opencl: no nc_k_block"
}
# auto: free for a small batch without projections, graph for a large one, block for CUBA
for c in "hh_batch.neuro|free|sm_90" "cuba.neuro|cluster|sm_90" "cuba.neuro|block|sm_80" "stdp_song.neuro|block|sm_90" "microcircuit.neuro|graph|sm_90"; do
    m=${c%%|*}; want=$(echo "$c" | cut -d'|' -f2); arch=$(echo "$c" | cut -d'|' -f3)
    got=$("$NEUROC" "$EX/$m" --backend cuda --gpu-arch "$arch" --explain 2>/dev/null | sed -n 's/^schedule: \([a-z]*\) .*/\1/p')
    [ "$got" = "$want" ] && ok "auto schedule of $m ($arch): $got" || bad "auto schedule of $m ($arch): $got, want $want"
done
sed 's/^const scale = 1$/const scale = 10/' "$EX/hh_batch.neuro" >"$WORK/hh_big.neuro"
got=$("$NEUROC" "$WORK/hh_big.neuro" -I "$EX/.." --backend cuda --explain 2>/dev/null | sed -n 's/^schedule: \([a-z]*\) .*/\1/p')
[ "$got" = graph ] && ok "auto schedule of 10^5 HH neurons: graph" || bad "auto schedule of 10^5 HH neurons: '$got', want graph"
echo "plan: $fails failed"
[ $fails = 0 ]
