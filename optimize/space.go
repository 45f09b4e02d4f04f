package optimize

import (
	"fmt"

	"github.com/reid-sdc/reid/distances"
	"gonum.org/v1/gonum/floats"
)

// famRow is a linear constraint on θ alone, lo ≤ Σ val·θ[idx] ≤ up, that every member of
// a family satisfies: a normalisation, a monotonicity constraint of a fuzzy measure, an
// eigenvector cut of the PSD cone. Such rows never belong to a record (their rowRec is
// −1), so certificates that use them still prove covering cuts over records only.
type famRow struct {
	idx    []int
	val    []float64
	lo, up float64
}

// space is what the search needs to know of a family: its parameter set (columns, bounds,
// rows, cuts for the constraints that are not kept whole in the LP, and a projection onto
// the family for an LP point that violates them within tolerance), its competitor rows
// a = φ(i, j) − φ(i, t(i)), and their values θ·a.
type space interface {
	// dim is the number of parameters θ, the θ-LP's first columns; aux columns may
	// follow them (bounds and objective cover both).
	dim() int
	bounds() (lo, up []float64)
	// objective is the θ-LP's objective (nil: none). The θ-LP is a feasibility problem;
	// an objective only steers which feasible point it returns.
	objective() []float64
	// rows are the family's constraints present in every θ-LP from the start (they may
	// involve the aux columns).
	rows() []famRow
	// euclidean is the Euclidean distance in the family's parameters (every family
	// contains it, up to a positive factor that changes no link).
	euclidean() []float64
	// cuts returns constraints of the family that θ violates by more than rounding; nil
	// when θ is in the family up to rounding.
	cuts(theta []float64) []famRow
	// project maps θ, in place, to a member of the family at most rounding away.
	project(theta []float64)
	// exportRows are the family's constraints in an exported model: rows() and, where
	// the family is a polytope, all of its constraints; found are the cuts the search
	// added (the PSD cone is exported as its 2×2 minors and the eigenvector cuts found, if any).
	exportRows(found []famRow) []famRow
	operator(theta []float64) (distances.Operator, error)
	// prepare fills the record's candidates (competitor rows that can be violated and
	// are not implied) and sets impossible when no θ of the family links it.
	prepare(d *data, r *rec, w *prepWorker)
	// row appends the LP row of candidate c of r (sparse, increasing columns, no zeros).
	row(d *data, r *rec, c int, idx []int, val []float64) ([]int, []float64)
	// evaluator returns θ·a for every candidate of a record, θ a member of the family.
	evaluator(d *data, theta []float64) evaluator
}

// evaluator computes a record's margins θ·a = d_θ(i, j) − d_θ(i, t(i)) for all its
// candidates j, in candidate order.
type evaluator interface {
	margins(r *rec, dst []float64) []float64
}

// newSpace returns the parameter space of family f on m attributes.
func newSpace(f Family, m int) (space, error) {
	switch f {
	case WM, OWA:
		return &simplexSpace{family: f, m: m}, nil
	case Choquet:
		if m > MaxFullChoquetAttributes {
			return nil, fmt.Errorf("optimize: the Choquet integral learns all 2^m − 2 measure values for at most %d attributes, got %d", MaxFullChoquetAttributes, m)
		}
		return newChoquetSpace(m), nil
	case Choquet2:
		if m > distances.MaxChoquetAttributes {
			return nil, fmt.Errorf("optimize: the 2-additive Choquet integral is evaluated through its measure, for at most %d attributes, got %d", distances.MaxChoquetAttributes, m)
		}
		return newChoquet2Space(m), nil
	case Bilinear:
		return newBilinearSpace(m), nil
	}
	return nil, fmt.Errorf("optimize: unknown family %d", int(f))
}

// simplexSpace is WM or OWA: θ on the simplex, rows the diffs (sorted decreasingly for
// OWA) of the competitor minus those of the true partner, stored densely per candidate.
type simplexSpace struct {
	family Family
	m      int
}

func (s *simplexSpace) dim() int { return s.m }

func (s *simplexSpace) bounds() (lo, up []float64) {
	lo, up = make([]float64, s.m), make([]float64, s.m)
	for k := range up {
		up[k] = 1
	}
	return lo, up
}

func (s *simplexSpace) objective() []float64 { return nil }

func (s *simplexSpace) rows() []famRow { return []famRow{simplexRow(s.m)} }

// simplexRow is Σ θ = 1.
func simplexRow(m int) famRow {
	r := famRow{lo: 1, up: 1}
	for k := range m {
		r.idx = append(r.idx, k)
		r.val = append(r.val, 1)
	}
	return r
}

func (s *simplexSpace) euclidean() []float64 {
	t := make([]float64, s.m)
	for k := range t {
		t[k] = 1 / float64(s.m)
	}
	return t
}

func (s *simplexSpace) cuts([]float64) []famRow                          { return nil }
func (s *simplexSpace) exportRows(found []famRow) []famRow               { return s.rows() }
func (s *simplexSpace) project(theta []float64)                          { projectSimplex(theta) }
func (s *simplexSpace) operator(t []float64) (distances.Operator, error) { return s.family.Operator(t) }

// projectSimplex clamps θ to [0, 1] and rescales it to sum 1: an LP point is on the
// simplex within CLP's tolerance, and rescaling changes no margin's sign.
func projectSimplex(theta []float64) {
	s := 0.0
	for k := range theta {
		theta[k] = min(max(theta[k], 0), 1)
		s += theta[k]
	}
	for k := range theta {
		theta[k] /= s
	}
}

func (s *simplexSpace) prepare(d *data, r *rec, w *prepWorker) {
	w.diffRows(d, r, s.family == OWA)
}

func (s *simplexSpace) row(d *data, r *rec, c int, idx []int, val []float64) ([]int, []float64) {
	return appendNonZero(d.candRow(r, c, nil), idx, val)
}

// appendNonZero appends the non-zero entries of a with their columns.
func appendNonZero(a []float64, idx []int, val []float64) ([]int, []float64) {
	for k, v := range a {
		if v != 0 {
			idx = append(idx, k)
			val = append(val, v)
		}
	}
	return idx, val
}

func (s *simplexSpace) evaluator(d *data, theta []float64) evaluator {
	return &denseEvaluator{d: d, theta: theta, buf: make([]float64, s.m)}
}

// denseEvaluator is θ·a over the dense candidate rows (buf: scratch for rows that are
// recomputed, see data.candRow).
type denseEvaluator struct {
	d     *data
	theta []float64
	buf   []float64
}

func (e *denseEvaluator) links(r *rec, eps float64) bool {
	for c := range r.ncand() {
		if floats.Dot(e.theta, e.d.candRow(r, c, e.buf)) < eps {
			return false
		}
	}
	return true
}

func (e *denseEvaluator) margins(r *rec, dst []float64) []float64 {
	dst = dst[:0]
	for c := range r.ncand() {
		dst = append(dst, floats.Dot(e.theta, e.d.candRow(r, c, e.buf)))
	}
	return dst
}
