//go:build !purego

#include "textflag.h"

// AVX2+FMA kernels for products whose rows are 8 wide (a layer of 8
// units). Each output sums its products in the same fixed order as the
// pure-Go kernels (increasing i or r), with fused multiply-adds.

// func cpuid(eaxArg, ecxArg uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL eaxArg+0(FP), AX
	MOVL ecxArg+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET

// func xgetbv() (eax uint32)
TEXT ·xgetbv(SB), NOSPLIT, $0-4
	MOVL $0, CX
	XGETBV
	MOVL AX, eax+0(FP)
	RET

// func mulRows8(y, a, b *float64, n, k int)
// y (n x 8) = a (n x k) b (k x 8); n, k >= 1.
TEXT ·mulRows8(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), R8
	MOVQ k+32(FP), R9

row:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ DX, BX
	MOVQ R9, CX

inner:
	VBROADCASTSD (SI), Y2
	VFMADD231PD  (BX), Y2, Y0
	VFMADD231PD  32(BX), Y2, Y1
	ADDQ         $8, SI
	ADDQ         $64, BX
	DECQ         CX
	JNZ          inner

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	ADDQ    $64, DI
	DECQ    R8
	JNZ     row
	VZEROUPPER
	RET

// func tMulRows8x4(y, a, b *float64, n, k int)
// Rows 0..3 of y (4 x 8) = sum over r of a[r*k+q] b[r*8:r*8+8], q = 0..3;
// a points at the first of the 4 columns, k is its row stride; n >= 1.
TEXT ·tMulRows8x4(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), R9
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7

loop4:
	VMOVUPD      (DX), Y8
	VMOVUPD      32(DX), Y9
	VBROADCASTSD (SI), Y10
	VFMADD231PD  Y8, Y10, Y0
	VFMADD231PD  Y9, Y10, Y1
	VBROADCASTSD 8(SI), Y11
	VFMADD231PD  Y8, Y11, Y2
	VFMADD231PD  Y9, Y11, Y3
	VBROADCASTSD 16(SI), Y12
	VFMADD231PD  Y8, Y12, Y4
	VFMADD231PD  Y9, Y12, Y5
	VBROADCASTSD 24(SI), Y13
	VFMADD231PD  Y8, Y13, Y6
	VFMADD231PD  Y9, Y13, Y7
	ADDQ         R9, SI
	ADDQ         $64, DX
	DECQ         CX
	JNZ          loop4

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	VMOVUPD Y4, 128(DI)
	VMOVUPD Y5, 160(DI)
	VMOVUPD Y6, 192(DI)
	VMOVUPD Y7, 224(DI)
	VZEROUPPER
	RET

// func tMulRows8x1(y, a, b *float64, n, k int)
// y (1 x 8) = sum over r of a[r*k] b[r*8:r*8+8]; n >= 1.
TEXT ·tMulRows8x1(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ n+24(FP), CX
	MOVQ k+32(FP), R9
	SHLQ $3, R9
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1

loop1:
	VBROADCASTSD (SI), Y10
	VFMADD231PD  (DX), Y10, Y0
	VFMADD231PD  32(DX), Y10, Y1
	ADDQ         R9, SI
	ADDQ         $64, DX
	DECQ         CX
	JNZ          loop1

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VZEROUPPER
	RET
