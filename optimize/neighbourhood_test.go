package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// lineProblem is a WM case on two attributes, θ = (w, 1 − w) (squared differences): n
// records, each masked with noise mostly in one attribute (the first half in the first,
// the rest in the second), so that different records are linked at different w.
func lineProblem(n int, seed uint64) Problem {
	rng := rand.New(rand.NewPCG(seed, 1))
	q := [][]float64{make([]float64, n), make([]float64, n)}
	r := [][]float64{make([]float64, n), make([]float64, n)}
	for i := range n {
		big := 0
		if i >= n/2 {
			big = 1
		}
		for k := range 2 {
			q[k][i] = rng.NormFloat64()
			s := 0.15
			if k == big {
				s = 0.6
			}
			r[k][i] = q[k][i] + s*rng.NormFloat64()
		}
	}
	return Problem{Queries: q, Refs: r, Truth: identity(n), Family: WM}
}

// rawLinks is the set of records that (w, 1 − w) links with margin ≥ eps, from the raw
// coordinates: every other reference j has d(i, j) − d(i, i) ≥ eps.
func rawLinks(p Problem, w, eps float64) []bool {
	n := len(p.Truth)
	d := func(i, j int) float64 {
		a, b := p.Queries[0][i]-p.Refs[0][j], p.Queries[1][i]-p.Refs[1][j]
		return w*a*a + (1-w)*b*b
	}
	out := make([]bool, n)
	for i := range n {
		out[i] = true
		for j := range n {
			if j != i && d(i, j)-d(i, i) < eps {
				out[i] = false
				break
			}
		}
	}
	return out
}

// linePoints are the values of w where some record's set of linking w (an interval) may
// start or end, with the midpoints between them and the ends of [0, 1]: every set of
// records linked together at some w is linked at one of them.
func linePoints(p Problem, eps float64) []float64 {
	n := len(p.Truth)
	pts := []float64{0, 1}
	for i := range n {
		for j := range n {
			if j == i {
				continue
			}
			var delta [2]float64
			for k := range 2 {
				a, b := p.Queries[k][i]-p.Refs[k][j], p.Queries[k][i]-p.Refs[k][i]
				delta[k] = a*a - b*b
			}
			// w·Δ₁ + (1 − w)·Δ₂ = eps
			if den := delta[0] - delta[1]; den != 0 {
				if w := (eps - delta[1]) / den; 0 < w && w < 1 {
					pts = append(pts, w)
				}
			}
		}
	}
	slices.Sort(pts)
	pts = slices.Compact(pts)
	for k := len(pts) - 1; k > 0; k-- {
		pts = append(pts, (pts[k-1]+pts[k])/2)
	}
	return pts
}

func trueCount(set []bool) int {
	n := 0
	for _, on := range set {
		if on {
			n++
		}
	}
	return n
}

// The neighbourhood's search finds the most records linkable while the kept ones stay
// linked, against a sweep over w on the raw data: from w₀, keeping the records linked at
// both w₀ and another point w₂, where that optimum lies strictly between w₀'s links and
// the file's optimum (so that a search ignoring the kept records, or doing nothing,
// fails).
func TestSolveNeighbourhoodAgainstSweep(t *testing.T) {
	const eps = 1e-4
	p := lineProblem(40, 3)
	pts := linePoints(p, eps)
	sets := make([][]bool, len(pts))
	best := 0
	for x, w := range pts {
		sets[x] = rawLinks(p, w, eps)
		// The solver's LPs ask for ε + lpSlack: the sweep's sets must not depend on it.
		if !slices.Equal(sets[x], rawLinks(p, w, eps+1e-6)) {
			sets[x] = nil
			continue
		}
		best = max(best, trueCount(sets[x]))
	}
	// restricted is the most records linked at a point where every kept record is.
	restricted := func(keep []bool) int {
		most := 0
		for _, s := range sets {
			ok := s != nil
			for i := range keep {
				ok = ok && (!keep[i] || s[i])
			}
			if ok {
				most = max(most, trueCount(s))
			}
		}
		return most
	}
	w0, keep, want := -1.0, []bool(nil), 0
search:
	for x := range pts {
		for y := range pts {
			if sets[x] == nil || sets[y] == nil {
				continue
			}
			k := make([]bool, len(sets[x]))
			for i := range k {
				k[i] = sets[x][i] && sets[y][i]
			}
			if most := restricted(k); trueCount(sets[x]) < most && most < best && trueCount(k) < trueCount(sets[x]) {
				w0, keep, want = pts[x], k, most
				break search
			}
		}
	}
	if keep == nil {
		t.Fatal("fixture: no start and kept set whose neighbourhood optimum lies strictly between")
	}

	sv := testSolver(t, p, eps, 2)
	start := []float64{w0, 1 - w0}
	linked, n := sv.linkedSet(start)
	if !slices.Equal(linked, rawLinks(p, w0, eps)) {
		t.Fatalf("w₀ = %g: the solver's linked set differs from the raw one", w0)
	}
	copy(sv.bestTheta, start)
	sv.bestFail = len(linked) - n
	var open, release []int
	for i, on := range linked {
		switch {
		case !on:
			open = append(open, i)
		case !keep[i]:
			release = append(release, i)
		}
	}
	sv.solveNeighbourhood(linked, open, release, 0)
	got, _ := sv.linkedSet(sv.bestTheta)
	if links := len(linked) - sv.bestFail; links != want || trueCount(got) != want {
		t.Errorf("from w₀ = %g (%d links), keeping %d: incumbent %d links (θ %v links %d), want %d (file's optimum %d)",
			w0, n, trueCount(keep), links, sv.bestTheta, trueCount(got), want, best)
	}
	for i := range keep {
		if keep[i] && !got[i] {
			t.Errorf("kept record %d not linked by θ = %v", i, sv.bestTheta)
		}
	}
	if math.Abs(sv.bestTheta[0]+sv.bestTheta[1]-1) > 1e-9 {
		t.Errorf("θ = %v is not on the simplex", sv.bestTheta)
	}
}

// From a poor start, the neighbourhood search of a file (every neighbourhood size in turn,
// no time limit) reaches the file's optimum on lineProblem, which the local search that
// only adds records (polish) does not: its neighbourhoods give up linked records.
func TestNeighbourhoodsReachSweepOptimum(t *testing.T) {
	const eps = 1e-4
	p := lineProblem(40, 3)
	best := 0
	for _, w := range linePoints(p, eps) {
		best = max(best, trueCount(rawLinks(p, w, eps)))
	}
	for _, tc := range []struct {
		name string
		run  func(sv *solver)
	}{
		{"polish", func(sv *solver) { sv.polish(sv.bestTheta) }},
		{"neighbourhoods", func(sv *solver) { sv.neighbourhoods(1) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sv := testSolver(t, p, eps, 2)
			sv.blockLeaf = 5
			start := []float64{1e-3, 1 - 1e-3}
			_, n := sv.linkedSet(start)
			copy(sv.bestTheta, start)
			sv.bestFail = len(p.Truth) - n
			tc.run(sv)
			got, _ := sv.linkedSet(sv.bestTheta)
			links := len(p.Truth) - sv.bestFail
			if trueCount(got) != links {
				t.Fatalf("θ = %v links %d, incumbent says %d", sv.bestTheta, trueCount(got), links)
			}
			if reach := links == best; reach != (tc.name == "neighbourhoods") {
				t.Errorf("from %d links: %d links, file's optimum %d", n, links, best)
			}
		})
	}
}
