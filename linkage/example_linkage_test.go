package linkage_test

import (
	"fmt"

	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
)

// Four records of two attributes on a standardised scale (column-major, as
// datasets.Table.NumericMatrix returns them); masked record j is the masked version of
// original record j. The originals sit at the corners (±1, ±1) and the Euclidean distance
// is the mean of the squared differences:
//
//   - masked 0 = (−0.8, −1) is 0.02 from original 0 and far from the rest: correct;
//   - masked 1 = (1, −0.5) is 0.125 from original 1: correct;
//   - masked 2 = (0.2, 1) moved too far: original 3 is at 0.32, its own original 2 at
//     0.72, so the link is wrong and the true partner has rank 1;
//   - masked 3 = (0, 1) is 0.5 from originals 2 and 3 alike: a tie, which Reid does not
//     count (the intruder cannot tell which is right) but anonymity sets credit 1/2.
//
// So Reid = 2/4, Reid with anonymity sets (1 + 1 + 0 + 1/2)/4 = 0.625, and Reid@1 = 3/4
// (the true partner has no strictly closer candidate for records 0, 1 and 3). Distances
// are printed to three digits, which hides the rounding of the last bits.
func ExampleDBRL() {
	p := linkage.Problem{
		Original: [][]float64{
			{-1, 1, -1, 1},
			{-1, -1, 1, 1},
		},
		Masked: [][]float64{
			{-0.8, 1, 0.2, 0},
			{-1, -0.5, 1, 1},
		},
		TrueOriginal: []int{0, 1, 2, 3},
		Operator:     distances.NewEuclidean(2),
		Direction:    linkage.MaskedToOriginal,
	}
	r, err := linkage.DBRL(p, linkage.Settings{})
	if err != nil {
		panic(err)
	}
	for j, q := range r.Records {
		fmt.Printf("masked %d: nearest %d at %.3g, %d tied, true %d of rank %d\n",
			j, q.Nearest, q.NearestDistance, q.Ties, q.True, q.TrueRank)
	}
	m := r.Measures
	fmt.Printf("%d of %d correct: Reid %.3f, with anonymity sets %.3f, Reid@1 %.3f\n",
		m.Correct, m.N, m.Reid, m.ReidSets, m.ReidAtK[1])
	// Output:
	// masked 0: nearest 0 at 0.02, 1 tied, true 0 of rank 0
	// masked 1: nearest 1 at 0.125, 1 tied, true 1 of rank 0
	// masked 2: nearest 3 at 0.32, 1 tied, true 2 of rank 1
	// masked 3: nearest 2 at 0.5, 2 tied, true 3 of rank 0
	// 2 of 4 correct: Reid 0.500, with anonymity sets 0.625, Reid@1 0.750
}

// Three records with one categorical attribute, region, coded on a dictionary common to
// both files; the masking recoded region 2 of record 2 as 1. Of the 3 × 3 pairs, the 3
// true ones agree twice and disagree once; the 6 false ones agree once (original 1 with
// masked 2) and disagree five times. The supervised model (the intruder knows the truth,
// the worst case) therefore has m(agree) = 2/3, u(agree) = 1/6 and m(disagree) = 1/3,
// u(disagree) = 5/6, so the weights log2(m/u) are log2 4 = 2 and log2 0.4 ≈ −1.32.
// Linking each masked record to its best-weight original gets records 0 and 1 right and
// links record 2 to original 1, the only one it agrees with: Reid 2/3.
func ExamplePRL() {
	p := linkage.PRLProblem{
		Attributes: []linkage.PRLAttribute{{
			Name:     "region",
			Rule:     linkage.Rule{Kind: linkage.RuleEqual},
			Original: []float64{0, 1, 2},
			Masked:   []float64{0, 1, 1},
		}},
		TrueMasked:   []int{0, 1, 2},
		TrueOriginal: []int{0, 1, 2},
		Direction:    linkage.MaskedToOriginal,
	}
	r, err := linkage.PRL(p, linkage.PRLSettings{Supervised: true, NoAssignment: true})
	if err != nil {
		panic(err)
	}
	// Pattern 0 is level 0 (agree), pattern 1 level 1 (disagree).
	fmt.Printf("weights: agree %.2f, disagree %.2f\n", r.Weight[0], r.Weight[1])
	for j, rec := range r.Records {
		fmt.Printf("masked %d: best %d (%d tied), true %d\n", j, rec.Best, rec.Ties, rec.True)
	}
	// Measures is the best-weight mode's Reid family.
	fmt.Printf("%d of %d correct: Reid %.3f\n", r.Measures.Correct, r.Measures.N, r.Measures.Reid)
	// Output:
	// weights: agree 2.00, disagree -1.32
	// masked 0: best 0 (1 tied), true 0
	// masked 1: best 1 (1 tied), true 1
	// masked 2: best 1 (1 tied), true 2
	// 2 of 3 correct: Reid 0.667
}
