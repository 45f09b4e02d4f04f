package linkage_test

import (
	"fmt"

	"github.com/reid-sdc/reid/linkage"
)

// Six records, two attributes, rank-swapped by hand with a window of one rank (p = 20 % of 6
// records): the intruder holding the original file and knowing p is sure of four partners,
// and of all six once it also uses that every original record is released exactly once.
func ExampleKnownLinks() {
	original := [][]float64{
		{1, 2, 3, 4, 5, 6},
		{300, 100, 600, 200, 500, 400},
	}
	masked := [][]float64{
		{2, 1, 3, 5, 4, 6},
		{400, 200, 600, 100, 500, 300},
	}
	k := linkage.Knowledge{Method: linkage.MaskRankSwap, P: 20}
	r, err := linkage.KnownLinks(original, masked, k)
	if err != nil {
		panic(err)
	}
	fmt.Println(k)
	fmt.Println("window:", r.Window, "ranks")
	fmt.Println("candidates:", r.Candidates)
	fmt.Println("known:", r.Known)
	fmt.Printf("K.Reid = %.3f\n", r.KReid())

	k.OneToOne = true
	r, _ = linkage.KnownLinks(original, masked, k)
	fmt.Printf("one-to-one: known %v, K.Reid = %.3f\n", r.Known, r.KReid())
	// Output:
	// the intruder holds the original file and knows rank swapping with p = 20 % (no value moved more than ⌊p·n/100⌋ ranks, at least 1)
	// window: 1 ranks
	// candidates: [1 2 1 1 2 1]
	// known: [0 -1 2 3 -1 5]
	// K.Reid = 0.667
	// one-to-one: known [0 1 2 3 4 5], K.Reid = 1.000
}
