package curv

import "math"

// blockDiag adds the traces of the block-diagonal part of A: every range
// of blocks dense and exact (denseTraces), every other weight its own 1 x 1 block
// alpha_k + sum_t beta_t (H_t)_kk. With no blocks it is the diagonal of A,
// which needs of the J_t only their column squares (System.ColSquares
// where J is nil).
func blockDiag(s *System, blocks [][2]int, tr *Traces) error {
	P := s.P
	inBlock := make([]bool, P)
	for _, b := range blocks {
		if b[0] < 0 || b[1] > P || b[0] >= b[1] {
			return notPD(Layers)
		}
		for k := b[0]; k < b[1]; k++ {
			inBlock[k] = true
		}
	}
	h := s.ColSquares
	if s.J != nil {
		h = make([][]float64, len(s.J))
		for t, j := range s.J {
			h[t] = colSquares(j, P)
		}
	}
	d := s.alphaDiag() // becomes diag(A) outside the blocks
	for k := 0; k < P; k++ {
		if inBlock[k] {
			continue
		}
		a := d[k]
		for t, b := range s.Beta {
			a += b * h[t][k]
		}
		if !(a > 0) || math.IsInf(a, 0) {
			return notPD(Diag)
		}
		g := s.AlphaOf[k]
		d[k] = a
		tr.LogDet += math.Log(a)
		tr.TrAlpha[g] += 1 / a
		if tr.TrSqAlpha != nil {
			tr.TrSqAlpha[g] += 1 / (a * a)
		}
		for t := range h {
			m := h[t][k] / a
			tr.TrBeta[t] += m
			if tr.TrSqBeta != nil {
				tr.TrSqBeta[t] += m * m
			}
		}
	}
	solves := make([]func(dst, b []float64), len(blocks))
	for i, b := range blocks {
		sub := &System{P: b[1] - b[0], Beta: s.Beta, Alpha: s.Alpha, AlphaOf: s.AlphaOf[b[0]:b[1]], J: make([][]float64, len(s.J))}
		for t, j := range s.J {
			n := s.Rows(t)
			c := make([]float64, 0, n*sub.P)
			for i := 0; i < n; i++ {
				c = append(c, j[i*P+b[0]:i*P+b[1]]...)
			}
			sub.J[t] = c
		}
		if err := denseTraces(sub, tr); err != nil {
			return err
		}
		solves[i] = tr.Solve
	}
	tr.Solve = func(dst, v []float64) {
		for k, x := range v {
			if !inBlock[k] {
				dst[k] = x / d[k]
			}
		}
		for i, b := range blocks {
			solves[i](dst[b[0]:b[1]], v[b[0]:b[1]])
		}
	}
	return nil
}
