package optimize

import (
	"gonum.org/v1/gonum/mat"
)

// Starting points of the bilinear form's local search from metric learning in closed
// form. The smooth ascent and the swap search end in a local optimum that depends on
// where they start: on mdav_k3 (1,080 records) they end at 353–355 links from the
// Euclidean W and at 357–358 from these (bench/README.md, eleventh session).

// pairMoments returns, for the records of d, the second moment of the true pairs'
// differences Σ_S = (1/N) Σ_i δ_i δ_iᵀ (δ_i = x_q(i) − y_t(i)) and that of the
// differences of all (query, reference) pairs,
// Σ_D = C_X + C_Y + (μ_X − μ_Y)(μ_X − μ_Y)ᵀ (the population covariances and means of the
// queries and of the references: E[(x − y)(x − y)ᵀ] for x and y drawn independently),
// computed without visiting the pairs.
func pairMoments(d *data) (same, all *mat.SymDense) {
	m := d.m
	same = mat.NewSymDense(m, nil)
	delta := make([]float64, m)
	for i := range d.recs {
		r := &d.recs[i]
		for k := range m {
			delta[k] = d.queries[r.q*m+k] - d.refs[r.t*m+k]
		}
		same.SymRankOne(same, 1/float64(len(d.recs)), mat.NewVecDense(m, delta))
	}
	all = mat.NewSymDense(m, nil)
	mq := addCovariance(all, d.queries, m)
	my := addCovariance(all, d.refs, m)
	for k := range m {
		mq[k] -= my[k]
	}
	all.SymRankOne(all, 1, mat.NewVecDense(m, mq))
	return same, all
}

// addCovariance adds to c the population covariance of the rows of x (row-major, m columns)
// and returns their mean.
func addCovariance(c *mat.SymDense, x []float64, m int) []float64 {
	n := len(x) / m
	mean := make([]float64, m)
	for i := range n {
		for k := range m {
			mean[k] += x[i*m+k] / float64(n)
		}
	}
	dev := make([]float64, m)
	for i := range n {
		for k := range m {
			dev[k] = x[i*m+k] - mean[k]
		}
		c.SymRankOne(c, 1/float64(n), mat.NewVecDense(m, dev))
	}
	return mean
}

// metricStarts returns two members of the bilinear family (PSD, trace 1) for the local
// search to start from:
//   - KISSME, W ∝ Σ_S⁻¹ − Σ_D⁻¹ projected onto the PSD cone (Köstinger, Hirzer, Wohlhart,
//     Roth & Bischof, "Large scale metric learning from equivalence constraints", CVPR
//     2012, eq. 12: the log-likelihood ratio of a difference under a Gaussian of the true
//     pairs' against one of all pairs);
//   - the Mahalanobis distance of the true pairs' differences, W ∝ Σ_S⁻¹.
//
// Σ_S gets a ridge of 1e-6 of its mean diagonal (an attribute the masking left unchanged
// has no variance there); a start whose matrix cannot be inverted is left out.
func metricStarts(d *data, sp *bilinearSpace) [][]float64 {
	same, all := pairMoments(d)
	ridge := 1e-6 * (mat.Trace(same)/float64(d.m) + 1e-12)
	for k := range d.m {
		same.SetSym(k, k, same.At(k, k)+ridge)
	}
	invS, okS := inverseSym(same)
	invD, okD := inverseSym(all)
	var starts [][]float64
	if okS && okD {
		kiss := mat.NewSymDense(d.m, nil)
		invD.ScaleSym(-1, invD)
		kiss.AddSym(invS, invD)
		if th, ok := sp.fromMatrix(kiss); ok {
			starts = append(starts, th)
		}
	}
	if okS {
		if th, ok := sp.fromMatrix(invS); ok {
			starts = append(starts, th)
		}
	}
	return starts
}

// inverseSym inverts a symmetric positive definite matrix.
func inverseSym(a *mat.SymDense) (*mat.SymDense, bool) {
	var c mat.Cholesky
	if !c.Factorize(a) {
		return nil, false
	}
	var inv mat.SymDense
	if err := c.InverseTo(&inv); err != nil {
		return nil, false
	}
	return &inv, true
}

// fromMatrix returns θ of the symmetric matrix w projected onto the family (negative
// eigenvalues clamped to 0, trace 1); false when nothing positive is left.
func (s *bilinearSpace) fromMatrix(w mat.Symmetric) ([]float64, bool) {
	th := make([]float64, s.n)
	for k := range s.m {
		for l := k; l < s.m; l++ {
			th[s.col(k, l)] = w.At(k, l)
		}
	}
	vals, _ := s.eigen(th)
	if vals == nil || vals[len(vals)-1] <= 0 {
		return nil, false
	}
	s.project(th)
	return th, true
}
