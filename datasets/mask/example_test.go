package mask_test

import (
	"fmt"

	"github.com/reid-sdc/reid/datasets/mask"
)

// Six records of one attribute in two obvious clusters, k = 3: each record is replaced by
// the mean of its cluster.
func ExampleMDAV() {
	data := [][]float64{{10, 1, 12, 3, 11, 2}}
	masked, groups, err := mask.MDAV(data, 3)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(masked[0])
	fmt.Println(groups)

	_, _, err = mask.MDAV(data, 7)
	fmt.Println(err)
	// Output:
	// [11 2 11 2 11 2]
	// [1 0 1 0 1 0]
	// mask: MDAV: k (7) is larger than the number of records (6)
}
