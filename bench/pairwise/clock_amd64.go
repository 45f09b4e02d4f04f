//go:build amd64

package main

// zmmFMALoop runs iters × 24 independent zmm VFMADD231PD (clock_amd64.s). It needs AVX-512F.
//
//go:noescape
func zmmFMALoop(iters int)

// addChainLoop runs iters × 8 dependent one-cycle integer operations (clock_amd64.s).
//
//go:noescape
func addChainLoop(iters int) int

const haveAsm = true
