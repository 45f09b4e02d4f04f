package linkage

import (
	"sort"

	"github.com/reid-sdc/reid/distances"
)

// ReidAtKs returns the k of the Reid@k measures that Measure computes (1, 2, 5, 10).
func ReidAtKs() []int { return []int{1, 2, 5, 10} }

// Count is one bar of a distribution: how many records have the value.
type Count struct {
	Value int `json:"value"`
	Count int `json:"count"`
}

// Measures is the Reid family over the records that have a true partner.
type Measures struct {
	// N is the number of query records with a true partner; Unmatched those without.
	N, Unmatched int
	// Correct counts the unique correct links (Reid·N).
	Correct int
	// Reid is the share of records whose nearest record is unique and is the true one.
	Reid float64
	// ReidSets credits 1/|A_b| when the true record is in the anonymity set A_b.
	ReidSets float64
	// ReidAtK[k] is the share of records whose true partner has fewer than k strictly
	// closer candidates, for k in ReidAtKs().
	ReidAtK map[int]float64
	// SetSizes is the distribution of |A_b|, RankCounts of the true partner's rank.
	SetSizes   []Count
	RankCounts []Count
}

// Reid is the re-identification rate with one link per record (seed notation: Reid =
// Σ_b c(r(b), true(b)) / |B|; Domingo-Ferrer & Torra 2001): a record counts when its
// nearest candidate is unique and is its true partner. A tie at the best distance is not
// a correct unique link.
func Reid(r *distances.QueryResult) float64 {
	if r.True >= 0 && r.Ties == 1 && r.Nearest == r.True {
		return 1
	}
	return 0
}

// ReidSet is a record's credit under anonymity sets (Nin, Herranz & Torra 2008, and the
// design note §3): 1/|A_b| when the true record is among the |A_b| candidates tied at the
// best distance, else 0.
func ReidSet(r *distances.QueryResult) float64 {
	if r.TrueInTies() {
		return 1 / float64(r.Ties)
	}
	return 0
}

// Measure computes the Reid family over query results.
func Measure(recs []distances.QueryResult) Measures {
	m := Measures{ReidAtK: map[int]float64{}}
	sets := map[int]int{}
	ranks := map[int]int{}
	ks := ReidAtKs()
	atK := make([]int, len(ks))
	var reidSets float64
	for i := range recs {
		r := &recs[i]
		if r.True < 0 {
			m.Unmatched++
			continue
		}
		m.N++
		if Reid(r) == 1 {
			m.Correct++
		}
		reidSets += ReidSet(r)
		sets[r.Ties]++
		ranks[r.TrueRank]++
		for x, k := range ks {
			if r.TrueRank < k {
				atK[x]++
			}
		}
	}
	if m.N > 0 {
		m.Reid = float64(m.Correct) / float64(m.N)
		m.ReidSets = reidSets / float64(m.N)
		for x, k := range ks {
			m.ReidAtK[k] = float64(atK[x]) / float64(m.N)
		}
	}
	m.SetSizes = counts(sets)
	m.RankCounts = counts(ranks)
	return m
}

func counts(h map[int]int) []Count {
	out := make([]Count, 0, len(h))
	for v, c := range h {
		out = append(out, Count{v, c})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Value < out[j].Value })
	return out
}
