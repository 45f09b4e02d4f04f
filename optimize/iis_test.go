package optimize

import (
	"math/rand/v2"
	"testing"
)

// The deletion filter's sets on the bilinear family (eigenvector cuts in the LPs): each
// set returned by iis lies in the checked set and is infeasible on the shared subproblem
// (every generated row and cut of its records, rows generated until settled).
// Irreducibility holds only against the rows generated when the filter ran (a record
// stays in when the rest is feasible on those rows), so it is logged, not asserted.
func TestIISBilinear(t *testing.T) {
	const eps = 1e-4
	// Six attributes (21 parameters): sets of a few records are infeasible, and the
	// eigenvector cuts settle quickly.
	p := census(t, "rankswap_p15", 60)
	p.Queries, p.Refs, p.Family = p.Queries[:6], p.Refs[:6], Bilinear
	sv := testSolver(t, p, eps, 3)
	n := len(sv.d.recs)
	rng := rand.New(rand.NewPCG(5, 6))
	sets, reducible := 0, 0
	for trial := 0; trial < 40 && sets < 6; trial++ {
		L := make([]bool, n)
		for _, i := range rng.Perm(n)[:20] {
			L[i] = !sv.fixed[i]
		}
		sv.activate(L)
		if sv.solveSub() != infeasible {
			continue
		}
		S := sv.iis()
		if S == nil {
			continue
		}
		sets++
		in := make([]bool, n)
		for _, i := range S {
			if !L[i] {
				t.Fatalf("set %v: record %d was not in the checked set", S, i)
			}
			in[i] = true
		}
		sv.activate(in)
		if got := sv.solveSub(); got != infeasible {
			t.Errorf("set %v: the subproblem says %v, want infeasible", S, got)
		}
		for _, i := range S {
			in[i] = false
			sv.activate(in)
			if sv.solveSub() == infeasible {
				reducible++
			}
			in[i] = true
		}
	}
	if sets < 3 {
		t.Fatalf("%d infeasible sets: the test exercises nothing", sets)
	}
	t.Logf("%d sets; %d of their records could be dropped on all rows; %d family cuts", sets, reducible, len(sv.famCuts))
}

// BenchmarkCheck times the search's check of a set of records (the θ-LP with row
// generation, then a deletion filter per infeasible set found, until the rest links) on
// random halves of the first N CENSUS records of rankswap_p15: WM on 300 records, the
// bilinear form on 150, all 13 attributes. It is the work of the tree's nodes and the
// blocks' searches (the θ-LPs, most of it the deletion filter's), without the solver's
// set-up, and reports the cuts found (the same in every run: no time limit):
// go test -run XXX -bench Check -benchtime 3x ./optimize
func BenchmarkCheck(b *testing.B) {
	for _, c := range []struct {
		family Family
		n      int
	}{{WM, 300}, {Bilinear, 150}} {
		b.Run(c.family.String(), func(b *testing.B) {
			p := census(b, "rankswap_p15", c.n)
			p.Family = c.family
			for b.Loop() {
				b.StopTimer()
				sv := testSolver(b, p, DefaultEpsilon, 0)
				sv.initSubproblem()
				b.StartTimer()
				n := len(sv.d.recs)
				rng := rand.New(rand.NewPCG(7, 8))
				weight := make([]float64, n)
				cuts := 0
				for range 10 {
					L := make([]bool, n)
					for _, i := range rng.Perm(n)[:n/2] {
						L[i] = !sv.fixed[i]
					}
					_, S, done := sv.check(L, weight)
					if !done {
						b.Fatal("check not done without a time limit")
					}
					cuts += len(S)
				}
				b.ReportMetric(float64(cuts), "cuts")
			}
		})
	}
}
