package mask

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// checkMDAVProperties asserts the defining properties of a fixed-size microaggregation of
// data with group size k: ⌊n/k⌋ groups numbered 0…, each of k … 2k−1 records, every masked row
// the mean of its group's original rows, and every distinct masked row occurring ≥ k times.
func checkMDAVProperties(t *testing.T, data, masked [][]float64, groups []int, k int) {
	t.Helper()
	n := len(data[0])
	if len(groups) != n || len(masked) != len(data) {
		t.Fatalf("got %d groups entries and %d columns, want %d and %d", len(groups), len(masked), n, len(data))
	}
	size := map[int]int{}
	for _, g := range groups {
		size[g]++
	}
	if len(size) != n/k {
		t.Errorf("%d groups, want ⌊%d/%d⌋ = %d", len(size), n, k, n/k)
	}
	for g := 0; g < len(size); g++ {
		if s := size[g]; s < k || s > 2*k-1 {
			t.Errorf("group %d has %d records, want %d … %d", g, s, k, 2*k-1)
		}
	}
	checkGroupMeans(t, data, masked, groups, k, 1e-12)
	rows := map[string]int{}
	for i := 0; i < n; i++ {
		var b strings.Builder
		for j := range masked {
			b.WriteString(strconv.FormatFloat(masked[j][i], 'g', -1, 64) + ",")
		}
		rows[b.String()]++
	}
	for r, c := range rows {
		if c < k {
			t.Errorf("masked row %s occurs %d times, want ≥ %d (k-anonymity)", r, c, k)
		}
	}
}

func randomData(rng *rand.Rand, p, n int) [][]float64 {
	data := make([][]float64, p)
	for j := range data {
		data[j] = make([]float64, n)
		for i := range data[j] {
			data[j][i] = float64(j+1) * (rng.NormFloat64() + 3*float64(i%3)) // some cluster structure
		}
	}
	return data
}

// Hand-derived case 1: 1-D data {10, 1, 12, 3, 11, 2}, k = 3 (n = 2k). Centroid 6.5; the
// records farthest from it are 1 (row 1) and 12 (row 2), both 5.5 away → r = row 1 (lowest
// index). Group 0 = r and its 2 nearest: values 1, 2, 3 (rows 1, 5, 3), mean 2; the rest
// (10, 12, 11: rows 0, 2, 4) is the last group, mean 11.
func TestMDAVHandSixPoints(t *testing.T) {
	data := [][]float64{{10, 1, 12, 3, 11, 2}}
	masked, groups, err := MDAV(data, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 0, 1, 0, 1, 0}; !slices.Equal(groups, want) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	if want := []float64{11, 2, 11, 2, 11, 2}; !slices.Equal(masked[0], want) {
		t.Errorf("masked %v, want %v", masked[0], want)
	}
	if !slices.Equal(data[0], []float64{10, 1, 12, 3, 11, 2}) {
		t.Error("input modified")
	}
}

// Hand-derived case 2 (n = 3k, the two-group step): values {11, 0, 31, 2, 10, 32, 1, 12, 30},
// k = 3. Centroid 129/9 ≈ 14.33; farthest r = 32 (row 5, 17.67 away vs 14.33 for 0); farthest
// from r: s = 0 (row 1). Group 0 = {32, 31, 30} (rows 5, 2, 8), mean 31; group 1 = {0, 1, 2}
// (rows 1, 6, 3), mean 1; the remaining {11, 10, 12} (rows 0, 4, 7) form group 2, mean 11.
func TestMDAVHandNinePoints(t *testing.T) {
	data := [][]float64{{11, 0, 31, 2, 10, 32, 1, 12, 30}}
	masked, groups, err := MDAV(data, 3)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 1, 0, 1, 2, 0, 1, 2, 0}; !slices.Equal(groups, want) {
		t.Errorf("groups %v, want %v", groups, want)
	}
	if want := []float64{11, 1, 31, 1, 11, 31, 1, 11, 31}; !slices.Equal(masked[0], want) {
		t.Errorf("masked %v, want %v", masked[0], want)
	}
}

// Hand-derived tie cases, documenting the tie rule (distance ascending, row index descending,
// as sdcMicro). (a) {3, 1, 3, 10}, k = 2 (n < 3k): centroid 4.25, r = 10 (row 3); its nearest
// are the two 3s (rows 0 and 2, tied) → row 2 joins: groups {3, 2} mean 6.5 and {0, 1} mean 2.
// (b) {0, 0, 0, 0, 10, 11}, k = 2 (n = 3k): centroid 3.5, r = 11 (row 5), s = farthest from r,
// the four 0s tie → row 0. Group 0 = {5, 4}; group 1 = the 2 records nearest s: four at
// distance 0, highest indices first → rows 3, 2; rows 0, 1 form the last group.
func TestMDAVHandTies(t *testing.T) {
	masked, groups, err := MDAV([][]float64{{3, 1, 3, 10}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{1, 1, 0, 0}; !slices.Equal(groups, want) {
		t.Errorf("(a) groups %v, want %v", groups, want)
	}
	if want := []float64{2, 2, 6.5, 6.5}; !slices.Equal(masked[0], want) {
		t.Errorf("(a) masked %v, want %v", masked[0], want)
	}
	_, groups, err = MDAV([][]float64{{0, 0, 0, 0, 10, 11}}, 2)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 2, 1, 1, 0, 0}; !slices.Equal(groups, want) {
		t.Errorf("(b) groups %v, want %v", groups, want)
	}
	// The textbook reading (seed first, lowest index) gives rows {0, 1} for the seed s = row 0.
	_, groups, _ = mdav("MDAV", [][]float64{{0, 0, 0, 0, 10, 11}}, 2, mdavOptions{lowTies: true})
	if want := []int{1, 1, 2, 2, 0, 0}; !slices.Equal(groups, want) {
		t.Errorf("(b, lowest-index) groups %v, want %v", groups, want)
	}
}

func TestMDAVRandomProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 7, 100, 503} {
		data := randomData(rng, 4, n)
		orig := cloneData(data)
		for _, k := range []int{1, 2, 3, 5, 7, 10, n / 2, n} {
			if k < 1 || k > n {
				continue
			}
			masked, groups, err := MDAV(data, k)
			if err != nil {
				t.Fatalf("n=%d k=%d: %v", n, k, err)
			}
			checkMDAVProperties(t, data, masked, groups, k)
			if k == 1 { // every record is its own group: masked = original
				for j := range data {
					if !slices.Equal(masked[j], data[j]) {
						t.Errorf("n=%d k=1: masked differs from original", n)
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
}

// Standardisation: multiplying an attribute by 1024 (a power of two, so every weighted
// distance is bit-identical) or adding a constant attribute (variance 0, contributes 0 to every
// distance) must not change the groups; duplicated records and all-equal data still give
// groups of k … 2k−1.
func TestMDAVStandardisation(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := randomData(rng, 3, 301)
	_, want, err := MDAV(data, 4)
	if err != nil {
		t.Fatal(err)
	}
	scaled := cloneData(data)
	for i := range scaled[1] {
		scaled[1][i] *= 1024
	}
	withConst := append(cloneData(data), slices.Repeat([]float64{7.25}, 301))
	for name, d := range map[string][][]float64{"scaled": scaled, "constant column": withConst} {
		masked, got, err := MDAV(d, 4)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: groups changed", name)
		}
		checkMDAVProperties(t, d, masked, got, 4)
	}
	same := [][]float64{slices.Repeat([]float64{1}, 11), slices.Repeat([]float64{-2}, 11)}
	masked, groups, err := MDAV(same, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkMDAVProperties(t, same, masked, groups, 3)
}

func TestMDAVDeterministic(t *testing.T) {
	data := randomData(rand.New(rand.NewPCG(5, 6)), 3, 200)
	m1, g1, _ := MDAV(data, 3)
	m2, g2, _ := MDAV(data, 3)
	if !slices.Equal(g1, g2) {
		t.Fatal("groups differ between runs")
	}
	for j := range m1 {
		if !slices.Equal(m1[j], m2[j]) {
			t.Fatal("masked data differ between runs")
		}
	}
}

// On one attribute r is always the minimum or the maximum of the remaining values and s the
// opposite extreme, so every group is the k smallest or largest remaining values: groups are
// disjoint intervals (distinct random values, so no ties).
func TestMDAVUnivariateGroupsAreIntervals(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	x := make([]float64, 400)
	for i := range x {
		x[i] = rng.Float64()
	}
	_, groups, err := MDAV([][]float64{x}, 5)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := map[int]float64{}, map[int]float64{}
	for i, g := range groups {
		if v, ok := lo[g]; !ok || x[i] < v {
			lo[g] = x[i]
		}
		if v, ok := hi[g]; !ok || x[i] > v {
			hi[g] = x[i]
		}
	}
	for i, g := range groups {
		for h := range lo {
			if h != g && x[i] > lo[h] && x[i] < hi[h] {
				t.Fatalf("value %v of group %d lies inside group %d's range [%v, %v]", x[i], g, h, lo[h], hi[h])
			}
		}
	}
}
