//go:build amd64 && !purego

#include "textflag.h"

// func choquetAVX512(out *float64, q *float64, mu *float64, m int, net *int32, ncmp int, r *float64, stride int, n int, y *float64)
//
// n is a multiple of 32: four groups of 8 references, interleaved as in owaAVX512. The
// scratch y holds the diffs' rows (256 bytes per attribute) and, 8192 bytes further, each
// diff's attribute bit, which follows its diff through the comparators (VCMPPD gives the
// lanes where the pair is out of order, VPBLENDMQ swaps their bits). The sum walks the
// sorted rows with the set A_(k) of each lane as a mask (all m bits first, then each
// row's bit removed) and gathers μ(A_(k)) for the eight lanes.
TEXT ·choquetAVX512(SB), NOSPLIT, $0-80
	MOVQ out+0(FP), DI
	MOVQ q+8(FP), SI
	MOVQ mu+16(FP), R8
	MOVQ m+24(FP), R9
	MOVQ net+32(FP), R10
	MOVQ ncmp+40(FP), R11
	MOVQ r+48(FP), R12
	MOVQ stride+56(FP), R13
	SHLQ $3, R13 // stride in bytes
	MOVQ n+64(FP), R14
	MOVQ y+72(FP), R15
	XORQ DX, DX // reference offset j in elements

group:
	CMPQ DX, R14
	JGE  done

	// y[k] = (q_k − r[k*stride + j : +32])², bit[k] = 1 << k
	LEAQ (R12)(DX*8), AX
	XORQ CX, CX
	MOVQ R15, BX

diffs:
	CMPQ         CX, R9
	JGE          sortstart
	VBROADCASTSD (SI)(CX*8), Z8
	VMOVUPD      (AX), Z0
	VMOVUPD      64(AX), Z1
	VMOVUPD      128(AX), Z2
	VMOVUPD      192(AX), Z3
	VSUBPD       Z0, Z8, Z0
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
	MOVQ         $1, R11
	SHLQ         CX, R11
	VPBROADCASTQ R11, Z9
	VMOVDQU64    Z9, 8192(BX)
	VMOVDQU64    Z9, 8256(BX)
	VMOVDQU64    Z9, 8320(BX)
	VMOVDQU64    Z9, 8384(BX)
	ADDQ         R13, AX
	ADDQ         $256, BX
	INCQ         CX
	JMP          diffs

sortstart:
	MOVQ ncmp+40(FP), R11 // R11 was scratch in the diffs loop
	XORQ CX, CX

sort:
	CMPQ    CX, R11
	JGE     sumstart
	MOVLQSX (R10)(CX*8), AX // comparator c: rows a = net[2c] (gets the min), b = net[2c+1]
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
	VCMPPD  $0x1e, Z4, Z0, K1 // K = a > b (GT_OQ): the lanes to swap
	VCMPPD  $0x1e, Z5, Z1, K2
	VCMPPD  $0x1e, Z6, Z2, K3
	VCMPPD  $0x1e, Z7, Z3, K4
	VMINPD  Z4, Z0, Z8
	VMINPD  Z5, Z1, Z9
	VMINPD  Z6, Z2, Z10
	VMINPD  Z7, Z3, Z11
	VMAXPD  Z4, Z0, Z12
	VMAXPD  Z5, Z1, Z13
	VMAXPD  Z6, Z2, Z14
	VMAXPD  Z7, Z3, Z15
	VMOVUPD Z8, (AX)
	VMOVUPD Z9, 64(AX)
	VMOVUPD Z10, 128(AX)
	VMOVUPD Z11, 192(AX)
	VMOVUPD Z12, (BX)
	VMOVUPD Z13, 64(BX)
	VMOVUPD Z14, 128(BX)
	VMOVUPD Z15, 192(BX)

	// the bits: a' = K ? b : a, b' = K ? a : b
	VMOVDQU64 8192(AX), Z0
	VMOVDQU64 8256(AX), Z1
	VMOVDQU64 8320(AX), Z2
	VMOVDQU64 8384(AX), Z3
	VMOVDQU64 8192(BX), Z4
	VMOVDQU64 8256(BX), Z5
	VMOVDQU64 8320(BX), Z6
	VMOVDQU64 8384(BX), Z7
	VPBLENDMQ Z4, Z0, K1, Z8
	VPBLENDMQ Z5, Z1, K2, Z9
	VPBLENDMQ Z6, Z2, K3, Z10
	VPBLENDMQ Z7, Z3, K4, Z11
	VPBLENDMQ Z0, Z4, K1, Z12
	VPBLENDMQ Z1, Z5, K2, Z13
	VPBLENDMQ Z2, Z6, K3, Z14
	VPBLENDMQ Z3, Z7, K4, Z15
	VMOVDQU64 Z8, 8192(AX)
	VMOVDQU64 Z9, 8256(AX)
	VMOVDQU64 Z10, 8320(AX)
	VMOVDQU64 Z11, 8384(AX)
	VMOVDQU64 Z12, 8192(BX)
	VMOVDQU64 Z13, 8256(BX)
	VMOVDQU64 Z14, 8320(BX)
	VMOVDQU64 Z15, 8384(BX)
	INCQ      CX
	JMP       sort

sumstart:
	// s (Z0–Z3) = 0, prev (Z4–Z7) = 0, sets (Z16–Z19) = all m bits
	VXORPD       Z0, Z0, Z0
	VXORPD       Z1, Z1, Z1
	VXORPD       Z2, Z2, Z2
	VXORPD       Z3, Z3, Z3
	VXORPD       Z4, Z4, Z4
	VXORPD       Z5, Z5, Z5
	VXORPD       Z6, Z6, Z6
	VXORPD       Z7, Z7, Z7
	MOVQ         $1, AX
	MOVQ         R9, CX
	SHLQ         CX, AX
	DECQ         AX
	VPBROADCASTQ AX, Z16
	VMOVDQA64    Z16, Z17
	VMOVDQA64    Z16, Z18
	VMOVDQA64    Z16, Z19
	XORQ         CX, CX
	MOVQ         R15, BX

sum:
	CMPQ       CX, R9
	JGE        store
	VMOVUPD    (BX), Z8 // v = x_(k)
	VMOVUPD    64(BX), Z9
	VMOVUPD    128(BX), Z10
	VMOVUPD    192(BX), Z11
	KXNORW     K1, K1, K1
	KXNORW     K2, K2, K2
	KXNORW     K3, K3, K3
	KXNORW     K4, K4, K4
	VGATHERQPD (R8)(Z16*8), K1, Z20 // μ(A_(k))
	VGATHERQPD (R8)(Z17*8), K2, Z21
	VGATHERQPD (R8)(Z18*8), K3, Z22
	VGATHERQPD (R8)(Z19*8), K4, Z23
	VSUBPD     Z4, Z8, Z12 // v − prev
	VSUBPD     Z5, Z9, Z13
	VSUBPD     Z6, Z10, Z14
	VSUBPD     Z7, Z11, Z15
	VMULPD     Z20, Z12, Z12
	VMULPD     Z21, Z13, Z13
	VMULPD     Z22, Z14, Z14
	VMULPD     Z23, Z15, Z15
	VADDPD     Z12, Z0, Z0
	VADDPD     Z13, Z1, Z1
	VADDPD     Z14, Z2, Z2
	VADDPD     Z15, Z3, Z3
	VMOVAPD    Z8, Z4 // prev = v
	VMOVAPD    Z9, Z5
	VMOVAPD    Z10, Z6
	VMOVAPD    Z11, Z7
	VMOVDQU64  8192(BX), Z24 // the bits of the attributes (k)
	VMOVDQU64  8256(BX), Z25
	VMOVDQU64  8320(BX), Z26
	VMOVDQU64  8384(BX), Z27
	VPANDNQ    Z16, Z24, Z16 // A_(k+1) = A_(k) \ {(k)}: ¬bits ∧ A
	VPANDNQ    Z17, Z25, Z17
	VPANDNQ    Z18, Z26, Z18
	VPANDNQ    Z19, Z27, Z19
	ADDQ       $256, BX
	INCQ       CX
	JMP        sum

store:
	VMOVUPD Z0, (DI)(DX*8)
	VMOVUPD Z1, 64(DI)(DX*8)
	VMOVUPD Z2, 128(DI)(DX*8)
	VMOVUPD Z3, 192(DI)(DX*8)
	ADDQ    $32, DX
	JMP     group

done:
	VZEROUPPER
	RET
