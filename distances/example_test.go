package distances_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/reid-sdc/reid/distances"
)

// Two records of three standardised attributes; their diffs (z_i(a) − z_i(b))² are
// (1, 4, 9).
func Example_owaAndChoquet() {
	a := []float64{0, 0, 0}
	b := []float64{1, 2, 3}

	// OWA: w_1 weighs the largest diff: 0.5·9 + 0.3·4 + 0.2·1.
	owa, err := distances.NewOWA([]float64{0.5, 0.3, 0.2})
	if err != nil {
		panic(err)
	}
	fmt.Printf("owa      %.4g\n", owa.Distance(a, b))

	// Choquet: μ by bitmask, attribute 1 = bit 0:
	// ∅, {1}, {2}, {1,2}, {3}, {1,3}, {2,3}, {1,2,3}.
	mu := []float64{0, 0.1, 0.2, 0.4, 0.3, 0.5, 0.6, 1}
	cq, err := distances.NewChoquet(mu, 3)
	if err != nil {
		panic(err)
	}
	// 1·μ({1,2,3}) + (4 − 1)·μ({2,3}) + (9 − 4)·μ({3}).
	fmt.Printf("choquet  %.4g\n", cq.Distance(a, b))

	// A symmetric measure built from the OWA weights gives the OWA back.
	sym, err := distances.NewChoquet(distances.SymmetricMeasure([]float64{0.5, 0.3, 0.2}), 3)
	if err != nil {
		panic(err)
	}
	fmt.Printf("symmetric %.4g\n", sym.Distance(a, b))
	// Output:
	// owa      5.9
	// choquet  4.3
	// symmetric 5.9
}

func ExampleReadParams() {
	attrs := []string{"AGI", "FICA", "PTOTVAL"}
	op, err := distances.ReadParams(strings.NewReader(
		`{"operator": "wm", "weights": {"AGI": 0.2, "FICA": 0.3, "PTOTVAL": 0.5}}`), attrs)
	if err != nil {
		panic(err)
	}
	// 0.2·1 + 0.3·4 + 0.5·9
	fmt.Printf("%s %.4g\n", op.Name(), op.Distance([]float64{0, 0, 0}, []float64{1, 2, 3}))
	if err := distances.WriteParams(os.Stdout, op, attrs); err != nil {
		panic(err)
	}
	// Output:
	// wm 5.9
	// {
	//   "operator": "wm",
	//   "attributes": ["AGI", "FICA", "PTOTVAL"],
	//   "weights": {
	//     "AGI": 0.2,
	//     "FICA": 0.3,
	//     "PTOTVAL": 0.5
	//   }
	// }
}

// The Shapley value of each attribute and the interaction of the pair under a fuzzy
// measure on two attributes: μ({1}) = 0.2, μ({2}) = 0.5, μ({1,2}) = 1. Together they weigh
// more than apart (interaction 1 − 0.2 − 0.5 = 0.3 > 0), and the Shapley values share
// μ(V) = 1: φ_1 = (0.2 + (1 − 0.5))/2.
func ExampleShapleyValues() {
	mu := []float64{0, 0.2, 0.5, 1} // indexed by bitmask: ∅, {1}, {2}, {1,2}
	fmt.Printf("%.2f\n", distances.ShapleyValues(mu, 2))
	fmt.Printf("%.2f\n", distances.InteractionIndices(mu, 2)[0][1])
	// Output:
	// [0.35 0.65]
	// 0.30
}
