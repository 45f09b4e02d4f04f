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
