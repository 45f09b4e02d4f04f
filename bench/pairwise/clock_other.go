//go:build !amd64

package main

func zmmFMALoop(iters int)       { panic("pairwise: no AVX-512 on this architecture") }
func addChainLoop(iters int) int { panic("pairwise: no calibrated loop on this architecture") }

const haveAsm = false
