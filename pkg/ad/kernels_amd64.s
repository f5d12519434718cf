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

// Offsets of the constants of tanh8 in tanhK (kernels_amd64.go), 4 copies
// each (one YMM operand), in the order of its list.
#define K_ABS 0
#define K_SIGN 32
#define K_SMALL 64
#define K_CLAMP 96
#define K_MTWO 128
#define K_M2LOG2E 160
#define K_MAGIC 192
#define K_LN2HIH 224
#define K_LN2LOH 256
#define K_ONE 288
#define K_P0 320
#define K_P1 352
#define K_P2 384
#define K_Q0 416
#define K_Q1 448
#define K_Q2 480
#define K_D13 512
#define K_D12 544
#define K_D11 576
#define K_D10 608
#define K_D9 640
#define K_D8 672
#define K_D7 704
#define K_D6 736
#define K_D5 768
#define K_D4 800
#define K_D3 832
#define K_D2 864

// func tanh8(y, a *float64, n int)
// y[i] = tanh(a[i]) for i < n, n a positive multiple of 8; y may be a.
// Two independent blocks of 4 per iteration, interleaved, for latency.
//
// With z = |x|: for z < 0.625, Cephes' rational z + z s P(s)/Q(s), s = z²
// (the one math.Tanh uses); else 1 - 2e/(1+e) with e = exp(-2 min(z, 20)),
// which never overflows and is exactly 1 beyond z = 19.1. Both are computed
// and blended into A + B N/D: one division, no branch. The sign of x is
// copied at the end: tanh(±0) = ±0, tanh(±Inf) = ±1, and tanh(NaN) = NaN
// through A = z.
TEXT ·tanh8(SB), NOSPLIT, $0-24
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ n+16(FP), CX
	SHRQ $3, CX

tanhloop:
	VMOVUPD      (SI), Y0
	VMOVUPD      32(SI), Y7
	VANDPD       ·tanhK+K_ABS(SB), Y0, Y0                   // z = |x|
	VANDPD       ·tanhK+K_ABS(SB), Y7, Y7
	VMINPD       ·tanhK+K_CLAMP(SB), Y0, Y1                 // w = min(z, 20), 20 for NaN
	VMINPD       ·tanhK+K_CLAMP(SB), Y7, Y8
	VMOVUPD      ·tanhK+K_MAGIC(SB), Y2
	VMOVUPD      ·tanhK+K_MAGIC(SB), Y9
	VFMADD231PD  ·tanhK+K_M2LOG2E(SB), Y1, Y2               // t = -2w log2e + 1.5*2^52: k = round(-2w log2e) in the low bits
	VFMADD231PD  ·tanhK+K_M2LOG2E(SB), Y8, Y9
	VSUBPD       ·tanhK+K_MAGIC(SB), Y2, Y3                 // k as a double
	VSUBPD       ·tanhK+K_MAGIC(SB), Y9, Y10
	VPSLLQ       $52, Y2, Y2                                // k << 52, to add to an exponent
	VPSLLQ       $52, Y9, Y9
	VFMADD231PD  ·tanhK+K_LN2HIH(SB), Y3, Y1                // h = w + k ln2hi/2 (exact)
	VFMADD231PD  ·tanhK+K_LN2HIH(SB), Y10, Y8
	VFMADD231PD  ·tanhK+K_LN2LOH(SB), Y3, Y1                // h += k ln2lo/2: -2w = k ln2 - 2h, |h| <= ln2/4
	VFMADD231PD  ·tanhK+K_LN2LOH(SB), Y10, Y8
	VMULPD       Y1, Y1, Y3                                 // e^-2h = sum (-2h)^n/n!, n <= 13 (truncation < 1e-17):
	VMULPD       Y8, Y8, Y10
	VMOVUPD      ·tanhK+K_D12(SB), Y4                       // even and odd terms in h² side by side, for latency
	VMOVUPD      ·tanhK+K_D12(SB), Y11
	VFMADD213PD  ·tanhK+K_D10(SB), Y3, Y4
	VFMADD213PD  ·tanhK+K_D10(SB), Y10, Y11
	VFMADD213PD  ·tanhK+K_D8(SB), Y3, Y4
	VFMADD213PD  ·tanhK+K_D8(SB), Y10, Y11
	VFMADD213PD  ·tanhK+K_D6(SB), Y3, Y4
	VFMADD213PD  ·tanhK+K_D6(SB), Y10, Y11
	VFMADD213PD  ·tanhK+K_D4(SB), Y3, Y4
	VFMADD213PD  ·tanhK+K_D4(SB), Y10, Y11
	VFMADD213PD  ·tanhK+K_D2(SB), Y3, Y4
	VFMADD213PD  ·tanhK+K_D2(SB), Y10, Y11
	VMOVUPD      ·tanhK+K_D13(SB), Y5
	VMOVUPD      ·tanhK+K_D13(SB), Y12
	VFMADD213PD  ·tanhK+K_D11(SB), Y3, Y5
	VFMADD213PD  ·tanhK+K_D11(SB), Y10, Y12
	VFMADD213PD  ·tanhK+K_D9(SB), Y3, Y5
	VFMADD213PD  ·tanhK+K_D9(SB), Y10, Y12
	VFMADD213PD  ·tanhK+K_D7(SB), Y3, Y5
	VFMADD213PD  ·tanhK+K_D7(SB), Y10, Y12
	VFMADD213PD  ·tanhK+K_D5(SB), Y3, Y5
	VFMADD213PD  ·tanhK+K_D5(SB), Y10, Y12
	VFMADD213PD  ·tanhK+K_D3(SB), Y3, Y5
	VFMADD213PD  ·tanhK+K_D3(SB), Y10, Y12
	VFMADD231PD  Y5, Y1, Y4                                 // even + h odd, then 1 + h(-2 + h(...))
	VFMADD231PD  Y12, Y8, Y11
	VFMADD213PD  ·tanhK+K_MTWO(SB), Y1, Y4
	VFMADD213PD  ·tanhK+K_MTWO(SB), Y8, Y11
	VFMADD213PD  ·tanhK+K_ONE(SB), Y1, Y4
	VFMADD213PD  ·tanhK+K_ONE(SB), Y8, Y11
	VPADDQ       Y2, Y4, Y4                                 // e = 2^k e^-2h = exp(-2w), k in [-58, 0]
	VPADDQ       Y9, Y11, Y11
	VADDPD       ·tanhK+K_ONE(SB), Y4, Y5                   // 1 + e
	VADDPD       ·tanhK+K_ONE(SB), Y11, Y12
	VMULPD       Y0, Y0, Y6                                 // s = z²
	VMULPD       Y7, Y7, Y13
	VMOVUPD      ·tanhK+K_P1(SB), Y1
	VMOVUPD      ·tanhK+K_P1(SB), Y8
	VFMADD231PD  ·tanhK+K_P0(SB), Y6, Y1
	VFMADD231PD  ·tanhK+K_P0(SB), Y13, Y8
	VFMADD213PD  ·tanhK+K_P2(SB), Y6, Y1                    // P(s)
	VFMADD213PD  ·tanhK+K_P2(SB), Y13, Y8
	VADDPD       ·tanhK+K_Q0(SB), Y6, Y2
	VADDPD       ·tanhK+K_Q0(SB), Y13, Y9
	VFMADD213PD  ·tanhK+K_Q1(SB), Y6, Y2
	VFMADD213PD  ·tanhK+K_Q1(SB), Y13, Y9
	VFMADD213PD  ·tanhK+K_Q2(SB), Y6, Y2                    // Q(s)
	VFMADD213PD  ·tanhK+K_Q2(SB), Y13, Y9
	VMULPD       Y6, Y0, Y6                                 // z s
	VMULPD       Y13, Y7, Y13
	VCMPPD       $13, ·tanhK+K_SMALL(SB), Y0, Y3            // z >= 0.625 (false for NaN): large
	VCMPPD       $13, ·tanhK+K_SMALL(SB), Y7, Y10
	VBLENDVPD    Y3, Y4, Y1, Y1                             // N = large ? e : P
	VBLENDVPD    Y10, Y11, Y8, Y8
	VBLENDVPD    Y3, Y5, Y2, Y2                             // D = large ? 1+e : Q
	VBLENDVPD    Y10, Y12, Y9, Y9
	VDIVPD       Y2, Y1, Y1
	VDIVPD       Y9, Y8, Y8
	VBLENDVPD    Y3, ·tanhK+K_MTWO(SB), Y6, Y6              // B = large ? -2 : z s
	VBLENDVPD    Y10, ·tanhK+K_MTWO(SB), Y13, Y13
	VBLENDVPD    Y3, ·tanhK+K_ONE(SB), Y0, Y0               // A = large ? 1 : z
	VBLENDVPD    Y10, ·tanhK+K_ONE(SB), Y7, Y7
	VFMADD231PD  Y1, Y6, Y0                                 // tanh z = A + B N/D >= 0
	VFMADD231PD  Y8, Y13, Y7
	VMOVUPD      (SI), Y1
	VMOVUPD      32(SI), Y8
	VANDPD       ·tanhK+K_SIGN(SB), Y1, Y1
	VANDPD       ·tanhK+K_SIGN(SB), Y8, Y8
	VORPD        Y1, Y0, Y0                                 // the sign of x
	VORPD        Y8, Y7, Y7
	VMOVUPD      Y0, (DI)
	VMOVUPD      Y7, 32(DI)
	ADDQ         $64, SI
	ADDQ         $64, DI
	DECQ         CX
	JNZ          tanhloop
	VZEROUPPER
	RET
