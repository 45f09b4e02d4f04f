//go:build amd64 && !purego

package kernel

// firstAtMostAVX512 is FirstAtMost with AVX-512F compares of 8 lanes (scan_amd64.s).
//
//go:noescape
func firstAtMostAVX512(x []float64, limit float64) int
