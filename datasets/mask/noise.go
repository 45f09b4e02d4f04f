package mask

import (
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// AdditiveNoise adds independent normal noise to every attribute (uncorrelated additive noise;
// R. Brand, "Microdata protection through noise addition", LNCS 2316, 2002; sdcMicro's
// addNoise(method = "additive")):
//
//	x'_ij = x_ij + e_ij,   e_ij ~ N(0, (percent/100 · sd_j)²),
//
// sd_j the sample standard deviation of attribute j (divisor n−1). A constant attribute is
// left unchanged (sd 0). Draws: rng.NormFloat64, column by column, record by record, so the
// same rng state gives the same output. percent = 0 returns a copy and draws nothing.
//
// Errors: percent < 0 or not finite, nil rng, fewer than 2 records, and the data errors of MDAV.
func AdditiveNoise(data [][]float64, percent float64, rng *rand.Rand) ([][]float64, error) {
	const op = "AdditiveNoise"
	if _, err := checkNoiseArgs(op, data, percent, rng); err != nil {
		return nil, err
	}
	out := cloneData(data)
	if percent == 0 {
		return out, nil
	}
	for j, col := range data {
		e := scaleExp(col)
		_, v := meanVar(col, math.Ldexp(1, -e))
		// sd in original units: √v is the scaled sd (an exact power-of-two multiple).
		sd := math.Ldexp(percent/100*math.Sqrt(v), e)
		if sd == 0 {
			continue
		}
		for i := range col {
			out[j][i] += sd * rng.NormFloat64()
		}
	}
	return out, nil
}

// CorrelatedNoise adds multivariate normal noise whose covariance is a share of the data's
// covariance (correlated noise; J. Kim, "A method for limiting disclosure in microdata based
// on random noise and transformation", 1986; Brand 2002; sdcMicro's
// addNoise(method = "correlated"), which draws with MASS::mvrnorm):
//
//	x'_i = x_i + e_i,   e_i ~ N_p(0, percent/100 · Σ),
//
// Σ the sample covariance matrix (divisor n−1). Note that percent is a share of the variance:
// percent = 10 gives noise sd ≈ 31.6 % of each attribute's sd. The noise is e_i = A z_i with
// z_i ~ N_p(0, I) (p calls of rng.NormFloat64 per record, record by record) and A the lower
// Cholesky factor of percent/100 · Σ; when Σ is only positive semi-definite (a constant or
// collinear attribute) A = Q·diag(√max(λ, 0)) from its eigen-decomposition instead, with an
// ErrNotPSD error if an eigenvalue is below −1e-10 · the largest one. percent = 0 returns a
// copy and draws nothing. Same rng state, same output.
//
// Errors: as for AdditiveNoise.
func CorrelatedNoise(data [][]float64, percent float64, rng *rand.Rand) ([][]float64, error) {
	const op = "CorrelatedNoise"
	n, err := checkNoiseArgs(op, data, percent, rng)
	if err != nil {
		return nil, err
	}
	out := cloneData(data)
	if percent == 0 {
		return out, nil
	}
	p := len(data)
	// The covariance is that of each attribute times a power of two (scaleExp): products of
	// values beyond about 1e154 overflow (below 1e-154 underflow) where the scaled ones do not.
	exps := make([]int, p)
	scaled := make([][]float64, p)
	means := make([]float64, p)
	for j, col := range data {
		exps[j] = scaleExp(col)
		scale := math.Ldexp(1, -exps[j])
		scaled[j] = make([]float64, n)
		for i, v := range col {
			scaled[j][i] = v * scale
		}
		means[j], _ = meanVar(scaled[j], 1)
	}
	cov := mat.NewSymDense(p, nil)
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			var s float64
			for i := 0; i < n; i++ {
				s += (scaled[a][i] - means[a]) * (scaled[b][i] - means[b])
			}
			cov.SetSym(a, b, percent/100*s/float64(n-1))
		}
	}
	A, err := noiseFactor(op, cov, exps)
	if err != nil {
		return nil, err
	}
	z := make([]float64, p)
	for i := 0; i < n; i++ {
		for j := range z {
			z[j] = rng.NormFloat64()
		}
		for a := 0; a < p; a++ {
			var e float64
			for b := 0; b < p; b++ {
				e += A.At(a, b) * z[b]
			}
			out[a][i] += e
		}
	}
	return out, nil
}

// noiseFactor returns A with A·Aᵀ = Σ, given cov = D·Σ·D with D = diag(2^−exps[j]): the
// Cholesky factor, or the eigen factor when Σ is singular. Scaling by powers of two is
// exact, so on ordinary data A is bit for bit that of the unscaled Σ.
func noiseFactor(op string, cov *mat.SymDense, exps []int) (*mat.Dense, error) {
	p := cov.SymmetricDim()
	A := mat.NewDense(p, p, nil)
	var chol mat.Cholesky
	if chol.Factorize(cov) {
		// Cholesky of D·Σ·D is D·L.
		var L mat.TriDense
		chol.LTo(&L)
		for r := 0; r < p; r++ {
			for c := 0; c <= r; c++ {
				A.Set(r, c, math.Ldexp(L.At(r, c), exps[r]))
			}
		}
		return A, nil
	}
	// The eigenvectors of D·Σ·D are not those of Σ, so the eigen factor is taken of Σ times one
	// common power of two (attributes more than about 1e150 apart in magnitude underflow here).
	e := slices.Max(exps)
	u := mat.NewSymDense(p, nil)
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			u.SetSym(a, b, math.Ldexp(cov.At(a, b), exps[a]+exps[b]-2*e))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(u, true) {
		return nil, newErr(op, ErrNotPSD, "eigen-decomposition of the covariance matrix failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	maxAbs := 0.0
	for _, v := range vals {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	for c, v := range vals {
		if v < -1e-10*maxAbs {
			return nil, newErr(op, ErrNotPSD, "covariance matrix has eigenvalue %g (largest %g)",
				math.Ldexp(v, 2*e), math.Ldexp(maxAbs, 2*e))
		}
		s := math.Sqrt(math.Max(v, 0))
		for r := 0; r < p; r++ {
			A.Set(r, c, math.Ldexp(vecs.At(r, c)*s, e))
		}
	}
	return A, nil
}

func checkNoiseArgs(op string, data [][]float64, percent float64, rng *rand.Rand) (int, error) {
	n, err := checkData(op, data)
	if err != nil {
		return 0, err
	}
	if err := checkPercent(op, percent, -1); err != nil {
		return 0, err
	}
	if rng == nil {
		return 0, newErr(op, ErrNilRNG, "")
	}
	if n < 2 {
		return 0, newErr(op, ErrTooFewRecords, "need at least 2 records to estimate the standard deviation (got %d)", n)
	}
	return n, nil
}
