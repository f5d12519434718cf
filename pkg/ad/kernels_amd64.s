//go:build !purego

#include "textflag.h"

// AVX2+FMA kernels for the products of layers 8 or more units wide, and a
// vector tanh. Each output sums its products in the same fixed order as the
// pure-Go kernels (increasing i or r), with fused multiply-adds.

// Macros of the product kernels (further down). PRODARGS: DI = y, SI = a, BX = b, R8 = n, R9 = k, R10 = 8m (the row
// stride of y and b in bytes), R11 = 8k (that of a), R12 = 24k, R13 = 24m.
#define PRODARGS \
	MOVQ y+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), BX; \
	MOVQ n+24(FP), R8; \
	MOVQ k+32(FP), R9; \
	MOVQ m+40(FP), R10; \
	SHLQ $3, R10; \
	MOVQ R9, R11; \
	SHLQ $3, R11; \
	LEAQ (R11)(R11*2), R12; \
	LEAQ (R10)(R10*2), R13

#define ZERO8 \
	VXORPD Y0, Y0, Y0; \
	VXORPD Y1, Y1, Y1; \
	VXORPD Y2, Y2, Y2; \
	VXORPD Y3, Y3, Y3; \
	VXORPD Y4, Y4, Y4; \
	VXORPD Y5, Y5, Y5; \
	VXORPD Y6, Y6, Y6; \
	VXORPD Y7, Y7, Y7

// FMA8X4: 4 rows of 8 accumulators (Y0:Y1, Y2:Y3, Y4:Y5, Y6:Y7) += the
// scalars at p0..p3 times the 8 values at (CX).
#define FMA8X4(p0, p1, p2, p3) \
	VMOVUPD      (CX), Y8; \
	VMOVUPD      32(CX), Y9; \
	VBROADCASTSD p0, Y10; \
	VFMADD231PD  Y8, Y10, Y0; \
	VFMADD231PD  Y9, Y10, Y1; \
	VBROADCASTSD p1, Y11; \
	VFMADD231PD  Y8, Y11, Y2; \
	VFMADD231PD  Y9, Y11, Y3; \
	VBROADCASTSD p2, Y12; \
	VFMADD231PD  Y8, Y12, Y4; \
	VFMADD231PD  Y9, Y12, Y5; \
	VBROADCASTSD p3, Y13; \
	VFMADD231PD  Y8, Y13, Y6; \
	VFMADD231PD  Y9, Y13, Y7

// FMA4X4: FMA8X4 for 4 values (Y0, Y2, Y4, Y6).
#define FMA4X4(p0, p1, p2, p3) \
	VMOVUPD      (CX), Y8; \
	VBROADCASTSD p0, Y10; \
	VFMADD231PD  Y8, Y10, Y0; \
	VBROADCASTSD p1, Y11; \
	VFMADD231PD  Y8, Y11, Y2; \
	VBROADCASTSD p2, Y12; \
	VFMADD231PD  Y8, Y12, Y4; \
	VBROADCASTSD p3, Y13; \
	VFMADD231PD  Y8, Y13, Y6

// STORE8X4, STORE4X4: the accumulators to 4 rows of y at DI.
#define STORE8X4 \
	VMOVUPD Y0, (DI); \
	VMOVUPD Y1, 32(DI); \
	VMOVUPD Y2, (DI)(R10*1); \
	VMOVUPD Y3, 32(DI)(R10*1); \
	VMOVUPD Y4, (DI)(R10*2); \
	VMOVUPD Y5, 32(DI)(R10*2); \
	VMOVUPD Y6, (DI)(R13*1); \
	VMOVUPD Y7, 32(DI)(R13*1)

#define STORE4X4 \
	VMOVUPD Y0, (DI); \
	VMOVUPD Y2, (DI)(R10*1); \
	VMOVUPD Y4, (DI)(R10*2); \
	VMOVUPD Y6, (DI)(R13*1)

// The loops of mulCols: ROWBEGIN starts a block of rows (CX walks b's
// rows, AX a's columns, DX counts k), ROWSTEP moves to the next i,
// NEXT4ROWS and NEXTROW to the next rows of a and y (R8 counts them).
#define ROWBEGIN \
	MOVQ BX, CX; \
	MOVQ SI, AX; \
	MOVQ R9, DX

#define ROWSTEP \
	ADDQ $8, AX; \
	ADDQ R10, CX; \
	DECQ DX

#define NEXT4ROWS \
	LEAQ (SI)(R11*4), SI; \
	LEAQ (DI)(R10*4), DI; \
	SUBQ $4, R8; \
	CMPQ R8, $4

// TSTEP: the next row r of a and b in tMulCols4 (R8 counts them).
#define TSTEP \
	ADDQ R11, SI; \
	ADDQ R10, CX; \
	DECQ R8

#define NEXTROW \
	ADDQ R11, SI; \
	ADDQ R10, DI; \
	DECQ R8

// The product kernels work on a block of 8 or 4 columns of y (one or two
// YMM registers per row) inside matrices of row stride m; the Go callers
// (kernels.go) loop over the blocks. Each output is one chain of fused
// multiply-adds from zero in increasing i (mulCols) or r (tMulCols), the
// same whichever kernel or block computes it. They share their arguments
// (y, a, b *float64, n, k, m int) and the macros at the top of the file.

// func mulCols8(y, a, b *float64, n, k, m int)
// y[r*m+c] = sum over i < k of a[r*k+i] b[i*m+c], for r < n, c < 8; 4 rows
// at a time (8 accumulators), then one; n, k >= 1.
TEXT ·mulCols8(SB), NOSPLIT, $0-48
	PRODARGS
	CMPQ R8, $4
	JLT  m8rows1

m8rows4:
	ZERO8
	ROWBEGIN

m8inner4:
	FMA8X4((AX), (AX)(R11*1), (AX)(R11*2), (AX)(R12*1))
	ROWSTEP
	JNZ  m8inner4

	STORE8X4
	NEXT4ROWS
	JGE  m8rows4

m8rows1:
	TESTQ R8, R8
	JZ    m8done

m8row1:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	ROWBEGIN

m8inner1:
	VBROADCASTSD (AX), Y10
	VFMADD231PD  (CX), Y10, Y0
	VFMADD231PD  32(CX), Y10, Y1
	ROWSTEP
	JNZ          m8inner1

	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	NEXTROW
	JNZ     m8row1

m8done:
	VZEROUPPER
	RET

// func mulCols4(y, a, b *float64, n, k, m int)
// mulCols8 for 4 columns: 4 rows at a time (4 accumulators), then one.
TEXT ·mulCols4(SB), NOSPLIT, $0-48
	PRODARGS
	CMPQ R8, $4
	JLT  m4rows1

m4rows4:
	ZERO8
	ROWBEGIN

m4inner4:
	FMA4X4((AX), (AX)(R11*1), (AX)(R11*2), (AX)(R12*1))
	ROWSTEP
	JNZ  m4inner4

	STORE4X4
	NEXT4ROWS
	JGE  m4rows4

m4rows1:
	TESTQ R8, R8
	JZ    m4done

m4row1:
	VXORPD Y0, Y0, Y0
	ROWBEGIN

m4inner1:
	VBROADCASTSD (AX), Y10
	VFMADD231PD  (CX), Y10, Y0
	ROWSTEP
	JNZ          m4inner1

	VMOVUPD Y0, (DI)
	NEXTROW
	JNZ     m4row1

m4done:
	VZEROUPPER
	RET

// func tMulCols4(y, a, b *float64, n, k, m, w int)
// Rows q = 0..3 of y, columns c < w (w = 8 or 4; row stride m): sum over
// r < n of a[r*k+q] b[r*m+c]; a points at the first of the 4 columns of a,
// b at the first of the w columns of b; n >= 1.
TEXT ·tMulCols4(SB), NOSPLIT, $0-56
	PRODARGS
	ZERO8
	MOVQ BX, CX
	MOVQ w+48(FP), AX
	CMPQ AX, $8
	JNE  t44loop

t84loop:
	FMA8X4((SI), 8(SI), 16(SI), 24(SI))
	TSTEP
	JNZ t84loop
	STORE8X4
	JMP t4done

t44loop:
	FMA4X4((SI), 8(SI), 16(SI), 24(SI))
	TSTEP
	JNZ t44loop
	STORE4X4

t4done:
	VZEROUPPER
	RET

// func tMulCols1(y, a, b *float64, n, k, m, w int)
// tMulCols4 for one row of y.
TEXT ·tMulCols1(SB), NOSPLIT, $0-56
	PRODARGS
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	MOVQ   w+48(FP), AX
	CMPQ   AX, $8
	JNE    t41loop

t81loop:
	VBROADCASTSD (SI), Y10
	VFMADD231PD  (BX), Y10, Y0
	VFMADD231PD  32(BX), Y10, Y1
	ADDQ         R11, SI
	ADDQ         R10, BX
	DECQ         R8
	JNZ          t81loop
	VMOVUPD      Y1, 32(DI)
	JMP          t1done

t41loop:
	VBROADCASTSD (SI), Y10
	VFMADD231PD  (BX), Y10, Y0
	ADDQ         R11, SI
	ADDQ         R10, BX
	DECQ         R8
	JNZ          t41loop

t1done:
	VMOVUPD Y0, (DI)
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

// func polyVec(y, a0, a1, a2, b0, b1, b2 *float64, na, nb int, ca, cb, c0 float64, mode, n int)
//
// The fused polynomials' terms (pair.go, plan.go) on n values (a multiple
// of 4), 4 per YMM, by the Go kernels' operations in their order, none
// fused: A = ((ca a0) a1) a2 over the first na factors, B likewise with
// cb over nb, then by mode: 0 y = A + c0, 1 y = y + A, 2 y = (c0 + A) + B,
// 3 y = y + (A + B).
TEXT ·polyVec(SB), NOSPLIT, $0-112
	MOVQ y+0(FP), DI
	MOVQ a0+8(FP), R8
	MOVQ a1+16(FP), R9
	MOVQ a2+24(FP), R10
	MOVQ b0+32(FP), R11
	MOVQ b1+40(FP), R12
	MOVQ b2+48(FP), R13
	MOVQ na+56(FP), AX
	MOVQ nb+64(FP), BX
	VBROADCASTSD ca+72(FP), Y10
	VBROADCASTSD cb+80(FP), Y11
	VBROADCASTSD c0+88(FP), Y12
	MOVQ mode+96(FP), DX
	MOVQ n+104(FP), CX
	XORQ SI, SI

pvloop:
	CMPQ SI, CX
	JGE  pvdone
	VMULPD (R8)(SI*8), Y10, Y0
	CMPQ   AX, $2
	JL     pvadone
	VMULPD (R9)(SI*8), Y0, Y0
	CMPQ   AX, $3
	JL     pvadone
	VMULPD (R10)(SI*8), Y0, Y0

pvadone:
	CMPQ DX, $2
	JGE  pvpair
	CMPQ DX, $1
	JE   pvsingleadd
	VADDPD Y12, Y0, Y0
	JMP    pvstore

pvsingleadd:
	VADDPD (DI)(SI*8), Y0, Y0
	JMP    pvstore

pvpair:
	VMULPD (R11)(SI*8), Y11, Y1
	CMPQ   BX, $2
	JL     pvbdone
	VMULPD (R12)(SI*8), Y1, Y1
	CMPQ   BX, $3
	JL     pvbdone
	VMULPD (R13)(SI*8), Y1, Y1

pvbdone:
	CMPQ   DX, $3
	JE     pvpairadd
	VADDPD Y12, Y0, Y0
	VADDPD Y1, Y0, Y0
	JMP    pvstore

pvpairadd:
	VADDPD Y1, Y0, Y0
	VADDPD (DI)(SI*8), Y0, Y0

pvstore:
	VMOVUPD Y0, (DI)(SI*8)
	ADDQ    $4, SI
	JMP     pvloop

pvdone:
	VZEROUPPER
	RET

// func sumRows(y, a *float64, k, rows, cols int)
// y[j] += a[r*k+j] for r = 0, 1, ..., rows-1 in that order, for j < cols,
// cols a multiple of 4: each column's sum in the Go loop's order, 4 columns
// per instruction, 16 per pass over the rows (four independent chains).
TEXT ·sumRows(SB), NOSPLIT, $0-40
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ k+16(FP), R8
	SHLQ $3, R8
	MOVQ rows+24(FP), R9
	MOVQ cols+32(FP), R10

sr16:
	CMPQ    R10, $16
	JLT     sr4
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	VMOVUPD 64(DI), Y2
	VMOVUPD 96(DI), Y3
	MOVQ    SI, AX
	MOVQ    R9, CX

sr16row:
	TESTQ   CX, CX
	JZ      sr16done
	VADDPD  (AX), Y0, Y0
	VADDPD  32(AX), Y1, Y1
	VADDPD  64(AX), Y2, Y2
	VADDPD  96(AX), Y3, Y3
	ADDQ    R8, AX
	DECQ    CX
	JMP     sr16row

sr16done:
	VMOVUPD Y0, (DI)
	VMOVUPD Y1, 32(DI)
	VMOVUPD Y2, 64(DI)
	VMOVUPD Y3, 96(DI)
	ADDQ    $128, DI
	ADDQ    $128, SI
	SUBQ    $16, R10
	JMP     sr16

sr4:
	CMPQ    R10, $4
	JLT     srdone
	VMOVUPD (DI), Y0
	MOVQ    SI, AX
	MOVQ    R9, CX

sr4row:
	TESTQ   CX, CX
	JZ      sr4done
	VADDPD  (AX), Y0, Y0
	ADDQ    R8, AX
	DECQ    CX
	JMP     sr4row

sr4done:
	VMOVUPD Y0, (DI)
	ADDQ    $32, DI
	ADDQ    $32, SI
	SUBQ    $4, R10
	JMP     sr4

srdone:
	VZEROUPPER
	RET

// func rowOuter(y, a, b *float64, rows, ka, kb, cols int)
// y[r][i][j] = a[r][i] * b[r][j] for r < rows, i < ka, j < cols (cols a
// multiple of 4, rows of y ka*kb long): one product per value, as the Go
// loop, 4 per instruction.
TEXT ·rowOuter(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b+16(FP), DX
	MOVQ rows+24(FP), R9
	MOVQ ka+32(FP), R10
	MOVQ kb+40(FP), R11
	SHLQ $3, R11               // a row of b, and of each block of y, in bytes
	MOVQ cols+48(FP), R12
	SHLQ $3, R12

rorow:
	TESTQ R9, R9
	JZ    rodone
	MOVQ  R10, CX
	MOVQ  DI, R13              // y's block for a[r][i]

roi:
	TESTQ        CX, CX
	JZ           rorowdone
	VBROADCASTSD (SI), Y0
	XORQ         AX, AX

roj:
	CMPQ    AX, R12
	JGE     roidone
	VMULPD  (DX)(AX*1), Y0, Y1
	VMOVUPD Y1, (R13)(AX*1)
	ADDQ    $32, AX
	JMP     roj

roidone:
	ADDQ $8, SI
	ADDQ R11, R13
	DECQ CX
	JMP  roi

rorowdone:
	MOVQ R13, DI
	ADDQ R11, DX
	DECQ R9
	JMP  rorow

rodone:
	VZEROUPPER
	RET

// func mulT2(y, a, b0, b1 *float64, n, m, cols int)
// y[r*m+j] = a[2r]*b0[j] + a[2r+1]*b1[j] for r < n, j < cols (a multiple
// of 4): two products and their sum, unfused, as the Go loop.
TEXT ·mulT2(SB), NOSPLIT, $0-56
	MOVQ y+0(FP), DI
	MOVQ a+8(FP), SI
	MOVQ b0+16(FP), R8
	MOVQ b1+24(FP), R9
	MOVQ n+32(FP), CX
	MOVQ m+40(FP), R10
	SHLQ $3, R10
	MOVQ cols+48(FP), R11
	SHLQ $3, R11

m2row:
	TESTQ        CX, CX
	JZ           m2done
	VBROADCASTSD (SI), Y0
	VBROADCASTSD 8(SI), Y1
	XORQ         AX, AX

m2col:
	CMPQ    AX, R11
	JGE     m2rowdone
	VMULPD  (R8)(AX*1), Y0, Y2
	VMULPD  (R9)(AX*1), Y1, Y3
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (DI)(AX*1)
	ADDQ    $32, AX
	JMP     m2col

m2rowdone:
	ADDQ $16, SI
	ADDQ R10, DI
	DECQ CX
	JMP  m2row

m2done:
	VZEROUPPER
	RET
