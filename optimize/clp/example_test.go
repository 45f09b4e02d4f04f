package clp_test

import (
	"fmt"
	"math"

	"github.com/reid-sdc/reid/optimize/clp"
)

// Solve
//
//	maximise 3x + 2y  s.t.  x + y ≤ 4,  x + 3y ≤ 9,  0 ≤ x ≤ 3,  y ≥ 0.
func Example() {
	m := clp.New()
	defer m.Close()

	inf := math.Inf(1)
	// Column-major matrix: column x has 1 in rows 0 and 1, column y has 1
	// in row 0 and 3 in row 1.
	err := m.LoadProblem(2,
		[]int{0, 2, 4}, []int{0, 1, 0, 1}, []float64{1, 1, 1, 3},
		[]float64{0, 0}, []float64{3, inf}, // column bounds
		[]float64{3, 2},                        // objective
		[]float64{-inf, -inf}, []float64{4, 9}, // row bounds
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	m.SetSense(clp.Maximize)

	status := m.Dual()
	fmt.Println(status)
	fmt.Printf("objective %.4g at x = %.4g\n", m.ObjectiveValue(), m.Solution(nil))
	fmt.Printf("row duals %.4g, reduced costs %.4g\n", m.Duals(nil), m.ReducedCosts(nil))

	// Output:
	// optimal
	// objective 11 at x = [3 1]
	// row duals [2 0], reduced costs [1 0]
}
