//go:build amd64

#include "textflag.h"

// func zmmFMALoop(iters int)
// Runs iters × 24 independent VFMADD231PD on zmm registers (no memory operands): 24
// accumulators cover the 4-cycle FMA latency on 2 ports with room to spare, so the loop is
// bound by FMA throughput alone.
TEXT ·zmmFMALoop(SB), NOSPLIT, $0-8
	MOVQ   iters+0(FP), CX
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16
	VPXORQ Z17, Z17, Z17
	VPXORQ Z18, Z18, Z18
	VPXORQ Z19, Z19, Z19
	VPXORQ Z20, Z20, Z20
	VPXORQ Z21, Z21, Z21
	VPXORQ Z22, Z22, Z22
	VPXORQ Z23, Z23, Z23
	VPXORQ Z30, Z30, Z30
	VPXORQ Z31, Z31, Z31
	TESTQ  CX, CX
	JLE    done

loop:
	VFMADD231PD Z30, Z31, Z0
	VFMADD231PD Z30, Z31, Z1
	VFMADD231PD Z30, Z31, Z2
	VFMADD231PD Z30, Z31, Z3
	VFMADD231PD Z30, Z31, Z4
	VFMADD231PD Z30, Z31, Z5
	VFMADD231PD Z30, Z31, Z6
	VFMADD231PD Z30, Z31, Z7
	VFMADD231PD Z30, Z31, Z8
	VFMADD231PD Z30, Z31, Z9
	VFMADD231PD Z30, Z31, Z10
	VFMADD231PD Z30, Z31, Z11
	VFMADD231PD Z30, Z31, Z12
	VFMADD231PD Z30, Z31, Z13
	VFMADD231PD Z30, Z31, Z14
	VFMADD231PD Z30, Z31, Z15
	VFMADD231PD Z30, Z31, Z16
	VFMADD231PD Z30, Z31, Z17
	VFMADD231PD Z30, Z31, Z18
	VFMADD231PD Z30, Z31, Z19
	VFMADD231PD Z30, Z31, Z20
	VFMADD231PD Z30, Z31, Z21
	VFMADD231PD Z30, Z31, Z22
	VFMADD231PD Z30, Z31, Z23
	DECQ        CX
	JNZ         loop

done:
	VZEROUPPER
	RET

// func addChainLoop(iters int) int
// Runs iters × 8 dependent single-cycle integer operations (register ADD/XOR alternating,
// register operands only so that no renamer trick can shorten the chain): 8 cycles per
// iteration, whatever the loop overhead, which executes in parallel.
TEXT ·addChainLoop(SB), NOSPLIT, $0-16
	MOVQ iters+0(FP), CX
	MOVQ $1, AX
	MOVQ $3, BX
	MOVQ $5, DX
	TESTQ CX, CX
	JLE  chaindone

chain:
	ADDQ BX, AX
	XORQ DX, AX
	ADDQ BX, AX
	XORQ DX, AX
	ADDQ BX, AX
	XORQ DX, AX
	ADDQ BX, AX
	XORQ DX, AX
	DECQ CX
	JNZ  chain

chaindone:
	MOVQ AX, ret+8(FP)
	RET
