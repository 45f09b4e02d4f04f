package mask

import (
	"math"
	"math/rand/v2"

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
		_, v := meanVar(col)
		sd := percent / 100 * math.Sqrt(v)
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
	means := make([]float64, p)
	for j, col := range data {
		means[j], _ = meanVar(col)
	}
	cov := mat.NewSymDense(p, nil)
	for a := 0; a < p; a++ {
		for b := a; b < p; b++ {
			var s float64
			for i := 0; i < n; i++ {
				s += (data[a][i] - means[a]) * (data[b][i] - means[b])
			}
			cov.SetSym(a, b, percent/100*s/float64(n-1))
		}
	}
	A, err := noiseFactor(op, cov)
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

// noiseFactor returns A with A·Aᵀ = cov: the Cholesky factor, or the eigen factor when cov is
// singular.
func noiseFactor(op string, cov *mat.SymDense) (*mat.Dense, error) {
	p := cov.SymmetricDim()
	var chol mat.Cholesky
	if chol.Factorize(cov) {
		var L mat.TriDense
		chol.LTo(&L)
		return mat.DenseCopyOf(&L), nil
	}
	var eig mat.EigenSym
	if !eig.Factorize(cov, true) {
		return nil, newErr(op, ErrNotPSD, "eigen-decomposition of the covariance matrix failed")
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	maxAbs := 0.0
	for _, v := range vals {
		maxAbs = math.Max(maxAbs, math.Abs(v))
	}
	A := mat.NewDense(p, p, nil)
	for c, v := range vals {
		if v < -1e-10*maxAbs {
			return nil, newErr(op, ErrNotPSD, "covariance matrix has eigenvalue %g (largest %g)", v, maxAbs)
		}
		s := math.Sqrt(math.Max(v, 0))
		for r := 0; r < p; r++ {
			A.Set(r, c, vecs.At(r, c)*s)
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
