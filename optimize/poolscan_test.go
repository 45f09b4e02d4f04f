package optimize

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// poolScan's candidates, checked exactly, find the same violated cuts outside the master
// as a scan of every cut, over a random sequence of K (a few entries moved each time,
// some to exactly 0 or 1), cuts added between scans, and cuts leaving the master.
func TestPoolScanAgainstFullScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n = 40
	var cuts [][]int
	cutsOf := make([][]int, n)
	addCut := func() {
		S := rng.Perm(n)[:2+rng.IntN(6)]
		slices.Sort(S)
		for _, i := range S {
			cutsOf[i] = append(cutsOf[i], len(cuts))
		}
		cuts = append(cuts, S)
	}
	for range 200 {
		addCut()
	}
	var p poolScan
	inMaster := make([]bool, 0, 2000)
	K := make([]float64, n)
	for i := range K {
		K[i] = rng.Float64()
	}
	violated := 0
	for step := range 1500 {
		for range 1 + rng.IntN(4) {
			i := rng.IntN(n)
			switch rng.IntN(4) {
			case 0:
				K[i] = 0
			case 1:
				K[i] = 1
			default:
				K[i] = rng.Float64() / 3
			}
		}
		if step%7 == 0 {
			addCut()
		}
		for len(inMaster) < len(cuts) {
			inMaster = append(inMaster, false)
		}
		for c := range cuts { // some cuts leave the master, as purgeMaster drops them
			if inMaster[c] && rng.IntN(50) == 0 {
				inMaster[c] = false
				p.recheck = append(p.recheck, c)
			}
		}
		var got, want []int
		for _, c := range p.candidates(cuts, cutsOf, K) {
			if !inMaster[c] && coverage(cuts[c], K) < 1-intTol {
				got = append(got, c)
			}
		}
		for c, S := range cuts {
			if !inMaster[c] && coverage(S, K) < 1-intTol {
				want = append(want, c)
			}
		}
		if !slices.Equal(got, want) {
			t.Fatalf("step %d: the pool scan finds %v, the full scan %v", step, got, want)
		}
		for _, c := range got {
			inMaster[c] = true // added to the master
		}
		violated += len(got)
	}
	if violated < 100 {
		t.Fatalf("only %d violated cuts in the sequence: the test checks little", violated)
	}
}
