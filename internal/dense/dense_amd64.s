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

// func subDots4(c *float64, n int, v *float64, k int, y *float64, stride int)
//
// For j < n (a multiple of 4), four rows at a time: c[j] -= the dot of
// the k values of v (a multiple of 4) with row j of y (stride values
// apart), each dot's four partial sums (terms 0, 1, 2, 3 mod 4) in the
// lanes of one register (VMULPD, VADDPD), then added as (s0+s2) + (s1+s3):
// the sums of gonum's amd64 DotUnitary.
TEXT ·subDots4(SB), NOSPLIT, $0-48
	MOVQ c+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ v+16(FP), SI
	MOVQ k+24(FP), DX
	MOVQ y+32(FP), R8
	MOVQ stride+40(FP), R9
	SHLQ $3, R9 // a row of y, in bytes

group:
	TESTQ CX, CX
	JZ    done
	MOVQ  R8, R10
	LEAQ  (R10)(R9*1), R11
	LEAQ  (R11)(R9*1), R12
	LEAQ  (R12)(R9*1), R13
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ  AX, AX

terms:
	CMPQ    AX, DX
	JGE     reduce
	VMOVUPD (SI)(AX*8), Y4
	VMULPD  (R10)(AX*8), Y4, Y5
	VADDPD  Y5, Y0, Y0
	VMULPD  (R11)(AX*8), Y4, Y6
	VADDPD  Y6, Y1, Y1
	VMULPD  (R12)(AX*8), Y4, Y7
	VADDPD  Y7, Y2, Y2
	VMULPD  (R13)(AX*8), Y4, Y8
	VADDPD  Y8, Y3, Y3
	ADDQ    $4, AX
	JMP     terms

reduce:
	VEXTRACTF128 $1, Y0, X4
	VADDPD       X4, X0, X0 // s0+s2, s1+s3
	VUNPCKHPD    X0, X0, X4
	VADDSD       X4, X0, X0
	VMOVSD       0(DI), X5
	VSUBSD       X0, X5, X5
	VMOVSD       X5, 0(DI)
	VEXTRACTF128 $1, Y1, X4
	VADDPD       X4, X1, X1
	VUNPCKHPD    X1, X1, X4
	VADDSD       X4, X1, X1
	VMOVSD       8(DI), X5
	VSUBSD       X1, X5, X5
	VMOVSD       X5, 8(DI)
	VEXTRACTF128 $1, Y2, X4
	VADDPD       X4, X2, X2
	VUNPCKHPD    X2, X2, X4
	VADDSD       X4, X2, X2
	VMOVSD       16(DI), X5
	VSUBSD       X2, X5, X5
	VMOVSD       X5, 16(DI)
	VEXTRACTF128 $1, Y3, X4
	VADDPD       X4, X3, X3
	VUNPCKHPD    X3, X3, X4
	VADDSD       X4, X3, X3
	VMOVSD       24(DI), X5
	VSUBSD       X3, X5, X5
	VMOVSD       X5, 24(DI)
	ADDQ         $32, DI
	LEAQ         (R8)(R9*4), R8
	SUBQ         $4, CX
	JMP          group

done:
	VZEROUPPER
	RET
