//go:build amd64 && !purego

#include "textflag.h"

// func firstAtMostAVX512(x []float64, limit float64) int
TEXT ·firstAtMostAVX512(SB), NOSPLIT, $0-40
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD limit+24(FP), Z1
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-32, DX // whole groups of 4 vectors

vec4:
	CMPQ     AX, DX
	JGE      vec1start
	VCMPPD   $13, (SI)(AX*8), Z1, K1 // K1 = limit >= x[AX:AX+8] (GE_OS: false for NaN)
	VCMPPD   $13, 64(SI)(AX*8), Z1, K2
	VCMPPD   $13, 128(SI)(AX*8), Z1, K3
	VCMPPD   $13, 192(SI)(AX*8), Z1, K4
	KORW     K1, K2, K5
	KORW     K3, K4, K6
	KORTESTW K5, K6
	JNZ      vec1 // a hit in this group: find it vector by vector
	ADDQ     $32, AX
	JMP      vec4

vec1start:
	MOVQ CX, DX
	ANDQ $-8, DX // whole vectors

vec1:
	CMPQ     AX, DX
	JGE      tail
	VCMPPD   $13, (SI)(AX*8), Z1, K1
	KORTESTW K1, K1
	JNZ      found
	ADDQ     $8, AX
	JMP      vec1

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

// func countBetweenAVX512(x []float64, lo, hi float64) int
TEXT ·countBetweenAVX512(SB), NOSPLIT, $0-48
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD lo+24(FP), Z1
	VBROADCASTSD hi+32(FP), Z2
	XORQ         AX, AX // index
	XORQ         R8, R8 // count
	MOVQ         CX, DX
	ANDQ         $-8, DX

cvec:
	CMPQ     AX, DX
	JGE      ctail
	VMOVUPD  (SI)(AX*8), Z0
	VCMPPD   $1, Z0, Z1, K1  // K1 = lo < x (LT_OS)
	VCMPPD   $1, Z2, Z0, K1, K2 // K2 = K1 & (x < hi)
	KMOVW    K2, BX
	POPCNTL  BX, BX
	ADDQ     BX, R8
	ADDQ     $8, AX
	JMP      cvec

ctail:
	CMPQ    AX, CX
	JGE     cdone
	MOVSD   (SI)(AX*8), X0
	UCOMISD X1, X0 // x vs lo: CF clear and ZF clear when x > lo
	JLS     cnext
	UCOMISD X0, X2 // hi vs x
	JLS     cnext
	INCQ    R8

cnext:
	INCQ AX
	JMP  ctail

cdone:
	VZEROUPPER
	MOVQ R8, ret+40(FP)
	RET

// func firstNotBetweenAVX512(x []float64, lo, hi, limit float64) int
TEXT ·firstNotBetweenAVX512(SB), NOSPLIT, $0-56
	MOVQ         x_base+0(FP), SI
	MOVQ         x_len+8(FP), CX
	VBROADCASTSD lo+24(FP), Z1
	VBROADCASTSD hi+32(FP), Z2
	VBROADCASTSD limit+40(FP), Z3
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-8, DX

fvec:
	CMPQ     AX, DX
	JGE      ftail
	VMOVUPD  (SI)(AX*8), Z0
	VCMPPD   $13, Z0, Z3, K1    // K1 = limit >= x
	VCMPPD   $1, Z0, Z1, K2     // K2 = lo < x
	VCMPPD   $1, Z2, Z0, K2, K2 // K2 = K2 & (x < hi): in the band
	KANDNW   K1, K2, K3         // K3 = ~K2 & K1
	KORTESTW K3, K3
	JNZ      ffound
	ADDQ     $8, AX
	JMP      fvec

ffound:
	KMOVW  K3, BX
	TZCNTL BX, BX
	ADDQ   BX, AX
	VZEROUPPER
	MOVQ   AX, ret+48(FP)
	RET

ftail:
	CMPQ    AX, CX
	JGE     fdone
	MOVSD   (SI)(AX*8), X0
	UCOMISD X0, X3 // limit vs x
	JCS     fnext  // limit < x, or unordered
	UCOMISD X1, X0 // x vs lo
	JLS     fdone  // x <= lo: outside the band
	UCOMISD X0, X2 // hi vs x
	JLS     fdone  // hi <= x: outside the band
fnext:
	INCQ AX
	JMP  ftail

fdone:
	VZEROUPPER
	MOVQ AX, ret+48(FP)
	RET
