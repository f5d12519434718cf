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
