package distances

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"
)

// Diff is the per-attribute difference every operator aggregates:
//
//	diff_i(a, b) = (z_i(a) − z_i(b))²
//
// on standardised values (Torra & Domingo-Ferrer, "Record linkage methods for multidatabase
// data mining", 2003; Abril, Navarro-Arribas & Torra, Information Fusion 13(4), 2012, §3).
func Diff(a, b float64) float64 {
	d := a - b
	return d * d
}

// Diffs writes diff_i(a, b) for every attribute into dst and returns it.
func Diffs(dst, a, b []float64) []float64 {
	dst = dst[:len(a)]
	for i := range a {
		dst[i] = Diff(a[i], b[i])
	}
	return dst
}

// Operator is an aggregation distance between two standardised records a and b of m
// attributes. Every operator is linear in its parameters θ once the data are fixed:
//
//	Distance(a, b) = Params() · Features(a, b)
//
// which is what the worst-case optimiser consumes (design note §2).
type Operator interface {
	// Name is the operator's short name: euclidean, wm, owa, bilinear, mahalanobis, choquet.
	Name() string
	// Attributes is m, the number of attributes the operator is defined on.
	Attributes() int
	// Distance returns d(a, b) in the operator's direct form: the reference definition.
	Distance(a, b []float64) float64
	// Params returns θ. The slice must not be modified.
	Params() []float64
	// Features writes φ(a, b), of length len(Params()), into dst and returns it.
	Features(dst, a, b []float64) []float64
}

// Embedder is an operator that is a squared Euclidean distance after one linear map T of
// both records, d(a, b) = |T a − T b|²: Euclidean, weighted mean and (PSD) bilinear forms.
// The pairwise core transforms both files once and runs its squared-Euclidean kernel.
type Embedder interface {
	Operator
	// Transform returns T (rows × m).
	Transform() *mat.Dense
}

// ErrInvalidParams is wrapped by every parameter validation error.
var ErrInvalidParams = errors.New("invalid operator parameters")

func invalidf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidParams, fmt.Sprintf(format, args...))
}

// validWeight reports whether v can be a weight of the simplex: finite and ≥ 0 (the
// parameter files check it where they know the attribute's name, checkSimplex for all).
func validWeight(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// checkSimplex verifies that w is a probability vector: w_i ≥ 0, Σ w_i = 1 (to 1e-5, see
// onSimplex).
func checkSimplex(what string, w []float64) error {
	if len(w) == 0 {
		return invalidf("%s: no weights", what)
	}
	sum := 0.0
	for i, v := range w {
		if !validWeight(v) {
			return invalidf("%s: weight %d is %v (want ≥ 0)", what, i+1, v)
		}
		sum += v
	}
	// 1e-5: weights written by hand to six decimals (0.333333 three times) are meant to
	// sum to 1; the scale does not change which record is nearest.
	if math.Abs(sum-1) > 1e-5 {
		return invalidf("%s: weights sum to %v (want 1)", what, sum)
	}
	return nil
}

// WeightedMean is the weighted mean of the attribute diffs, WM_p(a, b) = Σ_i p_i diff_i(a, b)
// with p on the simplex (Abril, Navarro-Arribas & Torra 2012, eq. for d²WM). The Euclidean
// distance of the record-linkage literature is WM with p_i = 1/m.
type WeightedMean struct {
	name string
	p    []float64
}

// NewWeightedMean returns WM_p; p must be on the simplex.
func NewWeightedMean(p []float64) (*WeightedMean, error) {
	if err := checkSimplex("weighted mean", p); err != nil {
		return nil, err
	}
	return &WeightedMean{name: "wm", p: onSimplex(p)}, nil
}

// onSimplex returns a copy of w, a probability vector by checkSimplex, divided by its sum
// when that is more than 1e-9 from 1 (weights written by hand to a few decimals), so that
// distances and margins are those of weights summing to 1. Sums within 1e-9 (the
// optimiser's) are kept as they are: re-scaling them would move margins by an ulp and
// could flip a link counted at exactly ε.
func onSimplex(w []float64) []float64 {
	out := append([]float64(nil), w...)
	sum := 0.0
	for _, v := range w {
		sum += v
	}
	if math.Abs(sum-1) > 1e-9 {
		for i := range out {
			out[i] /= sum
		}
	}
	return out
}

// NewEuclidean returns the Euclidean distance on m attributes, the mean of the diffs:
// d(a, b) = (1/m) Σ_i diff_i(a, b) (design note §2; the 1/m does not change any link).
func NewEuclidean(m int) *WeightedMean {
	if m < 1 {
		panic("distances: NewEuclidean needs at least one attribute")
	}
	p := make([]float64, m)
	for i := range p {
		p[i] = 1 / float64(m)
	}
	return &WeightedMean{name: "euclidean", p: p}
}

func (w *WeightedMean) Name() string      { return w.name }
func (w *WeightedMean) Attributes() int   { return len(w.p) }
func (w *WeightedMean) Params() []float64 { return w.p }

func (w *WeightedMean) Distance(a, b []float64) float64 {
	s := 0.0
	for i, p := range w.p {
		s += p * Diff(a[i], b[i])
	}
	return s
}

func (w *WeightedMean) Features(dst, a, b []float64) []float64 { return Diffs(dst, a, b) }

// Transform is diag(√p).
func (w *WeightedMean) Transform() *mat.Dense {
	m := len(w.p)
	t := mat.NewDense(m, m, nil)
	for i, p := range w.p {
		t.Set(i, i, math.Sqrt(p))
	}
	return t
}

// Bilinear is the symmetric bilinear form d(a, b) = xᵀ W x with x = a − b and W symmetric
// positive semi-definite (Abril, Navarro-Arribas & Torra 2012, §4.3). Its parameters are
// the upper triangle of W, row by row, and its features x_i x_j (doubled off the diagonal).
type Bilinear struct {
	name  string
	w     *mat.SymDense
	theta []float64
	t     *mat.Dense
}

// psdTolerance: an eigenvalue above −psdTolerance·max(1, |λ_max|) counts as non-negative
// (rounding of the decomposition), and is clamped to 0.
const psdTolerance = 1e-10

// NewBilinear returns the bilinear form of W, which must be symmetric positive
// semi-definite: otherwise the error gives the smallest eigenvalue.
func NewBilinear(w *mat.SymDense) (*Bilinear, error) {
	return newBilinear("bilinear", w)
}

func newBilinear(name string, w *mat.SymDense) (*Bilinear, error) {
	m := w.SymmetricDim()
	if m == 0 {
		return nil, invalidf("bilinear: empty matrix")
	}
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			if v := w.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, invalidf("bilinear: W[%d][%d] is %v", i+1, j+1, v)
			}
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(w, true) {
		return nil, invalidf("bilinear: eigen-decomposition failed")
	}
	vals := eig.Values(nil) // ascending
	scale := math.Max(1, math.Abs(vals[len(vals)-1]))
	if vals[0] < -psdTolerance*scale {
		return nil, invalidf("bilinear: W is not positive semi-definite (smallest eigenvalue %.6g)", vals[0])
	}
	if !(vals[len(vals)-1] > 0) {
		// Every distance would be 0: every candidate tied, no link (the weighted mean
		// refuses weights summing to 0 likewise).
		return nil, invalidf("bilinear: W is zero (want a non-zero positive semi-definite W)")
	}
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	// W = V Λ Vᵀ, so xᵀWx = |Λ^{1/2} Vᵀ x|²: T = Λ^{1/2} Vᵀ.
	t := mat.NewDense(m, m, nil)
	for k := 0; k < m; k++ {
		s := math.Sqrt(math.Max(vals[k], 0))
		for i := 0; i < m; i++ {
			t.Set(k, i, s*vecs.At(i, k))
		}
	}
	b := &Bilinear{name: name, w: mat.NewSymDense(m, nil), t: t}
	b.w.CopySym(w)
	for i := 0; i < m; i++ {
		for j := i; j < m; j++ {
			b.theta = append(b.theta, w.At(i, j))
		}
	}
	return b, nil
}

func (b *Bilinear) Name() string          { return b.name }
func (b *Bilinear) Attributes() int       { return b.w.SymmetricDim() }
func (b *Bilinear) Params() []float64     { return b.theta }
func (b *Bilinear) Transform() *mat.Dense { return b.t }

// Matrix returns W.
func (b *Bilinear) Matrix() *mat.SymDense { return b.w }

func (b *Bilinear) Distance(a, c []float64) float64 {
	m := b.w.SymmetricDim()
	s := 0.0
	for i := 0; i < m; i++ {
		xi := a[i] - c[i]
		row := 0.0
		for j := 0; j < m; j++ {
			row += b.w.At(i, j) * (a[j] - c[j])
		}
		s += xi * row
	}
	return s
}

func (b *Bilinear) Features(dst, a, c []float64) []float64 {
	m := b.w.SymmetricDim()
	dst = dst[:len(b.theta)]
	k := 0
	for i := 0; i < m; i++ {
		xi := a[i] - c[i]
		for j := i; j < m; j++ {
			f := xi * (a[j] - c[j])
			if j != i {
				f *= 2
			}
			dst[k] = f
			k++
		}
	}
	return dst
}

// NewMahalanobis returns the Mahalanobis distance xᵀ Σ⁻¹ x (Mahalanobis 1936) for a
// covariance matrix Σ, as a bilinear form scaled to trace 1 (scaling changes no link).
// Σ must be positive definite. Use TruePairCovariance for the record-linkage variant whose
// Σ is the covariance of the differences between true pairs (Torra, Abowd & Domingo-Ferrer,
// "Using Mahalanobis distance-based record linkage for disclosure risk assessment", 2006).
func NewMahalanobis(cov *mat.SymDense) (*Bilinear, error) {
	var ch mat.Cholesky
	if !ch.Factorize(cov) {
		return nil, invalidf("mahalanobis: the covariance matrix is not positive definite (a constant or collinear attribute?)")
	}
	var inv mat.SymDense
	if err := ch.InverseTo(&inv); err != nil {
		return nil, invalidf("mahalanobis: %v", err)
	}
	tr := 0.0
	m := inv.SymmetricDim()
	for i := 0; i < m; i++ {
		tr += inv.At(i, i)
	}
	inv.ScaleSym(1/tr, &inv)
	return newBilinear("mahalanobis", &inv)
}

// Covariance returns the sample covariance (n−1) of the rows of a column-major matrix
// (x[j][i] is attribute j of record i), with gonum's stat.CovarianceMatrix.
func Covariance(x [][]float64) *mat.SymDense {
	n, m := len(x[0]), len(x)
	d := mat.NewDense(n, m, nil)
	for j := 0; j < m; j++ {
		d.SetCol(j, x[j])
	}
	var cov mat.SymDense
	stat.CovarianceMatrix(&cov, d, nil)
	return &cov
}

// TruePairCovariance returns the covariance of a − b over true pairs: for original record
// i, a = original[·][i] and b = masked[·][truth[i]] (column-major standardised values).
// An original record with truth[i] < 0 has no partner (−1, as everywhere in the module)
// and is left out. With fewer than two true pairs the covariance is undefined and every
// entry is NaN, which NewMahalanobis refuses. truth has an entry per original record,
// each a masked record or negative; an entry out of range panics (the signature has no
// error, and cmd/reid calls it with a pairing's truth).
func TruePairCovariance(original, masked [][]float64, truth []int) *mat.SymDense {
	m := len(original)
	pairs := 0
	for _, t := range truth {
		if t >= 0 {
			pairs++
		}
	}
	if pairs == 0 {
		// Covariance cannot build a matrix of no rows; one row gives NaN (0/0) as well.
		nan := make([]float64, m*m)
		for x := range nan {
			nan[x] = math.NaN()
		}
		return mat.NewSymDense(m, nan)
	}
	diff := make([][]float64, m)
	for j := 0; j < m; j++ {
		diff[j] = make([]float64, 0, pairs)
		for i, t := range truth {
			if t >= 0 {
				diff[j] = append(diff[j], original[j][i]-masked[j][t])
			}
		}
	}
	return Covariance(diff)
}
