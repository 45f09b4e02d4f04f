package optimize

import (
	"math"
	"slices"
	"testing"
)

// TestCanonicalTheta: two searches that take different paths to the same optimum (other
// seeds for the local search's kicks, other numbers of initial rows) ended on parameters
// that differed in their last bits (0.06725261608225876 and …880 on the first weight
// here); the parameters are now those of the largest smallest margin over the linked
// set's rows, the same bits for both, and they link the optimal number of records.
func TestCanonicalTheta(t *testing.T) {
	for _, f := range []Family{WM, OWA} {
		p := census(t, "noise_additive_50", 40)
		p.Family = f
		var first Result
		for x, s := range []Settings{{Seed: 1}, {Seed: 7, InitialRows: 1}} {
			r, err := Learn(p, s)
			if err != nil {
				t.Fatal(err)
			}
			if r.Status != Optimal {
				t.Fatalf("%v: status %v", f, r.Status)
			}
			if x == 0 {
				first = r
				continue
			}
			if r.CorrectLinks != first.CorrectLinks {
				t.Fatalf("%v: %d and %d links", f, first.CorrectLinks, r.CorrectLinks)
			}
			for k := range r.Params {
				if math.Float64bits(r.Params[k]) != math.Float64bits(first.Params[k]) {
					t.Errorf("%v: parameter %d is %v and %v", f, k, first.Params[k], r.Params[k])
					break
				}
			}
		}
	}
}

// TestCanonicalThetaExactSet: given a set that is not optimal (the Euclidean distance's
// links), the canonical parameters link exactly that set, or none are returned: a θ that
// linked more would contradict the search's count of failures.
func TestCanonicalThetaExactSet(t *testing.T) {
	for _, f := range []Family{WM, OWA} {
		p := census(t, "noise_additive_50", 40)
		p.Family = f
		sv := testSolver(t, p, DefaultEpsilon, 3)
		linked, n := sv.linkedSet(sv.bestTheta)
		theta := sv.canonicalTheta(linked)
		if theta == nil {
			continue
		}
		got, m := sv.linkedSet(theta)
		if !slices.Equal(got, linked) {
			t.Errorf("%v: the canonical θ links %d records, the set %d", f, m, n)
		}
	}
}
