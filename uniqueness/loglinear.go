package uniqueness

import "math"

// MainEffects returns, for each class j, the expected sample count μ_j of the Poisson
// log-linear model with main effects only, log μ_j = β_0 + Σ_k β_k(c_jk), fitted by
// maximum likelihood to the sample counts of the full cross-classification of the keys
// (cells with f_j = 0 included):
//
//	μ_j = n · Π_k (n_k(c_jk) / n),
//
// where n_k(c) is the sample margin of category c of key k. This is the fixed point of
// iterative proportional fitting on the one-way margins, which for this (decomposable)
// model is reached after one cycle (Bishop, Fienberg and Holland 1975, §3.4), so no
// iteration is needed; it never enumerates the empty cells.
func (c *Classes) MainEffects() []float64 {
	n := float64(len(c.Of))
	logMargin := make([][]float64, len(c.cols))
	for k, col := range c.cols {
		m := make([]float64, len(col.labels))
		for _, code := range col.sample {
			m[code]++
		}
		for i := range m {
			m[i] = math.Log(m[i] / n)
		}
		logMargin[k] = m
	}
	mu := make([]float64, c.Len())
	for j := range mu {
		row := c.first[j]
		s := math.Log(n)
		for k, col := range c.cols {
			s += logMargin[k][col.sample[row]]
		}
		mu[j] = math.Exp(s)
	}
	return mu
}
