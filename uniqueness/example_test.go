package uniqueness_test

import (
	"fmt"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/uniqueness"
)

func Example() {
	// Eight sampled records with two keys; every record stands for 4 people (π = 1/4).
	// Σ r_i = 3·(¼ ln 4/¾) + 2·(⅓ − (⅓)² ln 4) + 3·0.106900 = 2.066.
	sample := &datasets.Table{Source: "sample", Columns: []datasets.Column{
		{Name: "sex", Kind: datasets.Categorical, Levels: []string{"f", "m"}, Codes: []int32{0, 0, 0, 1, 1, 1, 1, 0}},
		{Name: "age", Kind: datasets.Numeric, Values: []float64{23, 35, 61, 44, 29, 33, 38, 25}},
	}}
	res, err := uniqueness.Measure(sample, uniqueness.Options{
		Keys:     []uniqueness.Key{{Name: "sex"}, {Name: "age", Cuts: []float64{30, 50}}},
		Fraction: 0.25,
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("classes:", res.Classes.Len(), "sample uniques:", res.SampleUniques)
	for j := 0; j < res.Classes.Len(); j++ {
		fmt.Println(res.Classes.Label(j), res.Classes.Freq[j])
	}
	e := res.Primary
	fmt.Printf("%s: expected re-identifications %.3f, P(PU|SU) %.2f\n", e.Model, e.ExpectedReidentifications, e.PPUgivenSU)
	fmt.Println("k_min:", res.KAnonymity.KMin)
	// Output:
	// classes: 5 sample uniques: 3
	// [f <30] 2
	// [f [30,50)] 1
	// [f >=50] 1
	// [m [30,50)] 3
	// [m <30] 1
	// benedetti-franconi: expected re-identifications 2.066, P(PU|SU) 0.25
	// k_min: 1
}
