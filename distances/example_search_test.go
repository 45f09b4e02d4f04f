package distances_test

import (
	"fmt"

	"github.com/reid-sdc/reid/distances"
)

// Three queries against four references of two attributes, column-major (x[k][i] is
// attribute k of record i), under the Euclidean distance, the mean of the squared
// differences. References: r0 = (0, 0), r1 = (1, 0), r2 = (0, 1), r3 = (3, 3).
//
//   - q0 = (1, 0) is r1 itself (distance 0), its true partner: rank 0.
//   - q1 = (0.5, 0.5) is 0.25 from r0, r1 and r2 alike: three tied, Nearest is the lowest
//     index, and the true r2 has rank 0 (a tie is not strictly closer) but shares its
//     anonymity set with two others.
//   - q2 = (2, 2) is 1 from r3, 2.5 from r1 and r2 and 4 from r0: its true partner r0 has
//     three strictly closer candidates, rank 3.
//
// TopK keeps the two nearest of each query by (distance, index). Distances are printed
// to four digits: the Euclidean distance is computed on values scaled by √(1/2) (the
// Embedder transform), which leaves a rounding error in the last bits.
func ExampleSearch() {
	refs := [][]float64{
		{0, 1, 0, 3},
		{0, 0, 1, 3},
	}
	queries := [][]float64{
		{1, 0.5, 2},
		{0, 0.5, 2},
	}
	truth := []int{1, 2, 0}
	res, err := distances.Search(queries, refs, truth, distances.NewEuclidean(2), distances.Settings{TopK: 2})
	if err != nil {
		panic(err)
	}
	for i, r := range res {
		fmt.Printf("q%d: nearest r%d at %.4g, %d tied; true r%d at %.4g, rank %d, in ties %t; top 2:",
			i, r.Nearest, r.NearestDistance, r.Ties, r.True, r.TrueDistance, r.TrueRank, r.TrueInTies())
		for _, n := range r.TopK {
			fmt.Printf(" r%d at %.4g", n.Index, n.Distance)
		}
		fmt.Println()
	}
	// Output:
	// q0: nearest r1 at 0, 1 tied; true r1 at 0, rank 0, in ties true; top 2: r1 at 0 r0 at 0.5
	// q1: nearest r0 at 0.25, 3 tied; true r2 at 0.25, rank 0, in ties true; top 2: r0 at 0.25 r1 at 0.25
	// q2: nearest r3 at 1, 1 tied; true r0 at 4, rank 3, in ties false; top 2: r3 at 1 r1 at 2.5
}
