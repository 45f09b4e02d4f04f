package optimize

import (
	"math"
	"slices"

	"github.com/reid-sdc/reid/optimize/clp"
)

// canonicalMaxRows bounds the rows of the LP canonicalTheta solves (a few tenths of a
// second of the game at most; 401,281 rows took 1.5 s): the candidate rows of every
// linked record.
const canonicalMaxRows = 200_000

// canonicalTheta returns parameters that link exactly the records marked in linked with
// the largest smallest margin over their candidate rows: max t subject to θ·a ≥ ε′ + t
// for every candidate row a of every linked record (ε′ = ε + lpSlack, the search's LP
// margin, so that rounding in the LP leaves margins ≥ ε), θ in the family, t ≥ 0 (the
// game's vertex for this row order where the maximum has several). It depends on the linked set
// and the prepared rows only, not on the path of the search: a search that proves its
// optimum within a finite time limit ends on whichever of several optimal θ its phases
// reached in their shares of the time, and this gives every such run the same answer
// when the optimal set is the same. The rows dropped by dominance are implied by a kept
// one and the others exceed ε + lpSlack for every θ, so the θ found links every record
// of the set. It serves WM and OWA; it returns nil for the other families, for nothing
// linked, above canonicalMaxRows, when the game does not end optimal, or when the θ found
// does not link exactly the set.
//
// The LP is the simplex families' matrix game (gamelp.go), max_θ min_r (a_r·θ − ε′) over
// the simplex, solved cold in a game of its own: with a basis of m + 1 columns it took
// 0.27 s where CLP's dual simplex took 27 s and its initial solve 1.7 s (indrank_k3,
// 1,080 records, WM: 123,856 rows of 13 columns), and CLP's scaled simplex could stop
// "optimal" short of the maximum (TestCanonicalGameMaximin).
func (sv *solver) canonicalTheta(linked []bool) []float64 {
	sp := sv.d.sp
	if _, ok := sp.(*simplexSpace); !ok {
		// The bilinear form's PSD cone is no finite LP; the Choquet integrals' columns
		// made it far slower than the searches (full Choquet, 20 CENSUS records: 0.0 →
		// 32.6 s; choquet2, 34,671 rows: 12 s where WM takes 0.13 s).
		return nil
	}
	rows, size := 0, 0
	for i := range sv.d.recs {
		if linked[i] {
			rows += sv.d.recs[i].ncand()
			size++
		}
	}
	if rows > canonicalMaxRows || size == 0 {
		return nil // too large; or nothing linked, where any θ would do and Euclidean stays
	}
	theta := canonicalGame(sv.d, linked, sv.epsLP, rows)
	if theta == nil {
		return nil
	}
	sp.project(theta)
	if got, _ := sv.linkedSet(theta); !slices.Equal(got, linked) {
		// Rounding lost a record, or a record outside the set, at a margin in [ε, ε +
		// lpSlack) that the proof does not count, came in: keep the search's θ.
		return nil
	}
	return theta
}

// canonicalGame solves the canonical LP of the records marked in linked (rows: their
// number of candidate rows) in a fresh game with the rows in record and candidate order,
// and returns its maximin θ (margins ≥ eps, up to the game's rounding, when the records
// can be linked together), or nil when the game does not end optimal.
func canonicalGame(d *data, linked []bool, eps float64, rows int) []float64 {
	sp := d.sp
	m := sp.dim()
	g := newGameLP(m)
	for _, r := range sp.rows() {
		if g.AddRows([]float64{r.lo}, []float64{r.up}, []int{0, len(r.idx)}, r.idx, r.val) != nil {
			return nil
		}
	}
	rlo, rup := make([]float64, 0, rows), make([]float64, 0, rows)
	start := make([]int, 1, rows+1)
	var idx []int
	var val []float64
	for i := range d.recs {
		if !linked[i] {
			continue
		}
		r := &d.recs[i]
		for c := range r.ncand() {
			idx, val = sp.row(d, r, c, idx, val)
			rlo, rup = append(rlo, eps), append(rup, math.Inf(1))
			start = append(start, len(idx))
		}
	}
	if g.AddRows(rlo, rup, start, idx, val) != nil {
		return nil
	}
	if g.solve() != clp.Optimal {
		return nil
	}
	return g.Solution(nil)
}
