#!/bin/bash
set -u
R=$PWD
SRC=$(sed -n 's/^CMAKE_HOME_DIRECTORY:INTERNAL=//p' build-dev/CMakeCache.txt); mkdir -p $(dirname $SRC); [ -e $SRC ] || ln -s $PWD $SRC
export PATH=/usr/local/cuda/bin:$PATH
mkdir -p /tmp/neuroc-icd && echo libnvidia-opencl.so.1 >/tmp/neuroc-icd/nvidia.icd
export OCL_ICD_VENDORS=/tmp/neuroc-icd OCL_ICD_FILENAMES=libnvidia-opencl.so.1 NEUROC_CACHE=off
B=$R/build-dev
cc -std=c11 -O1 -I$B/include/neuroc devx/fillbig.c $B/lib/libneurort.a -lm -ldl -pthread -o /tmp/fillbig && NEUROC_GPU_SYNC=1 timeout 120 /tmp/fillbig > $OUT/fill.log 2>&1; echo "rc=$?" >> $OUT/fill.log
W=/tmp/wx; mkdir -p $W; cd $W
sed -e 's/^const scale = 1$/const scale = 0.02/' -e 's/^run 1 s$/run 50 ms/' $R/examples/microcircuit.neuro > mc.neuro
$B/bin/neuroc mc.neuro --backend c -o mcc && ./mcc --out oc --quiet
mkdir -p E && $B/bin/neuroc mc.neuro --backend opencl --emit-only E
grep -c NC_UNPACK E/*.cl > $OUT/mc.log
for v in none 128 96 64; do
  cp E/mc.c E/v.c
  [ $v != none ] && sed -i "s/-cl-fp32-correctly-rounded-divide-sqrt\"/-cl-fp32-correctly-rounded-divide-sqrt -cl-nv-maxrregcount=$v\"/" E/v.c
  grep -c "maxrregcount" E/v.c >> $OUT/mc.log
  cc -std=c11 -O2 -w -I$B/include/neuroc -IE E/v.c -lm $B/lib/libneurort.a -lm -ldl -pthread -o mv_$v 2>>$OUT/mc.log
  echo "== $v" >> $OUT/mc.log
  ( time NEUROC_GPU_SYNC=1 timeout 200 ./mv_$v --out o_$v --quiet ) >> $OUT/mc.log 2>&1; echo "rc=$?" >> $OUT/mc.log
  cmp oc/microcircuit_spikes.npy o_$v/microcircuit_spikes.npy >> $OUT/mc.log 2>&1 && echo "same spikes as C" >> $OUT/mc.log
done
