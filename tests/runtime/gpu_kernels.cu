/* gpu_kernels.cu -- the test kernels for nvcc: nrt_simt.h, then gpu_kernels.simt. */
#include "nrt_simt.h"
#include "gpu_kernels.simt"
