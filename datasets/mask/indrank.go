package mask

import (
	"cmp"
	"slices"
)

// IndividualRanking microaggregates each attribute separately (individual ranking, or
// univariate fixed-size microaggregation; Defays & Nanopoulos 1993, as reviewed in
// Domingo-Ferrer & Mateo-Sanz 2002): for every column, the records are sorted by value (ties by
// row index, as R's rank(ties.method = "first") in sdcMicro), cut into consecutive groups of
// k ranks, and each value replaced by the arithmetic mean of its group. When k does not divide
// n the last (largest-value) group absorbs the remainder, so there are ⌊n/k⌋ groups of k … 2k−1
// records; this is what sdcMicro's microaggregation(method = "onedims") does (its indexMicro:
// groups 1 … ⌈n/k⌉−2 of size k, then one group with the rest). sdcMicro refuses n < 2k; here
// k ≤ n < 2k gives one group (every value becomes the column mean).
//
// Deterministic. Errors as for MDAV.
func IndividualRanking(data [][]float64, k int) ([][]float64, error) {
	const op = "IndividualRanking"
	n, err := checkData(op, data)
	if err != nil {
		return nil, err
	}
	if err := checkK(op, k, n); err != nil {
		return nil, err
	}
	ngroups := n / k
	out := make([][]float64, len(data))
	order := make([]int, n)
	for j, col := range data {
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int {
			if c := cmp.Compare(col[a], col[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		res := make([]float64, n)
		for g := 0; g < ngroups; g++ {
			lo, hi := g*k, (g+1)*k
			if g == ngroups-1 {
				hi = n
			}
			var s float64
			for _, i := range order[lo:hi] {
				s += col[i]
			}
			m := s / float64(hi-lo)
			for _, i := range order[lo:hi] {
				res[i] = m
			}
		}
		out[j] = res
	}
	return out, nil
}
