package linkage

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
)

// standardized returns the column-major z-scores of rows (row-major literal).
func standardized(t *testing.T, rows [][]float64) [][]float64 {
	t.Helper()
	tab := &datasets.Table{Source: "literal"}
	for k := range rows[0] {
		c := datasets.Column{Name: string(rune('a' + k)), Kind: datasets.Numeric}
		for _, r := range rows {
			c.Values = append(c.Values, r[k])
		}
		tab.Columns = append(tab.Columns, c)
	}
	s, err := datasets.Standardize(tab, datasets.StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	m, _ := s.Table.NumericMatrix()
	return m
}

func identity(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}

// TestToyExample is the authors' own example (Abril, Navarro-Arribas & Torra, R code for
// their chapter on advanced disclosure risk): linking original→masked with the Euclidean
// distance, 2 of the 3 records are correct and record 3 goes to masked record 2. Checked
// independently with numpy: d(o3,m2) = 0.6482 < d(o3,m3) = 1.4179. The other direction
// also gets 2 of 3 (masked record 2 goes to original 3).
func TestToyExample(t *testing.T) {
	o := standardized(t, [][]float64{{1, 30, 27}, {2, 50, 47}, {3, 25, 31}})
	m := standardized(t, [][]float64{{1, 20, 47}, {2, 20, 47}, {3, 23, 31}})
	for _, dir := range []Direction{OriginalToMasked, MaskedToOriginal} {
		res, err := DBRL(Problem{Original: o, Masked: m, TrueMasked: identity(3), TrueOriginal: identity(3),
			Operator: distances.NewEuclidean(3), Direction: dir}, Settings{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Measures.Correct != 2 || math.Abs(res.Measures.Reid-2.0/3) > 1e-15 {
			t.Errorf("%v: %d correct, Reid %v; want 2, 2/3", dir, res.Measures.Correct, res.Measures.Reid)
		}
		if dir == OriginalToMasked && res.Records[2].Nearest != 1 {
			t.Errorf("record 3 links to masked record %d, want 2", res.Records[2].Nearest+1)
		}
		if dir == MaskedToOriginal && res.Records[1].Nearest != 2 {
			t.Errorf("masked record 2 links to original %d, want 3", res.Records[1].Nearest+1)
		}
		if math.Abs(res.Records[2].NearestDistance-0.6481722) > 1e-6 && dir == OriginalToMasked {
			t.Errorf("d(o3, m2) = %v, want 0.6481722 (numpy)", res.Records[2].NearestDistance)
		}
	}
}

// TestTies: one attribute, already standardised by construction. The masked file holds
// records 0 and 1 at the same value, so the anonymity set of queries 0 and 1 has two
// members. By hand: query 0 (true 0) ties {0,1} → Reid 0, ReidSet 1/2; query 1 likewise;
// query 2 is unique and correct → 1. Reid = 1/3, ReidSets = (1/2+1/2+1)/3 = 2/3.
func TestTies(t *testing.T) {
	o := [][]float64{{-1, -0.9, 2}}
	m := [][]float64{{-1, -1, 2}}
	res, err := DBRL(Problem{Original: o, Masked: m, TrueMasked: identity(3), TrueOriginal: identity(3),
		Operator: distances.NewEuclidean(1), Direction: OriginalToMasked}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	ms := res.Measures
	if ms.Correct != 1 || math.Abs(ms.ReidSets-2.0/3) > 1e-15 {
		t.Errorf("Correct %d ReidSets %v; want 1, 2/3", ms.Correct, ms.ReidSets)
	}
	if !reflect.DeepEqual(ms.SetSizes, []Count{{1, 1}, {2, 2}}) {
		t.Errorf("set sizes %v", ms.SetSizes)
	}
	// Ranks: nothing is strictly closer than a tied true partner: all ranks 0.
	if !reflect.DeepEqual(ms.RankCounts, []Count{{0, 3}}) || ms.ReidAtK[1] != 1 {
		t.Errorf("ranks %v, Reid@1 %v", ms.RankCounts, ms.ReidAtK[1])
	}
}

// naiveLink is a deliberately plain O(N·M) reference kept apart from the core: it calls
// Operator.Distance on every pair and applies the definitions directly.
func naiveLink(queries, refs [][]float64, truth []int, op distances.Operator) (reid, reidSets float64, ranks []int) {
	m := len(queries)
	nq, nr := len(queries[0]), len(refs[0])
	a, b := make([]float64, m), make([]float64, m)
	d := make([]float64, nr)
	n := 0
	for i := 0; i < nq; i++ {
		if truth[i] < 0 {
			continue
		}
		n++
		for k := 0; k < m; k++ {
			a[k] = queries[k][i]
		}
		best := math.Inf(1)
		for j := 0; j < nr; j++ {
			for k := 0; k < m; k++ {
				b[k] = refs[k][j]
			}
			d[j] = op.Distance(a, b)
			best = math.Min(best, d[j])
		}
		tol := distances.TieTolerance * best
		ties, trueTied := 0, false
		for j, v := range d {
			if v <= best+tol {
				ties++
				trueTied = trueTied || j == truth[i]
			}
		}
		dt := d[truth[i]]
		rank := 0
		for j, v := range d {
			if j != truth[i] && v < dt-distances.TieTolerance*dt {
				rank++
			}
		}
		ranks = append(ranks, rank)
		if trueTied {
			reidSets += 1 / float64(ties)
			if ties == 1 {
				reid++
			}
		}
	}
	return reid / float64(n), reidSets / float64(n), ranks
}

func sharedDatasets(t *testing.T) string {
	dir := filepath.Join("..", "..", "shared", "datasets")
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("the shared benchmark data (%s) is absent: %v", dir, err)
	}
	return dir
}

func loadPair(t *testing.T, original, masked string) Problem {
	t.Helper()
	o, err := datasets.Load(original, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ms, err := datasets.Load(masked, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := datasets.Pair(o, ms, datasets.PairOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zo, err := datasets.Standardize(p.Original, datasets.StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	zm, err := datasets.Standardize(p.Masked, datasets.StandardizeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	om, _ := zo.Table.NumericMatrix()
	mm, _ := zm.Table.NumericMatrix()
	return Problem{Original: om, Masked: mm, TrueMasked: p.TrueMasked, TrueOriginal: p.TrueOriginal,
		Operator: distances.NewEuclidean(len(om))}
}

// TestAgainstNaiveOnBenchmarkFiles: on every CENSUS and EIA masked file, Reid, Reid with
// anonymity sets and every true-partner rank equal the naive reference's. EIA has 26
// duplicated rows, so ties are real there.
func TestAgainstNaiveOnBenchmarkFiles(t *testing.T) {
	dir := sharedDatasets(t)
	for _, set := range []string{"census", "eia"} {
		files, _ := filepath.Glob(filepath.Join(dir, set, "masked", "*.csv"))
		if len(files) == 0 {
			t.Fatalf("no masked files for %s", set)
		}
		for _, f := range files {
			p := loadPair(t, filepath.Join(dir, set, "original.csv"), f)
			res, err := DBRL(p, Settings{})
			if err != nil {
				t.Fatal(err)
			}
			reid, reidSets, ranks := naiveLink(p.Masked, p.Original, p.TrueOriginal, p.Operator)
			ms := res.Measures
			if ms.Reid != reid || math.Abs(ms.ReidSets-reidSets) > 1e-12 {
				t.Errorf("%s/%s: Reid %v sets %v; naive %v %v", set, filepath.Base(f), ms.Reid, ms.ReidSets, reid, reidSets)
			}
			for i, r := range res.Records {
				if r.TrueRank != ranks[i] {
					t.Errorf("%s/%s: record %d rank %d, naive %d", set, filepath.Base(f), i+1, r.TrueRank, ranks[i])
					break
				}
			}
			t.Logf("%s %-24s Reid %.4f  Reid(sets) %.4f  Reid@10 %.4f", set, filepath.Base(f), ms.Reid, ms.ReidSets, ms.ReidAtK[10])
		}
	}
}

// TestThreadsAndKernels: results are identical for any number of threads and for the
// portable and the accelerated kernel, on data with near ties and exact duplicates.
func TestThreadsAndKernels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const n, m = 3000, 7
	o := make([][]float64, m)
	ms := make([][]float64, m)
	for k := 0; k < m; k++ {
		o[k] = make([]float64, n)
		ms[k] = make([]float64, n)
		for i := 0; i < n; i++ {
			o[k][i] = math.Round(rng.NormFloat64()*4) / 4 // coarse grid: many exact ties
			ms[k][i] = o[k][i] + 0.3*rng.NormFloat64()
		}
	}
	for i := 0; i < 50; i++ { // exact duplicate masked records
		for k := 0; k < m; k++ {
			ms[k][i+100] = ms[k][i]
		}
	}
	for _, op := range []distances.Operator{distances.NewEuclidean(m)} {
		for _, dir := range []Direction{MaskedToOriginal, OriginalToMasked} {
			p := Problem{Original: o, Masked: ms, TrueMasked: identity(n), TrueOriginal: identity(n), Operator: op, Direction: dir}
			ref, err := DBRL(p, Settings{Threads: 1, Generic: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range []Settings{{Threads: 2}, {Threads: 7}, {Threads: 3, Generic: true}, {}} {
				got, err := DBRL(p, s)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(ref, got) {
					t.Errorf("%s %v: results with %+v differ from one thread, portable kernel", op.Name(), dir, s)
				}
			}
		}
	}
}
