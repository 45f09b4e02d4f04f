package mask

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// stableRanks returns the rank of each record in the order (value, row index).
func stableRanks(x []float64) []int {
	order := make([]int, len(x))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	rank := make([]int, len(x))
	for r, i := range order {
		rank[i] = r
	}
	return rank
}

// checkRankSwap asserts that every masked column is a permutation of the original one and
// that no value moved more than window ranks. With ties a value's original rank is only known
// to lie in the block of ranks holding that value; the displacement is the distance from the
// record's own rank to that block (exact when values are distinct).
func checkRankSwap(t *testing.T, data, masked [][]float64, window int) (moved int) {
	t.Helper()
	for j := range data {
		a, b := slices.Clone(data[j]), slices.Clone(masked[j])
		slices.Sort(a)
		slices.Sort(b)
		if !slices.Equal(a, b) {
			t.Fatalf("column %d is not a permutation of the original", j)
		}
		rank := stableRanks(data[j])
		for i, v := range masked[j] {
			lo, _ := slices.BinarySearch(a, v) // first rank holding v
			hi := lo
			for hi+1 < len(a) && a[hi+1] == v {
				hi++
			}
			disp := 0
			if r := rank[i]; r < lo {
				disp = lo - r
			} else if r > hi {
				disp = r - hi
			}
			if disp > window {
				t.Fatalf("column %d record %d: value moved %d ranks, window %d", j, i, disp, window)
			}
			if v != data[j][i] {
				moved++
			}
		}
	}
	return moved
}

func TestRankSwapProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	n := 2000
	data := [][]float64{make([]float64, n), make([]float64, n), make([]float64, n)}
	for i := 0; i < n; i++ {
		data[0][i] = rng.NormFloat64()           // distinct
		data[1][i] = float64(rng.IntN(40))       // heavy ties
		data[2][i] = math.Exp(rng.NormFloat64()) // skewed, distinct
	}
	orig := cloneData(data)
	for _, percent := range []float64{1, 5, 15, 100} {
		window := int(math.Floor(percent * float64(n) / 100))
		masked, err := RankSwap(data, percent, rand.New(rand.NewPCG(1, uint64(percent))))
		if err != nil {
			t.Fatal(err)
		}
		if moved := checkRankSwap(t, data, masked, window); moved == 0 {
			t.Errorf("percent %v: nothing was swapped", percent)
		}
		// With distinct values the rank permutation is a product of disjoint transpositions
		// (each rank is swapped at most once): applying it twice gives the identity.
		for _, j := range []int{0, 2} {
			rank := stableRanks(data[j])
			sorted := slices.Clone(data[j])
			slices.Sort(sorted)
			pi := make([]int, n) // pi[rank of record i] = original rank of its new value
			for i, v := range masked[j] {
				r, _ := slices.BinarySearch(sorted, v)
				pi[rank[i]] = r
			}
			for r := range pi {
				if pi[pi[r]] != r {
					t.Fatalf("percent %v col %d: rank %d is not in a pairwise swap", percent, j, r)
				}
			}
		}
	}
	for j := range data {
		if !slices.Equal(data[j], orig[j]) {
			t.Fatal("input modified")
		}
	}
}

// percent 0, or a window ⌊percent/100 · n⌋ of 0 ranks, leaves the data unchanged.
func TestRankSwapZeroWindow(t *testing.T) {
	data := noiseData(300, 1)
	for _, percent := range []float64{0, 0.3} { // 0.3 % of 300 = 0.9 → window 0
		masked, err := RankSwap(data, percent, rand.New(rand.NewPCG(1, 1)))
		if err != nil {
			t.Fatal(err)
		}
		for j := range data {
			if !slices.Equal(masked[j], data[j]) {
				t.Errorf("percent %v: data changed", percent)
			}
		}
	}
}

func TestRankSwapDeterminism(t *testing.T) {
	data := noiseData(1000, 2)
	a, _ := RankSwap(data, 10, rand.New(rand.NewPCG(5, 5)))
	b, _ := RankSwap(data, 10, rand.New(rand.NewPCG(5, 5)))
	c, _ := RankSwap(data, 10, rand.New(rand.NewPCG(5, 6)))
	for j := range a {
		if !slices.Equal(a[j], b[j]) {
			t.Fatal("same seed, different output")
		}
		if slices.Equal(a[j], c[j]) {
			t.Fatal("different seeds, same output")
		}
	}
}

// The partner of rank 0 is uniform on ranks 1 … p. With p = 4 and 4000 runs each partner is
// Binomial(4000, 1/4): mean 1000, sd √(4000·¼·¾) ≈ 27.4; allowed 5 sd.
func TestRankSwapUniformPartner(t *testing.T) {
	x := []float64{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}
	const runs = 4000
	counts := map[float64]int{}
	rng := rand.New(rand.NewPCG(31, 32))
	for r := 0; r < runs; r++ {
		m, err := RankSwap([][]float64{x}, 40, rng) // window ⌊0.4·10⌋ = 4
		if err != nil {
			t.Fatal(err)
		}
		counts[m[0][0]]++
	}
	sd := math.Sqrt(runs * 0.25 * 0.75)
	for v := 1.0; v <= 4; v++ {
		if math.Abs(float64(counts[v])-runs/4) > 5*sd {
			t.Errorf("partner %v chosen %d times, want %v ± %v", v, counts[v], runs/4, 5*sd)
		}
	}
	if len(counts) != 4 {
		t.Errorf("rank 0 took values %v, want only 1 … 4", counts)
	}
}

// naiveRankSwap is a direct O(n·p) transcription of the algorithm in RankSwap's comment
// (candidate list rebuilt at every rank); with the same draws it must give the same output as
// the Fenwick-tree implementation.
func naiveRankSwap(x []float64, percent float64, rng *rand.Rand) []float64 {
	n := len(x)
	p := int(math.Floor(percent * float64(n) / 100))
	rank := stableRanks(x)
	order := make([]int, n)
	for i, r := range rank {
		order[r] = i
	}
	v := make([]float64, n)
	for r, i := range order {
		v[r] = x[i]
	}
	swapped := make([]bool, n)
	for i := 0; i < n && p > 0; i++ {
		if swapped[i] {
			continue
		}
		swapped[i] = true
		var cand []int
		for j := i + 1; j <= i+p && j < n; j++ {
			if !swapped[j] {
				cand = append(cand, j)
			}
		}
		if len(cand) == 0 {
			continue
		}
		j := cand[rng.IntN(len(cand))]
		swapped[j] = true
		v[i], v[j] = v[j], v[i]
	}
	out := make([]float64, n)
	for r, i := range order {
		out[i] = v[r]
	}
	return out
}

func TestRankSwapMatchesNaive(t *testing.T) {
	data := noiseData(777, 3)
	data[1] = slices.Clone(data[1])
	for i := range data[1] {
		data[1][i] = math.Round(data[1][i] / 2000) // ties
	}
	for _, percent := range []float64{2, 10, 37, 100} {
		got, err := RankSwap(data, percent, rand.New(rand.NewPCG(7, uint64(percent))))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(7, uint64(percent)))
		for j := range data {
			if want := naiveRankSwap(data[j], percent, rng); !slices.Equal(got[j], want) {
				t.Fatalf("percent %v col %d: differs from the naive implementation", percent, j)
			}
		}
	}
}
