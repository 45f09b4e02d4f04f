//go:build amd64 && !purego

#include "textflag.h"

// func owaAVX512(out *float64, q *float64, w *float64, m int, net *int32, ncmp int, r *float64, stride int, n int, y *float64)
//
// The references go in groups of 8, one group per zmm lane set: y[k] = (q_k − r_k)², the
// comparators of net applied to whole rows (VMAXPD/VMINPD sort the eight lanes at once),
// then out = Σ_k w_k·y[k] from zero, one rounding per product and per addition (VMULPD
// then VADDPD, as the scalar form). The scratch rows live in y (256 bytes per attribute).
// Four groups are interleaved while 32 references remain: a comparator reads the rows the
// previous one wrote, so one group alone waits on store-to-load forwarding, four hide it.
TEXT ·owaAVX512(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ w+16(FP), R8
	MOVQ m+24(FP), R9
	MOVQ net+32(FP), R10
	MOVQ ncmp+40(FP), R11
	MOVQ r+48(FP), R12
	MOVQ stride+56(FP), R13
	SHLQ $3, R13 // stride in bytes
	MOVQ n+64(FP), R14
	MOVQ y+72(FP), R15
	XORQ DX, DX // reference offset j in elements

group4:
	LEAQ 32(DX), AX
	CMPQ AX, R14
	JG   group1

	// y[k] = (q_k − r[k*stride + j : +32])², four vectors per row
	LEAQ (R12)(DX*8), AX // &r[j]
	XORQ CX, CX
	MOVQ R15, BX

diffs4:
	CMPQ         CX, R9
	JGE          sort4start
	VBROADCASTSD (SI)(CX*8), Z8
	VMOVUPD      (AX), Z0
	VMOVUPD      64(AX), Z1
	VMOVUPD      128(AX), Z2
	VMOVUPD      192(AX), Z3
	VSUBPD       Z0, Z8, Z0 // q_k − r
	VSUBPD       Z1, Z8, Z1
	VSUBPD       Z2, Z8, Z2
	VSUBPD       Z3, Z8, Z3
	VMULPD       Z0, Z0, Z0
	VMULPD       Z1, Z1, Z1
	VMULPD       Z2, Z2, Z2
	VMULPD       Z3, Z3, Z3
	VMOVUPD      Z0, (BX)
	VMOVUPD      Z1, 64(BX)
	VMOVUPD      Z2, 128(BX)
	VMOVUPD      Z3, 192(BX)
	ADDQ         R13, AX
	ADDQ         $256, BX
	INCQ         CX
	JMP          diffs4

sort4start:
	XORQ CX, CX

sort4:
	CMPQ    CX, R11
	JGE     sum4start
	MOVLQSX (R10)(CX*8), AX // comparator c: rows a = net[2c], b = net[2c+1]
	MOVLQSX 4(R10)(CX*8), BX
	SHLQ    $8, AX
	SHLQ    $8, BX
	ADDQ    R15, AX
	ADDQ    R15, BX
	VMOVUPD (AX), Z0
	VMOVUPD 64(AX), Z1
	VMOVUPD 128(AX), Z2
	VMOVUPD 192(AX), Z3
	VMOVUPD (BX), Z4
	VMOVUPD 64(BX), Z5
	VMOVUPD 128(BX), Z6
	VMOVUPD 192(BX), Z7
	VMAXPD  Z4, Z0, Z8
	VMAXPD  Z5, Z1, Z9
	VMAXPD  Z6, Z2, Z10
	VMAXPD  Z7, Z3, Z11
	VMINPD  Z4, Z0, Z12
	VMINPD  Z5, Z1, Z13
	VMINPD  Z6, Z2, Z14
	VMINPD  Z7, Z3, Z15
	VMOVUPD Z8, (AX)
	VMOVUPD Z9, 64(AX)
	VMOVUPD Z10, 128(AX)
	VMOVUPD Z11, 192(AX)
	VMOVUPD Z12, (BX)
	VMOVUPD Z13, 64(BX)
	VMOVUPD Z14, 128(BX)
	VMOVUPD Z15, 192(BX)
	INCQ    CX
	JMP     sort4

sum4start:
	VXORPD Z4, Z4, Z4
	VXORPD Z5, Z5, Z5
	VXORPD Z6, Z6, Z6
	VXORPD Z7, Z7, Z7
	XORQ   CX, CX
	MOVQ   R15, BX

sum4:
	CMPQ         CX, R9
	JGE          store4
	VBROADCASTSD (R8)(CX*8), Z8
	VMULPD       (BX), Z8, Z0
	VMULPD       64(BX), Z8, Z1
	VMULPD       128(BX), Z8, Z2
	VMULPD       192(BX), Z8, Z3
	VADDPD       Z0, Z4, Z4
	VADDPD       Z1, Z5, Z5
	VADDPD       Z2, Z6, Z6
	VADDPD       Z3, Z7, Z7
	ADDQ         $256, BX
	INCQ         CX
	JMP          sum4

store4:
	VMOVUPD Z4, (DI)(DX*8)
	VMOVUPD Z5, 64(DI)(DX*8)
	VMOVUPD Z6, 128(DI)(DX*8)
	VMOVUPD Z7, 192(DI)(DX*8)
	ADDQ    $32, DX
	JMP     group4

group1:
	CMPQ DX, R14
	JGE  done

	// the last groups of 8 one at a time
	LEAQ (R12)(DX*8), AX
	XORQ CX, CX
	MOVQ R15, BX

diffs1:
	CMPQ         CX, R9
	JGE          sort1start
	VBROADCASTSD (SI)(CX*8), Z1
	VMOVUPD      (AX), Z0
	VSUBPD       Z0, Z1, Z0
	VMULPD       Z0, Z0, Z0
	VMOVUPD      Z0, (BX)
	ADDQ         R13, AX
	ADDQ         $256, BX
	INCQ         CX
	JMP          diffs1

sort1start:
	XORQ CX, CX

sort1:
	CMPQ    CX, R11
	JGE     sum1start
	MOVLQSX (R10)(CX*8), AX
	MOVLQSX 4(R10)(CX*8), BX
	SHLQ    $8, AX
	SHLQ    $8, BX
	VMOVUPD (R15)(AX*1), Z0
	VMOVUPD (R15)(BX*1), Z1
	VMAXPD  Z1, Z0, Z2
	VMINPD  Z1, Z0, Z3
	VMOVUPD Z2, (R15)(AX*1)
	VMOVUPD Z3, (R15)(BX*1)
	INCQ    CX
	JMP     sort1

sum1start:
	VXORPD Z4, Z4, Z4
	XORQ   CX, CX
	MOVQ   R15, BX

sum1:
	CMPQ         CX, R9
	JGE          store1
	VBROADCASTSD (R8)(CX*8), Z1
	VMULPD       (BX), Z1, Z0
	VADDPD       Z0, Z4, Z4
	ADDQ         $256, BX
	INCQ         CX
	JMP          sum1

store1:
	VMOVUPD Z4, (DI)(DX*8)
	ADDQ    $8, DX
	JMP     group1

done:
	VZEROUPPER
	RET

// func minMaxPeak(n int)
//
// n iterations of 24 independent register-only VMAXPD/VMINPD (benchmarks only): the
// ceiling of the OWA kernel's comparators, which are most of its vector operations.
TEXT ·minMaxPeak(SB), NOSPLIT, $0-8
	MOVQ   n+0(FP), AX
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
	VPXORQ Z24, Z24, Z24
	TESTQ  AX, AX
	JZ     minmaxdone

minmaxloop:
	VMAXPD Z24, Z0, Z0
	VMINPD Z24, Z1, Z1
	VMAXPD Z24, Z2, Z2
	VMINPD Z24, Z3, Z3
	VMAXPD Z24, Z4, Z4
	VMINPD Z24, Z5, Z5
	VMAXPD Z24, Z6, Z6
	VMINPD Z24, Z7, Z7
	VMAXPD Z24, Z8, Z8
	VMINPD Z24, Z9, Z9
	VMAXPD Z24, Z10, Z10
	VMINPD Z24, Z11, Z11
	VMAXPD Z24, Z12, Z12
	VMINPD Z24, Z13, Z13
	VMAXPD Z24, Z14, Z14
	VMINPD Z24, Z15, Z15
	VMAXPD Z24, Z16, Z16
	VMINPD Z24, Z17, Z17
	VMAXPD Z24, Z18, Z18
	VMINPD Z24, Z19, Z19
	VMAXPD Z24, Z20, Z20
	VMINPD Z24, Z21, Z21
	VMAXPD Z24, Z22, Z22
	VMINPD Z24, Z23, Z23
	DECQ   AX
	JNZ    minmaxloop

minmaxdone:
	VZEROUPPER
	RET
