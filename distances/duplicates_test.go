package distances

import (
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"
)

// duplicateData makes references of a few discrete values (so that most are copies of
// others, as in files of coded attributes) and queries near them, some exactly on them.
func duplicateData(rng *rand.Rand, nq, nr, m, values int) (q, r [][]float64, truth []int) {
	q, r = make([][]float64, m), make([][]float64, m)
	for k := range m {
		r[k] = make([]float64, nr)
		q[k] = make([]float64, nq)
		for j := range r[k] {
			r[k][j] = float64(rng.IntN(values)) - 1
		}
	}
	truth = make([]int, nq)
	for i := range truth {
		base := rng.IntN(nr)
		truth[i] = base
		if i%13 == 4 {
			truth[i] = -1 // a query without a partner
		}
		for k := range m {
			q[k][i] = r[k][base]
			if i%3 != 0 {
				q[k][i] += float64(rng.IntN(3) - 1) // a step to a neighbouring value
			}
		}
	}
	return q, r, truth
}

// TestSearchDuplicateReferences: where most references are copies, Search scans one of
// each and weighs it by its copies; every field of every result equals the brute force's
// and, bit for bit, the scan of every copy (search without groups), for every operator,
// both kernels, with and without true partners, top-k lists and closer candidates.
func TestSearchDuplicateReferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, m := range []int{2, 3} {
		// 1,300 references of at most 27 distinct records: several reference blocks of
		// every kernel before grouping, one after.
		q, r, truth := duplicateData(rng, 150, 1300, m, 3)
		groups := findReferenceGroups(r)
		if groups == nil || len(groups.weight) > 27 {
			t.Fatalf("m = %d: groups %v, want at most 27", m, groups)
		}
		for _, op := range testOperators(t, rng, m) {
			for _, c := range []struct {
				name  string
				s     Settings
				truth []int
			}{
				{"plain", Settings{}, truth},
				{"no truth", Settings{}, nil},
				{"top-k", Settings{TopK: 5}, truth},
				{"closer", Settings{Closer: true, Margin: 0.3}, truth},
				{"count", Settings{CountCloser: true, Margin: 0.3}, truth},
				{"no margin", Settings{Closer: true}, truth},
				{"all", Settings{TopK: 70, Closer: true, Margin: 0.05, Generic: true}, truth},
			} {
				got, err := Search(q, r, c.truth, op, c.s)
				if err != nil {
					t.Fatal(err)
				}
				every := search(context.Background(), q, r, c.truth, op, c.s, nil)
				if !reflect.DeepEqual(got, every) {
					for i := range got {
						if !reflect.DeepEqual(got[i], every[i]) {
							t.Errorf("m = %d %s %s: query %d: grouped %+v, every copy %+v", m, op.Name(), c.name, i, got[i], every[i])
							break
						}
					}
					continue
				}
				if c.s.Closer && c.s.Margin == 0 {
					// Closer than the true partner by nothing: copies of other records tied
					// with it fall either side by rounding, which the brute force's
					// Operator.Distance does differently from the transformed direct form.
					continue
				}
				tr := c.truth
				if tr == nil {
					tr = make([]int, len(q[0]))
					for i := range tr {
						tr[i] = -1
					}
				}
				want := bruteForce(q, r, tr, op, c.s.TopK, c.s.Margin)
				for i := range want {
					if !c.s.Closer {
						want[i].Closer = nil
						if !c.s.CountCloser {
							want[i].CloserCount = 0
						}
					}
					if msg := compareResult(&want[i], &got[i]); msg != "" {
						t.Errorf("m = %d %s %s: query %d: %s", m, op.Name(), c.name, i, msg)
						break
					}
				}
			}
		}
	}
}

// TestReferenceGroups: the groups are the classes of bit-identical records, numbered by
// their lowest reference, with members ascending; files with few copies are not grouped.
func TestReferenceGroups(t *testing.T) {
	r := [][]float64{
		{1, 2, 1, math.Copysign(0, -1), 0, 1, 2, 5},
		{3, 4, 3, 7, 7, 3, 4, 6},
	}
	g := findReferenceGroups(r)
	if g == nil {
		t.Fatal("no groups for 8 references with 3 copies")
	}
	// −0 and +0 differ in their bits: two groups (their distances are equal anyway).
	wantGroup := []int32{0, 1, 0, 2, 3, 0, 1, 4}
	if !reflect.DeepEqual(g.Of, wantGroup) || !reflect.DeepEqual(g.weight, []int{3, 2, 1, 1, 1}) {
		t.Fatalf("groups %v weights %v, want %v and [3 2 1 1 1]", g.Of, g.weight, wantGroup)
	}
	if m := g.Members(0); !reflect.DeepEqual(m, []int32{0, 2, 5}) {
		t.Errorf("members of group 0: %v, want [0 2 5]", m)
	}
	if d := g.distinct(r); !reflect.DeepEqual(d[1], []float64{3, 4, 7, 7, 6}) {
		t.Errorf("distinct records' second attribute %v", d[1])
	}
	few := [][]float64{{1, 2, 3, 4, 5, 6, 7, 8, 9, 1}}
	if findReferenceGroups(few) != nil {
		t.Error("one copy in 10 references was grouped (below minDuplicateShare)")
	}
}

// BenchmarkSearchDuplicates: 20,000 records of two attributes of three values each (at
// most 9 distinct references), scanned grouped (Search) and copy by copy.
func BenchmarkSearchDuplicates(b *testing.B) {
	rng := rand.New(rand.NewPCG(9, 10))
	q, r, truth := duplicateData(rng, 20000, 20000, 2, 3)
	op := NewEuclidean(2)
	b.Run("grouped", func(b *testing.B) {
		for b.Loop() {
			if _, err := Search(q, r, truth, op, Settings{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("every-copy", func(b *testing.B) {
		for b.Loop() {
			search(context.Background(), q, r, truth, op, Settings{}, nil)
		}
	})
}

// TestSearchTinyMargin: a margin far below the rounding of the distances (d + 1e-300 =
// d) still counts an exact tie with the true partner as closer, grouped or not, for the
// embedded and the sorted kernels.
func TestSearchTinyMargin(t *testing.T) {
	q := [][]float64{{0, 3}, {0, 0}}
	r := [][]float64{{1, 1, 5}, {1, 1, 5}} // references 0 and 1 are twins
	truth := []int{0, 2}
	owa, err := NewOWA([]float64{0.5, 0.5})
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []Operator{NewEuclidean(2), owa} {
		for _, groups := range []*referenceGroups{findReferenceGroups(r), nil} {
			got := search(context.Background(), q, r, truth, op, Settings{CountCloser: true, Margin: 1e-300}, groups)
			// Query 0: its partner's twin ties. Query 1 (at 3, 0): partner (5, 5) is
			// farther than both twins.
			if got[0].CloserCount != 1 || got[1].CloserCount != 2 {
				t.Errorf("%s grouped=%v: closer counts %d, %d; want 1, 2", op.Name(), groups != nil, got[0].CloserCount, got[1].CloserCount)
			}
		}
	}
}
