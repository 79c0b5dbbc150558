/* conn_dev.cu -- the device connectivity kernels as CUDA: the headers a GPU program starts with. */
#include "nrt_simt.h"
#include "nrt_math.h"
#include "nrt_philox.h"
#include "nrt_conn_dev.h"
