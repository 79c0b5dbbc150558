/* test_gpu_fakecuda.c -- rt_cuda.c's loader against a fake libcuda.so.1 (fake_cuda.c, on
 * LD_LIBRARY_PATH): nrt_gpu_count, nrt_gpu_list and nrt_gpu_open all fail with NRT_EDEVICE
 * and the message given as argv[1] (exactly), and nothing is left loaded. */
#include "nrt_gpu.h"
#include "tcheck.h"

#include <string.h>

int main(int argc, char **argv)
{
    nrt_ctx c;
    nrt_gpu *g = NULL;
    if (argc < 2)
        return 2;
    memset(&c, 0, sizeof c);
    CHECK(nrt_gpu_count(&c, NRT_API_CUDA) == 0);
    CHECKF(strcmp(c.errmsg, argv[1]) == 0, "'%s'", c.errmsg);
    c.errmsg[0] = '\0';
    CHECK(nrt_gpu_list(&c, NRT_API_CUDA) == NRT_EDEVICE);
    CHECKF(strcmp(c.errmsg, argv[1]) == 0, "'%s'", c.errmsg);
    c.errmsg[0] = '\0';
    CHECK(nrt_gpu_open(&c, NRT_API_CUDA, &g) == NRT_EDEVICE && g == NULL);
    CHECKF(strcmp(c.errmsg, argv[1]) == 0, "'%s'", c.errmsg);
    return tcheck_done("test_gpu_fakecuda");
}
