package optimize

import (
	"math"
	"slices"

	"github.com/reid-sdc/reid/optimize/clp"
)

// canonicalMaxRows bounds the rows of the LP canonicalTheta solves, the candidate rows of
// every linked record, which each round of its row generation evaluates (401,281 rows
// took 21 ms in all).
const canonicalMaxRows = 2_000_000

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
// the simplex, in a game of its own with rows generated as violated (canonicalGame): 8 ms
// where the game holding every row took 0.27 s, CLP's dual simplex 27 s and its initial
// solve 1.7 s (indrank_k3, 1,080 records, WM: 123,856 rows of 13 columns); CLP's scaled
// simplex could also stop "optimal" short of the maximum (TestCanonicalGameMaximin).
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
	theta := canonicalGame(sv.d, linked, sv.epsLP)
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

// canonicalGame solves the canonical LP of the records marked in linked by row generation
// in a fresh game: it starts from each record's first canonicalInitialRows candidate rows
// (the nearest competitors), and after each solve adds every row whose margin under the
// game's θ is below the game's value (the smallest margin over the rows it holds), in
// record and candidate order, until none is. The value never rises as rows come in, so
// the last θ is the maximin over all the rows: the value of the full LP, reached from
// the linked set and the prepared rows alone. It returns nil when a solve does not end
// optimal.
func canonicalGame(d *data, linked []bool, eps float64) []float64 {
	sp := d.sp
	m := sp.dim()
	g := newGameLP(m)
	for _, r := range sp.rows() {
		if g.AddRows([]float64{r.lo}, []float64{r.up}, []int{0, len(r.idx)}, r.idx, r.val) != nil {
			return nil
		}
	}
	var recs []int
	inGame := make([][]bool, len(d.recs))
	rows := 0
	for i := range d.recs {
		if linked[i] {
			recs = append(recs, i)
			inGame[i] = make([]bool, d.recs[i].ncand())
			rows += d.recs[i].ncand()
		}
	}
	// The rows waiting to be added, in CSR form (each a·θ ≥ eps).
	start := []int{0}
	var idx []int
	var val []float64
	add := func(i, c int) {
		inGame[i][c] = true
		idx, val = sp.row(d, &d.recs[i], c, idx, val)
		start = append(start, len(idx))
	}
	flush := func() bool {
		n := len(start) - 1
		err := g.AddRows(slices.Repeat([]float64{eps}, n), slices.Repeat([]float64{math.Inf(1)}, n), start, idx, val)
		start, idx, val = start[:1], idx[:0], val[:0]
		return err == nil
	}
	for _, i := range recs {
		for c := range min(canonicalInitialRows, d.recs[i].ncand()) {
			add(i, c)
		}
	}
	if len(start) > 1 && !flush() {
		return nil
	}
	// margins holds every linked record's margins, one record after another.
	margins := make([]float64, rows)
	for {
		if g.solve() != clp.Optimal {
			return nil
		}
		theta := g.Solution(nil)
		ev := sp.evaluator(d, theta)
		value := math.Inf(1)
		at := 0
		for _, i := range recs {
			n := copy(margins[at:], ev.margins(&d.recs[i], margins[at:at]))
			for c, v := range margins[at : at+n] {
				if inGame[i][c] {
					value = min(value, v)
				}
			}
			at += n
		}
		at = 0
		for _, i := range recs {
			for c, v := range margins[at : at+d.recs[i].ncand()] {
				if !inGame[i][c] && v < value-canonicalTol*(1+math.Abs(value)) {
					add(i, c)
				}
			}
			at += d.recs[i].ncand()
		}
		if len(start) == 1 {
			return theta
		}
		if !flush() {
			return nil
		}
	}
}

// canonicalInitialRows is the number of each record's nearest candidate rows the
// canonical LP starts from; canonicalTol the relative margin below the game's value at
// which a row is added (rows at the value itself are ties of the optimum).
const (
	canonicalInitialRows = 3
	canonicalTol         = 1e-12
)
