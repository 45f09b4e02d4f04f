package linkage

import "testing"

// TestTopHeapTieOrder: among candidates of equal weight each query keeps its own k, so
// the records of a class of tied pairs do not all keep the same ones. Twenty queries,
// twenty candidates of one weight, k = 4: with ties broken by the lowest index every
// query kept candidates 0–3 (union 4); an order of each query's own covers nearly all
// twenty. Each query's kept set is still k distinct candidates.
func TestTopHeapTieOrder(t *testing.T) {
	const n, k = 20, 4
	union := map[int]bool{}
	for i := range n {
		h := &topHeap{salt: uint64(i) * 0x9e3779b97f4a7c15}
		for j := range n {
			h.offer(Neighbor{Index: j, Distance: 1.5}, k)
		}
		seen := map[int]bool{}
		for _, c := range h.a {
			seen[c.Index] = true
			union[c.Index] = true
		}
		if len(h.a) != k || len(seen) != k {
			t.Fatalf("query %d kept %v", i, h.a)
		}
	}
	if len(union) < 3*n/4 {
		t.Errorf("the %d queries kept %d distinct candidates in all, want at least %d", n, len(union), 3*n/4)
	}
	// A higher weight still wins over any tie order.
	h := &topHeap{salt: 7}
	for j := range n {
		w := 1.0
		if j == 13 {
			w = 2
		}
		h.offer(Neighbor{Index: j, Distance: w}, 1)
	}
	if h.a[0].Index != 13 {
		t.Errorf("kept %v, want the heavier candidate 13", h.a)
	}
}

// TestPRLAssignmentTies: one categorical attribute with two labels, each on half of the
// records, the masked file equal to the original. Every record's agreeing candidates
// tie; a one-to-one assignment of agreeing pairs exists (label classes of equal size).
// With ties broken by the lowest index the twenty records of a label all kept the same
// four candidates, so at most four of them could be assigned: 32 of the 40 were left
// unassigned. With each record's own order the four-candidate lists overlap little and
// nearly every record is assigned (2 left here; whether all are depends on the lists).
func TestPRLAssignmentTies(t *testing.T) {
	const n = 40
	codes := make([]float64, n)
	for i := range codes {
		codes[i] = float64(i % 2)
	}
	p := PRLProblem{
		Attributes:   []PRLAttribute{{Name: "label", Rule: Rule{Kind: RuleEqual}, Original: codes, Masked: codes}},
		TrueMasked:   identityInts(n),
		TrueOriginal: identityInts(n),
		Direction:    MaskedToOriginal,
	}
	r, err := PRL(p, PRLSettings{Supervised: true, TopK: 4, MaxTopK: 4})
	if err != nil {
		t.Fatal(err)
	}
	as := r.Modes[2]
	if as.Unassigned >= 8 || as.Chosen+as.Unassigned != n {
		t.Errorf("assignment: %d unassigned, %d chosen; want fewer than 8 and %d in all: %s", as.Unassigned, as.Chosen, n, as.Status)
	}
}

func identityInts(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = i
	}
	return s
}
