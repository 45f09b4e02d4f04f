package optimize

import (
	"fmt"
	"slices"
)

// CheckHierarchy verifies the inclusions between families on results of the same problem
// and ε (design note §4 (6)): when family B contains family A (Family.Contains), the best
// distance of B links at least as many records as the best of A, so B's proven bound must
// be at least A's achieved links, and, where both are proven optimal, Reid(B) ≥ Reid(A);
// every family contains the Euclidean distance, so each bound is at least its
// EuclideanLinks. Together: Reid(Choquet) ≥ max(Reid(WM), Reid(OWA)) ≥ Reid(Euclidean) and
// Reid(bilinear) ≥ Reid(WM). A violation is a bug in the search (a wrong proof), reported
// as an error naming the two results.
func CheckHierarchy(results []Result) error {
	for _, b := range results {
		if b.Bound < b.EuclideanLinks {
			return fmt.Errorf("optimize: internal error: %v's proven bound %d is below the %d records the Euclidean distance links", b.Family, b.Bound, b.EuclideanLinks)
		}
		for _, a := range results {
			if a.Family == b.Family || !b.Family.Contains(a.Family) {
				continue
			}
			if a.N != b.N || a.Epsilon != b.Epsilon {
				return fmt.Errorf("optimize: CheckHierarchy: %v and %v results are of different problems", a.Family, b.Family)
			}
			if b.Bound < a.CorrectLinks {
				return fmt.Errorf("optimize: internal error: %v contains %v, yet its proven bound %d is below the %d records %v links", b.Family, a.Family, b.Bound, a.CorrectLinks, a.Family)
			}
		}
	}
	return nil
}

// Lower returns the families f contains, other than itself, in the order to learn them
// (their optima warm-start f's search): WM for bilinear and the 2-additive Choquet, WM,
// OWA and the 2-additive Choquet for the Choquet integral.
func (f Family) Lower() []Family {
	var out []Family
	for _, g := range []Family{WM, OWA, Bilinear, Choquet2, Choquet} {
		if g != f && f.Contains(g) {
			out = append(out, g)
		}
	}
	return out
}

// WarmStarts lifts the parameters of every result whose family f contains (other than f
// itself) into f's layout (Family.Lift), for Settings.WarmStarts: the most correct links
// first (ties in the order given), since a search stopped before it starts answers with
// the first.
func (f Family) WarmStarts(results []Result) ([][]float64, error) {
	results = slices.Clone(results)
	slices.SortStableFunc(results, func(a, b Result) int { return b.CorrectLinks - a.CorrectLinks })
	var out [][]float64
	for _, r := range results {
		if r.Family == f || !f.Contains(r.Family) {
			continue
		}
		w, err := f.Lift(r.Family, r.Params)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, nil
}
