/* fake_cuda.c -- a stand-in libcuda.so.1 for test_gpu_fakecuda: it has cuDriverGetVersion
 * only, reporting FAKE_VERSION, so the loader of rt_cuda.c meets a driver that is too old
 * (below 12000) or one that lacks the functions it needs. */
int cuDriverGetVersion(int *v);

int cuDriverGetVersion(int *v)
{
    *v = FAKE_VERSION;
    return 0;
}
