package optimize_test

import (
	"fmt"
	"math"

	"github.com/reid-sdc/reid/optimize"
)

// standardize z-scores the columns of records (rows) with the sample sd and returns the
// column-major matrix Learn takes.
func standardize(records [][]float64) [][]float64 {
	n, m := len(records), len(records[0])
	out := make([][]float64, m)
	for k := range m {
		mean, ss := 0.0, 0.0
		for _, r := range records {
			mean += r[k] / float64(n)
		}
		for _, r := range records {
			ss += (r[k] - mean) * (r[k] - mean)
		}
		sd := math.Sqrt(ss / float64(n-1))
		out[k] = make([]float64, n)
		for i, r := range records {
			out[k][i] = (r[k] - mean) / sd
		}
	}
	return out
}

// The toy example of Abril, Navarro-Arribas & Torra (2012): linking three original
// records to their masked versions, the Euclidean distance links two, the worst-case
// weighted mean all three. The Choquet integral, warm-started from the weighted mean
// (the hierarchy), can do no worse, which CheckHierarchy verifies.
func ExampleLearn() {
	original := standardize([][]float64{{1, 30, 27}, {2, 50, 47}, {3, 25, 31}})
	masked := standardize([][]float64{{1, 20, 47}, {2, 20, 47}, {3, 23, 31}})
	p := optimize.Problem{Queries: original, Refs: masked, Truth: []int{0, 1, 2}, Family: optimize.WM}
	wm, err := optimize.Learn(p, optimize.Settings{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("wm: %d of %d linked (Euclidean %d), bound %d, %v\n", wm.CorrectLinks, wm.N, wm.EuclideanLinks, wm.Bound, wm.Status)

	lifted, _ := optimize.Choquet.Lift(optimize.WM, wm.Params)
	p.Family = optimize.Choquet
	ch, err := optimize.Learn(p, optimize.Settings{WarmStarts: [][]float64{lifted}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("choquet: %d of %d linked, bound %d, %v\n", ch.CorrectLinks, ch.N, ch.Bound, ch.Status)
	fmt.Println("hierarchy:", optimize.CheckHierarchy([]optimize.Result{wm, ch}))
	// Output:
	// wm: 3 of 3 linked (Euclidean 2), bound 3, optimal
	// choquet: 3 of 3 linked, bound 3, optimal
	// hierarchy: <nil>
}
