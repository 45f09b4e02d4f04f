package mask

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Hand-derived: column {5, 1, 4, 2, 3, 9, 7}, k = 3 → sorted 1, 2, 3 | 4, 5, 7, 9 (7 = 2·3+1:
// the last group absorbs the remainder), means 2 and 25/4. Column {2, 3, 2, 1, 2}, k = 2 →
// sorted 1(row 3), 2(row 0), 2(row 2), 2(row 4), 3(row 1): ties by row order put row 0 in the
// first group {1, 2} (mean 1.5) and rows 2, 4 with the 3 (mean 7/3).
func TestIndividualRankingHand(t *testing.T) {
	got, err := IndividualRanking([][]float64{{5, 1, 4, 2, 3, 9, 7}}, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{6.25, 2, 6.25, 2, 2, 6.25, 6.25}; !slices.Equal(got[0], want) {
		t.Errorf("got %v, want %v", got[0], want)
	}
	got, err = IndividualRanking([][]float64{{2, 3, 2, 1, 2}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{1.5, 7.0 / 3, 7.0 / 3, 1.5, 7.0 / 3}; !slices.Equal(got[0], want) {
		t.Errorf("got %v, want %v", got[0], want)
	}
	// k ≤ n < 2k: one group, the column mean.
	got, _ = IndividualRanking([][]float64{{1, 2, 6}}, 2)
	if want := []float64{3, 3, 3}; !slices.Equal(got[0], want) {
		t.Errorf("got %v, want %v", got[0], want)
	}
}

// Per-column properties on random data with ties: the column sum is preserved (each group
// sum is), the masked column is a non-decreasing function of the original rank, it takes
// ⌊n/k⌋ group values (fewer only if two groups have equal means), and each distinct masked
// value occurs ≥ k times.
func TestIndividualRankingProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	n := 1003
	data := [][]float64{make([]float64, n), make([]float64, n)}
	for i := 0; i < n; i++ {
		data[0][i] = rng.NormFloat64()
		data[1][i] = float64(rng.IntN(50)) // many ties
	}
	orig := cloneData(data)
	for _, k := range []int{1, 3, 10, 501} {
		got, err := IndividualRanking(data, k)
		if err != nil {
			t.Fatal(err)
		}
		for j := range data {
			var so, sm float64
			for i := range data[j] {
				so += data[j][i]
				sm += got[j][i]
			}
			if math.Abs(so-sm) > 1e-9*math.Max(1, math.Abs(so)) {
				t.Errorf("k=%d col %d: sum %v → %v", k, j, so, sm)
			}
			order := make([]int, n)
			for i := range order {
				order[i] = i
			}
			slices.SortStableFunc(order, func(a, b int) int {
				if data[j][a] < data[j][b] {
					return -1
				} else if data[j][a] > data[j][b] {
					return 1
				}
				return 0
			})
			count := map[float64]int{}
			for r, i := range order {
				count[got[j][i]]++
				if r > 0 && got[j][i] < got[j][order[r-1]] {
					t.Fatalf("k=%d col %d: masked values not monotone in rank", k, j)
				}
			}
			if len(count) > n/k {
				t.Errorf("k=%d col %d: %d distinct values, want ≤ %d", k, j, len(count), n/k)
			}
			for v, c := range count {
				if c < k {
					t.Errorf("k=%d col %d: value %v occurs %d times", k, j, v, c)
				}
			}
			if k == 1 && !slices.Equal(got[j], data[j]) {
				t.Errorf("k=1 col %d: not the identity", j)
			}
		}
	}
	for j := range data {
		if !slices.Equal(data[j], orig[j]) {
			t.Fatal("input modified")
		}
	}
}
