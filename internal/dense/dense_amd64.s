//go:build !purego

#include "textflag.h"

// func addRows4(y, x0, x1, x2, x3 *float64, a *[4]float64, n int)
//
// y[c] = (((y[c] + a0 x0[c]) + a1 x1[c]) + a2 x2[c]) + a3 x3[c] for c < n
// (n a multiple of 4), every product rounded before its addition (VMULPD
// then VADDPD, no fused multiply-add): AddRows's sums, 4 columns per YMM.
TEXT ·addRows4(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ x0+8(FP), R8
	MOVQ x1+16(FP), R9
	MOVQ x2+24(FP), R10
	MOVQ x3+32(FP), R11
	MOVQ a+40(FP), AX
	MOVQ n+48(FP), CX
	VBROADCASTSD 0(AX), Y12
	VBROADCASTSD 8(AX), Y13
	VBROADCASTSD 16(AX), Y14
	VBROADCASTSD 24(AX), Y15
	XORQ SI, SI

loop8:
	CMPQ CX, $8
	JL   loop4
	VMOVUPD (DI)(SI*8), Y0
	VMOVUPD 32(DI)(SI*8), Y2
	VMULPD  (R8)(SI*8), Y12, Y1
	VMULPD  32(R8)(SI*8), Y12, Y3
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VMULPD  (R9)(SI*8), Y13, Y1
	VMULPD  32(R9)(SI*8), Y13, Y3
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VMULPD  (R10)(SI*8), Y14, Y1
	VMULPD  32(R10)(SI*8), Y14, Y3
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VMULPD  (R11)(SI*8), Y15, Y1
	VMULPD  32(R11)(SI*8), Y15, Y3
	VADDPD  Y1, Y0, Y0
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y0, (DI)(SI*8)
	VMOVUPD Y2, 32(DI)(SI*8)
	ADDQ    $8, SI
	SUBQ    $8, CX
	JMP     loop8

loop4:
	CMPQ CX, $4
	JL   done
	VMOVUPD (DI)(SI*8), Y0
	VMULPD  (R8)(SI*8), Y12, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R9)(SI*8), Y13, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R10)(SI*8), Y14, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R11)(SI*8), Y15, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)(SI*8)
	ADDQ    $4, SI
	SUBQ    $4, CX
	JMP     loop4

done:
	VZEROUPPER
	RET

// func addRowsQuads(y *float64, m int, x *float64, offs *int, coef *float64, nq int)
//
// For each of nq groups of four terms (offsets offs[4q+k] of the rows x_l
// in x, coefficients coef[4q+k]): addRows4 on the m values of y, the last
// m%4 of them one at a time by the same operations (VMULSD, VADDSD).
TEXT ·addRowsQuads(SB), NOSPLIT, $0-48
	MOVQ y+0(FP), DI
	MOVQ m+8(FP), CX
	MOVQ x+16(FP), SI
	MOVQ offs+24(FP), R14
	MOVQ coef+32(FP), R15
	MOVQ nq+40(FP), BX
	MOVQ CX, DX
	ANDQ $-4, DX

quad:
	TESTQ BX, BX
	JZ    qdone
	MOVQ  0(R14), R8
	LEAQ  (SI)(R8*8), R8
	MOVQ  8(R14), R9
	LEAQ  (SI)(R9*8), R9
	MOVQ  16(R14), R10
	LEAQ  (SI)(R10*8), R10
	MOVQ  24(R14), R11
	LEAQ  (SI)(R11*8), R11
	VBROADCASTSD 0(R15), Y12
	VBROADCASTSD 8(R15), Y13
	VBROADCASTSD 16(R15), Y14
	VBROADCASTSD 24(R15), Y15
	XORQ AX, AX

qcol4:
	CMPQ    AX, DX
	JGE     qtail
	VMOVUPD (DI)(AX*8), Y0
	VMULPD  (R8)(AX*8), Y12, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R9)(AX*8), Y13, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R10)(AX*8), Y14, Y1
	VADDPD  Y1, Y0, Y0
	VMULPD  (R11)(AX*8), Y15, Y1
	VADDPD  Y1, Y0, Y0
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ    $4, AX
	JMP     qcol4

qtail:
	CMPQ   AX, CX
	JGE    qnext
	VMOVSD (DI)(AX*8), X0
	VMULSD (R8)(AX*8), X12, X1
	VADDSD X1, X0, X0
	VMULSD (R9)(AX*8), X13, X1
	VADDSD X1, X0, X0
	VMULSD (R10)(AX*8), X14, X1
	VADDSD X1, X0, X0
	VMULSD (R11)(AX*8), X15, X1
	VADDSD X1, X0, X0
	VMOVSD X0, (DI)(AX*8)
	INCQ   AX
	JMP    qtail

qnext:
	ADDQ $32, R14
	ADDQ $32, R15
	DECQ BX
	JMP  quad

qdone:
	VZEROUPPER
	RET
