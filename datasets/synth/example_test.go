package synth_test

import (
	"fmt"
	"log"

	"github.com/reid-sdc/reid/datasets/synth"
)

func Example() {
	t, err := synth.Generate(synth.Settings{Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Rows(), "records")
	for _, c := range t.Columns {
		fmt.Println(c.Name, c.Kind)
	}
	// Output:
	// 2000 records
	// age_band categorical
	// sex categorical
	// region categorical
	// education categorical
	// marital categorical
	// age numeric
	// dependents numeric
	// wages numeric
	// business_income numeric
	// interest numeric
	// other_income numeric
	// total_income numeric
	// taxable_income numeric
	// federal_tax numeric
	// state_tax numeric
	// social_security numeric
	// weight numeric
}
