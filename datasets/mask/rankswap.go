package mask

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
)

// RankSwap applies rank swapping (Moore 1996, "Controlled data-swapping techniques for masking
// public use microdata sets", U.S. Census Bureau; the variant of mu-Argus and sdcMicro's
// argus_rankswap), to every attribute independently:
//
//	sort the values of the attribute (ties by row index); p = ⌊percent/100 · n⌋;
//	for each rank i = 0 … n−1 not yet swapped:
//	    draw j uniformly among the ranks not yet swapped with i < j ≤ min(i + p, n−1);
//	    if there is one, exchange the values at ranks i and j and mark both swapped.
//
// Each masked column is therefore a permutation of the original column and no value moves by
// more than p ranks; percent = 0 (or p = 0) leaves the data unchanged. Draws: one
// rng.IntN(count of candidates) per rank that has a candidate, column by column, so the same
// rng state gives the same output. The candidate count and the chosen rank are found with a
// Fenwick tree, O(n log n) per column.
//
// Errors: percent < 0, > 100 or not finite, nil rng, and the data errors of MDAV.
func RankSwap(data [][]float64, percent float64, rng *rand.Rand) ([][]float64, error) {
	const op = "RankSwap"
	n, err := checkData(op, data)
	if err != nil {
		return nil, err
	}
	if err := checkPercent(op, percent, 100); err != nil {
		return nil, err
	}
	if rng == nil {
		return nil, newErr(op, ErrNilRNG, "")
	}
	window := RankSwapWindow(percent, n)
	out := cloneData(data)
	if window == 0 {
		return out, nil
	}
	order := make([]int, n)
	vals := make([]float64, n)
	free := newFenwick(n)
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
		for r, i := range order {
			vals[r] = col[i]
		}
		free.fillOnes()
		for i := 0; i < n; i++ {
			if !free.isSet(i) {
				continue
			}
			free.add(i, -1)
			hi := min(i+window, n-1)
			before := free.prefix(i) // free ranks ≤ i (all < i are taken)
			count := free.prefix(hi) - before
			if count == 0 {
				continue
			}
			r := free.find(before + rng.IntN(count) + 1)
			free.add(r, -1)
			vals[i], vals[r] = vals[r], vals[i]
		}
		for r, i := range order {
			out[j][i] = vals[r]
		}
	}
	return out, nil
}

// fenwick counts the free (not yet swapped) ranks; set[i] mirrors the point values.
type fenwick struct {
	tree []int // 1-based
	set  []bool
}

func newFenwick(n int) *fenwick {
	return &fenwick{tree: make([]int, n+1), set: make([]bool, n)}
}

// fillOnes marks every rank free, in O(n).
func (f *fenwick) fillOnes() {
	n := len(f.set)
	for i := 1; i <= n; i++ {
		f.tree[i] = i & -i // a node covers (i − lowbit(i), i]
		f.set[i-1] = true
	}
}

func (f *fenwick) isSet(i int) bool { return f.set[i] }

// add adds delta (±1) at rank i.
func (f *fenwick) add(i, delta int) {
	f.set[i] = delta > 0
	for x := i + 1; x < len(f.tree); x += x & -x {
		f.tree[x] += delta
	}
}

// prefix returns the number of free ranks in 0 … i.
func (f *fenwick) prefix(i int) int {
	s := 0
	for x := i + 1; x > 0; x -= x & -x {
		s += f.tree[x]
	}
	return s
}

// find returns the rank of the m-th free rank (m ≥ 1).
func (f *fenwick) find(m int) int {
	pos := 0
	step := 1
	for step*2 < len(f.tree) {
		step *= 2
	}
	for ; step > 0; step /= 2 {
		if next := pos + step; next < len(f.tree) && f.tree[next] < m {
			pos = next
			m -= f.tree[next]
		}
	}
	return pos // 0-based rank = (1-based pos+1) − 1
}

// RankSwapWindow is the window of RankSwap on n records: ⌊percent/100 · n⌋ ranks (0:
// nothing is swapped).
func RankSwapWindow(percent float64, n int) int {
	return int(math.Floor(percent * float64(n) / 100))
}
