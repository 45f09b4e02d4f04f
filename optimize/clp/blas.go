package clp

// #define _GNU_SOURCE
// #include <dlfcn.h>
// #cgo LDFLAGS: -ldl
//
// // OpenBLAS's thread control, looked up at run time: CLP reaches BLAS only through
// // CoinUtils' LAPACK, which may be the reference library or OpenBLAS (Debian's
// // alternatives), so these symbols may be absent.
// static int reid_blas_serial(void) {
// 	void (*set)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "openblas_set_num_threads");
// 	if (!set) return 0;
// 	set(1);
// 	int (*stop)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "blas_thread_shutdown_");
// 	if (stop) stop();
// 	return 1;
// }
// static int reid_blas_threads(void) {
// 	int (*get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
// 	return get ? get() : -1;
// }
import "C"

// init makes OpenBLAS, when it is the LAPACK under CLP, run on the calling thread only,
// and stops the worker threads its pthreads build started when it was loaded. Those
// otherwise spin (sched_yield) around CoinUtils' dense factorisation calls: a CPU profile
// of a 60-second bilinear search on 1,080 records showed 17 s of a second core's time in
// them, a 15-second WM search 1.2 s, even after the thread count alone was set to one.
// Two searches side by side, or the pairwise core beside a search, compete for that
// core. The LPs are far too small for threaded BLAS to help; no result changes.
func init() { C.reid_blas_serial() }

// blasThreads reports OpenBLAS's thread count, or −1 when CLP's LAPACK is not OpenBLAS.
func blasThreads() int { return int(C.reid_blas_threads()) }
