package optimize

import (
	"math"
	"slices"

	"github.com/reid-sdc/reid/optimize/clp"
)

// canonicalMaxRows bounds the rows of the LP canonicalTheta solves (about a second of
// CLP at most): the candidate rows of every linked record.
const canonicalMaxRows = 200_000

// canonicalTheta returns parameters that link exactly the records marked in linked with
// the largest smallest margin over their candidate rows: max t subject to θ·a ≥ ε′ + t
// for every candidate row a of every linked record (ε′ = ε + lpSlack, the search's LP
// margin, so that rounding in the LP leaves margins ≥ ε), θ in the family, t ≥ 0 (CLP's
// vertex for this row order where the maximum has several). It depends on the linked set
// and the prepared rows only, not on the path of the search: a search that proves its
// optimum within a finite time limit ends on whichever of several optimal θ its phases
// reached in their shares of the time, and this gives every such run the same answer
// when the optimal set is the same. The rows dropped by dominance are implied by a kept
// one and the others exceed ε + lpSlack for every θ, so the θ found links every record
// of the set. It serves WM and OWA; it returns nil for the other families, for nothing
// linked, above canonicalMaxRows, when CLP does not find the optimum, or when the θ found
// does not link exactly the set.
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
	lp := clp.New()
	defer lp.Close()
	lp.SetPrimalTolerance(lpPrimalTol)
	lo, up := sp.bounds()
	n := len(lo)
	if err := lp.LoadProblem(0, make([]int, n+1), nil, nil, lo, up, make([]float64, n), nil, nil); err != nil {
		return nil
	}
	for _, r := range sp.rows() {
		if lp.AddRow(r.lo, r.up, r.idx, r.val) != nil {
			return nil
		}
	}
	// t: minimise −t.
	if lp.AddColumns([]float64{0}, []float64{math.Inf(1)}, []float64{-1}, []int{0, 0}, nil, nil) != nil {
		return nil
	}
	// One call for all rows (CLP copies its matrix on each addition).
	rlo, rup := make([]float64, 0, rows), make([]float64, 0, rows)
	start := make([]int, 1, rows+1)
	var idx []int
	var val []float64
	for i := range sv.d.recs {
		if !linked[i] {
			continue
		}
		r := &sv.d.recs[i]
		for c := range r.ncand() {
			idx, val = sp.row(sv.d, r, c, idx, val)
			idx, val = append(idx, n), append(val, -1)
			rlo, rup = append(rlo, sv.epsLP), append(rup, math.Inf(1))
			start = append(start, len(idx))
		}
	}
	if lp.AddRows(rlo, rup, start, idx, val) != nil {
		return nil
	}
	// The simplex has no family cuts (sp.cuts): one solve.
	if lp.Dual() != clp.Optimal {
		return nil
	}
	theta := lp.Solution(nil)[:sp.dim()]
	sp.project(theta)
	if got, _ := sv.linkedSet(theta); !slices.Equal(got, linked) {
		// Rounding lost a record, or a record outside the set, at a margin in [ε, ε +
		// lpSlack) that the proof does not count, came in: keep the search's θ.
		return nil
	}
	return theta
}
