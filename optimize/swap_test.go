package optimize

import (
	"testing"
	"time"
)

// testSolver prepares p and returns a one-thread solver over it with initialRows rows
// per record at the start (closed when the test ends).
func testSolver(t testing.TB, p Problem, eps float64, initialRows int) *solver {
	t.Helper()
	sp, err := newSpace(p.Family, len(p.Queries))
	if err != nil {
		t.Fatal(err)
	}
	d := prepare(p, sp, eps, 1)
	sv := newSolver(d, Settings{Epsilon: eps, InitialRows: initialRows, Threads: 1}, time.Now())
	t.Cleanup(sv.close)
	return sv
}

// swapProblem is a hand-made WM case (θ = (w, 1 − w), squared differences) with two twin
// groups, where linking one more record needs a record given up for its twin:
//
//	group H, query (0, 0): b (ref (0, 2), distance 4(1 − w)) is linked for w > 0.8,
//	    b′ (ref (1, 0), distance w) for w < 0.8;
//	group G, query (10, 10): a (ref (11, 10), distance w) competes with c's ref (10, 11),
//	    distance 1 − w, and is linked for w < 0.5; a₂ (ref (12, 12), distance 4) never;
//	c, query (−20, −20): its ref (10, 11) is never its nearest (ref (0, 2) is nearer).
//
// At w = 0.9 only b is linked; the most is two (b′ and a, for w < 0.5).
func swapProblem() Problem {
	// Column-major: Queries[k][i], records b, b′, a, a₂, c.
	return Problem{
		Queries: [][]float64{{0, 0, 10, 10, -20}, {0, 0, 10, 10, -20}},
		Refs:    [][]float64{{0, 1, 11, 12, 10}, {2, 0, 10, 12, 11}},
		Truth:   identity(5),
		Family:  WM,
	}
}

// The swap search reaches the two links from w = 0.9, where polish (which only adds
// records) stays at one: the move that gives up b for its twin b′ is the one needed.
func TestSwap(t *testing.T) {
	const eps = 1e-4
	start := []float64{0.9, 0.1}
	for _, tc := range []struct {
		name  string
		run   func(sv *solver)
		links int
	}{
		{"polish", func(sv *solver) { sv.polish(sv.bestTheta) }, 1},
		{"swap", func(sv *solver) { sv.swap(sv.bestTheta, 0) }, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := testSolver(t, swapProblem(), eps, 1)
			d := sv.d
			sv.twinCuts()
			if len(sv.twinRows) != 2 {
				t.Fatalf("%d twin rows, want 2 (H and G)", len(sv.twinRows))
			}
			copy(sv.bestTheta, start)
			if got := linkedAt(d, sv.bestTheta, eps); got != 1 {
				t.Fatalf("w = 0.9 links %d records, want 1 (b)", got)
			}
			sv.bestFail = len(d.recs) - 1
			tc.run(sv)
			got := linkedAt(d, sv.bestTheta, eps)
			if got != tc.links || len(d.recs)-sv.bestFail != got {
				t.Errorf("θ = %v links %d (incumbent %d), want %d", sv.bestTheta, got, len(d.recs)-sv.bestFail, tc.links)
			}
			if tc.links == 2 && !(sv.bestTheta[0] < 0.5) {
				t.Errorf("w = %g: b′ and a are linked only for w < 0.5", sv.bestTheta[0])
			}
		})
	}
}
