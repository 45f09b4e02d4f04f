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
// 	return 1;
// }
// static int reid_blas_threads(void) {
// 	int (*get)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "openblas_get_num_threads");
// 	return get ? get() : -1;
// }
import "C"

// init makes OpenBLAS, when it is the LAPACK under CLP, run on the calling thread only.
// Its pthreads build otherwise keeps one worker per core spinning (sched_yield) after
// each call of CoinUtils' dense factorisation: measured on a 60-second bilinear search
// on 1,080 records, 17 s of a second core's CPU time for nothing, which two searches
// side by side, or the pairwise core beside a search, then compete with. The LPs are
// far too small for threaded BLAS to help. It changes no result.
func init() { C.reid_blas_serial() }

// blasThreads reports OpenBLAS's thread count, or −1 when CLP's LAPACK is not OpenBLAS.
func blasThreads() int { return int(C.reid_blas_threads()) }
