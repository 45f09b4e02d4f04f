//go:build amd64 && !purego

#include "textflag.h"

// func firstAtMostAVX512(x []float64, limit float64) int
TEXT ·firstAtMostAVX512(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD limit+24(FP), Z1
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-8, DX // whole vectors

vec:
	CMPQ     AX, DX
	JGE      tail
	VCMPPD   $13, (SI)(AX*8), Z1, K1 // K1 = limit >= x[AX:AX+8] (GE_OS: false for NaN)
	KORTESTW K1, K1
	JNZ      found
	ADDQ     $8, AX
	JMP      vec

found:
	KMOVW   K1, BX
	TZCNTL  BX, BX
	ADDQ    BX, AX
	VZEROUPPER
	MOVQ    AX, ret+32(FP)
	RET

tail:
	CMPQ    AX, CX
	JGE     done
	MOVSD   (SI)(AX*8), X0
	UCOMISD X0, X1 // limit vs x: CF clear when limit >= x and both are ordered
	JCC     done
	INCQ    AX
	JMP     tail

done:
	VZEROUPPER
	MOVQ AX, ret+32(FP)
	RET
