//go:build amd64 && !purego

package kernel

// firstAtMostAVX512 is FirstAtMost with AVX-512F compares of 8 lanes (scan_amd64.s).
//
//go:noescape
func firstAtMostAVX512(x []float64, limit float64) int

// countBetweenAVX512 and firstNotBetweenAVX512 are CountBetween and FirstNotBetween with
// AVX-512F compares of 8 lanes (scan_amd64.s).
//
//go:noescape
func countBetweenAVX512(x []float64, lo, hi float64) int

//go:noescape
func firstNotBetweenAVX512(x []float64, lo, hi, limit float64) int
