package datasets_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/reid-sdc/reid/datasets"
)

// The path a caller takes before any linkage: load an original file and its masked
// release, pair them, z-score each within its own file and take the column-major
// matrices that linkage.Problem and optimize.Problem expect.
//
// The masked file lists the records in another order (c, a, b) and has swapped the
// incomes of b and c, so the id column, not the row order, gives the true link: original
// row a (0) is masked row 1, b (1) is row 2, c (2) is row 0. Each column of both files
// holds the three values v̄ − s, v̄, v̄ + s in some order (ages 30, 40, 50: mean 40, sample
// sd 10; incomes: mean 2000, sd 1000), so every z-score is −1, 0 or 1.
func Example() {
	dir, err := os.MkdirTemp("", "reid-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			panic(err)
		}
		return path
	}
	origPath := write("original.csv", "id,age,income\na,30,1000\nb,40,2000\nc,50,3000\n")
	maskPath := write("masked.csv", "id,age,income\nc,50,2000\na,30,1000\nb,40,3000\n")

	// The zero LoadOptions infer the column types (id is text, so categorical) and
	// reject missing values.
	orig, err := datasets.Load(origPath, datasets.LoadOptions{})
	if err != nil {
		panic(err)
	}
	masked, err := datasets.Load(maskPath, datasets.LoadOptions{})
	if err != nil {
		panic(err)
	}
	// Without Attributes, every column of the original but the id is linked on.
	p, err := datasets.Pair(orig, masked, datasets.PairOptions{ID: "id"})
	if err != nil {
		panic(err)
	}
	fmt.Println("attributes:", p.Attributes)
	fmt.Println("true masked row of each original row:", p.TrueMasked)
	fmt.Println("true original row of each masked row:", p.TrueOriginal)

	// Each file is standardised with its own mean and sd, the convention of the
	// record-linkage literature (see the package documentation).
	zo, err := datasets.Standardize(p.Original, datasets.StandardizeOptions{})
	if err != nil {
		panic(err)
	}
	zm, err := datasets.Standardize(p.Masked, datasets.StandardizeOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Println("original means:", zo.Mean, "sds:", zo.SD)
	xo, err := zo.Table.NumericMatrix()
	if err != nil {
		panic(err)
	}
	xm, err := zm.Table.NumericMatrix()
	if err != nil {
		panic(err)
	}
	// Column-major: xo[k][i] is attribute k of record i.
	fmt.Println("original z:", xo)
	fmt.Println("masked z:  ", xm)
	// Output:
	// attributes: [age income]
	// true masked row of each original row: [1 2 0]
	// true original row of each masked row: [2 0 1]
	// original means: [40 2000] sds: [10 1000]
	// original z: [[-1 0 1] [-1 0 1]]
	// masked z:   [[1 -1 0] [0 -1 1]]
}

// Standardize z-scores numeric columns with the sample sd, passes categorical columns
// through, and refuses a constant column (it has no scale) unless told to drop it.
// x = 1, 2, 3 has mean 2 and sd √((1 + 0 + 1)/2) = 1, so its z-scores are −1, 0, 1.
func ExampleStandardize() {
	t := &datasets.Table{Source: "people.csv", Columns: []datasets.Column{
		{Name: "x", Kind: datasets.Numeric, Values: []float64{1, 2, 3}},
		{Name: "k", Kind: datasets.Numeric, Values: []float64{5, 5, 5}},
		{Name: "region", Kind: datasets.Categorical, Codes: []int32{0, 1, 0}, Levels: []string{"north", "south"}},
	}}
	_, err := datasets.Standardize(t, datasets.StandardizeOptions{})
	fmt.Println(errors.Is(err, datasets.ErrConstantColumn), err)

	z, err := datasets.Standardize(t, datasets.StandardizeOptions{DropConstant: true})
	if err != nil {
		panic(err)
	}
	fmt.Println("dropped:", z.Dropped, "columns:", z.Table.Names())
	fmt.Println("x:", z.Table.Column("x").Values, "mean", z.Mean[0], "sd", z.SD[0])

	// A distance needs numbers: the categorical column must be left out (or linked on
	// by equality, as probabilistic linkage does).
	_, err = z.Table.NumericMatrix()
	fmt.Println(errors.Is(err, datasets.ErrNotNumeric), err)
	num, err := z.Table.Select([]string{"x"})
	if err != nil {
		panic(err)
	}
	m, err := num.NumericMatrix()
	if err != nil {
		panic(err)
	}
	fmt.Println(m)
	// Output:
	// true people.csv: column "k": constant column (drop it): every value is 5
	// dropped: [k] columns: [x region]
	// x: [-1 0 1] mean 2 sd 1
	// true people.csv: column "region": not a number
	// [[-1 0 1]]
}
