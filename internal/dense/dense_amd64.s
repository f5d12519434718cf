//go:build !purego

#include "textflag.h"

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

// func addRowsQuads2(y0, y1 *float64, m int, x *float64, offs *int, c0, c1 *float64, nq int)
//
// addRowsQuads for two rows y0 and y1 with coefficients c0 and c1 and the
// same rows of x: each group of rows of x is loaded once for both.
TEXT ·addRowsQuads2(SB), NOSPLIT, $0-64
	MOVQ y0+0(FP), DI
	MOVQ y1+8(FP), R12
	MOVQ m+16(FP), CX
	MOVQ x+24(FP), SI
	MOVQ offs+32(FP), R14
	MOVQ c0+40(FP), R15
	MOVQ c1+48(FP), R13
	MOVQ nq+56(FP), BX
	MOVQ CX, DX
	ANDQ $-4, DX

q2:
	TESTQ BX, BX
	JZ    q2done
	MOVQ  0(R14), R8
	LEAQ  (SI)(R8*8), R8
	MOVQ  8(R14), R9
	LEAQ  (SI)(R9*8), R9
	MOVQ  16(R14), R10
	LEAQ  (SI)(R10*8), R10
	MOVQ  24(R14), R11
	LEAQ  (SI)(R11*8), R11
	VBROADCASTSD 0(R15), Y8
	VBROADCASTSD 8(R15), Y9
	VBROADCASTSD 16(R15), Y10
	VBROADCASTSD 24(R15), Y11
	VBROADCASTSD 0(R13), Y12
	VBROADCASTSD 8(R13), Y13
	VBROADCASTSD 16(R13), Y14
	VBROADCASTSD 24(R13), Y15
	XORQ AX, AX

q2col:
	CMPQ    AX, DX
	JGE     q2tail
	VMOVUPD (R8)(AX*8), Y4
	VMOVUPD (R9)(AX*8), Y5
	VMOVUPD (R10)(AX*8), Y6
	VMOVUPD (R11)(AX*8), Y7
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD (R12)(AX*8), Y1
	VMULPD  Y4, Y8, Y2
	VADDPD  Y2, Y0, Y0
	VMULPD  Y4, Y12, Y3
	VADDPD  Y3, Y1, Y1
	VMULPD  Y5, Y9, Y2
	VADDPD  Y2, Y0, Y0
	VMULPD  Y5, Y13, Y3
	VADDPD  Y3, Y1, Y1
	VMULPD  Y6, Y10, Y2
	VADDPD  Y2, Y0, Y0
	VMULPD  Y6, Y14, Y3
	VADDPD  Y3, Y1, Y1
	VMULPD  Y7, Y11, Y2
	VADDPD  Y2, Y0, Y0
	VMULPD  Y7, Y15, Y3
	VADDPD  Y3, Y1, Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, (R12)(AX*8)
	ADDQ    $4, AX
	JMP     q2col

q2tail:
	CMPQ   AX, CX
	JGE    q2next
	VMOVSD (R8)(AX*8), X4
	VMOVSD (R9)(AX*8), X5
	VMOVSD (R10)(AX*8), X6
	VMOVSD (R11)(AX*8), X7
	VMOVSD (DI)(AX*8), X0
	VMOVSD (R12)(AX*8), X1
	VMULSD X4, X8, X2
	VADDSD X2, X0, X0
	VMULSD X4, X12, X3
	VADDSD X3, X1, X1
	VMULSD X5, X9, X2
	VADDSD X2, X0, X0
	VMULSD X5, X13, X3
	VADDSD X3, X1, X1
	VMULSD X6, X10, X2
	VADDSD X2, X0, X0
	VMULSD X6, X14, X3
	VADDSD X3, X1, X1
	VMULSD X7, X11, X2
	VADDSD X2, X0, X0
	VMULSD X7, X15, X3
	VADDSD X3, X1, X1
	VMOVSD X0, (DI)(AX*8)
	VMOVSD X1, (R12)(AX*8)
	INCQ   AX
	JMP    q2tail

q2next:
	ADDQ $32, R14
	ADDQ $32, R15
	ADDQ $32, R13
	DECQ BX
	JMP  q2

q2done:
	VZEROUPPER
	RET
