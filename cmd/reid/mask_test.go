package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/datasets/mask"
)

// TestMaskParameterRequired: a parameter left out, or set to the value at which the
// method changes nothing, is a usage error (exit 2, one line saying what is valid) and
// writes nothing, instead of a "masked" copy of the input.
func TestMaskParameterRequired(t *testing.T) {
	dir := t.TempDir()
	// smallCSV with a column "one" of a single category.
	withOne := strings.NewReplacer("region\n", "region,one\n", ",n\n", ",n,x\n", ",s\n", ",s,x\n").Replace(smallCSV)
	in := writeCSV(t, dir, "in.csv", withOne)
	matrix := writeCSV(t, dir, "m.json", "[[0,1],[1,0]]")
	cases := []struct {
		name    string
		args    []string
		mention []string
	}{
		{"noise without p", []string{"--method", "noise"}, []string{"needs --p", "> 0"}},
		{"corrnoise without p", []string{"--method", "corrnoise"}, []string{"needs --p", "> 0"}},
		{"rankswap without p", []string{"--method", "rankswap"}, []string{"needs --p", "≤ 100"}},
		{"pram without p", []string{"--method", "pram"}, []string{"needs --p", "--matrix"}},
		{"noise p 0", []string{"--method", "noise", "--p", "0"}, []string{"--p 0", "> 0"}},
		{"corrnoise p 0", []string{"--method", "corrnoise", "--p", "0"}, []string{"--p 0"}},
		{"rankswap p 0", []string{"--method", "rankswap", "--p", "0"}, []string{"--p 0"}},
		{"pram p 0", []string{"--method", "pram", "--p", "0"}, []string{"--p 0"}},
		{"noise p negative", []string{"--method", "noise", "--p", "-5"}, []string{"--p -5"}},
		{"noise p NaN", []string{"--method", "noise", "--p", "NaN"}, []string{"--p NaN"}},
		{"noise p Inf", []string{"--method", "noise", "--p", "Inf"}, []string{"--p +Inf"}},
		{"rankswap p over 100", []string{"--method", "rankswap", "--p", "101"}, []string{"--p 101", "≤ 100"}},
		{"pram p over 100", []string{"--method", "pram", "--p", "100.5"}, []string{"--p 100.5", "≤ 100"}},
		{"mdav k 1", []string{"--method", "mdav", "--k", "1"}, []string{"--k", "at least 2"}},
		{"indrank k 1", []string{"--method", "indrank", "--k", "1"}, []string{"--k", "at least 2"}},
		{"mdav k 0", []string{"--method", "mdav", "--k", "0"}, []string{"--k", "at least 2"}},
		{"p with mdav", []string{"--method", "mdav", "--p", "10"}, []string{"--p does not apply to mdav"}},
		{"k with noise", []string{"--method", "noise", "--p", "10", "--k", "5"}, []string{"--k does not apply to noise"}},
		{"p and matrix", []string{"--method", "pram", "--p", "10", "--matrix", matrix}, []string{"--p and --matrix"}},
		{"matrix with noise", []string{"--method", "noise", "--p", "10", "--matrix", matrix}, []string{"--matrix goes with --method pram"}},
		// One row of two entries: the matrix is not square (the message said "want 1").
		{"matrix not square", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "wide.json", "[[0.9,0.1]]")},
			[]string{"wide.json", "the matrix is 1×2: it must be square"}},
		{"matrix ragged", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "ragged.json", "[[1,0],[0,1,0]]")},
			[]string{"ragged.json", "row 2", "the row has 3 entries, the first 2"}},
		// null read as 0, and [] said "<nil>".
		{"matrix null", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "null.json", "[[1,0],[null,1]]")},
			[]string{"null.json", "row 2", "entry 1 is null"}},
		{"matrix empty", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "empty.json", "[]")},
			[]string{"empty.json", "the matrix is empty"}},
		// "open …: no such file", where a missing data file reads "FILE: no such file".
		{"matrix missing", []string{"--method", "pram", "--attrs", "region", "--matrix", filepath.Join(dir, "nosuch.json")},
			[]string{"reid mask: " + filepath.Join(dir, "nosuch.json") + ": no such file or directory"}},
		// Rows counted from 1 as in the file (the message said "CheckPRAMMatrix: row 1" for
		// the second row).
		{"matrix row sum", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "sum.json", "[[0.5,0.5],[0.5,0.6]]")},
			[]string{"sum.json", "row 2", "sums to 1.1"}},
		{"matrix negative", []string{"--method", "pram", "--attrs", "region", "--matrix", writeCSV(t, dir, "neg.json", "[[1.5,-0.5],[0.5,0.5]]")},
			[]string{"neg.json", "row 1", "entry 2 is -0.5"}},
		// One category (id 1..7 read as categories would be 7): the message named
		// UniformPRAMMatrix and p as a fraction. Alone in --attrs it is the output
		// unchanged; beside others, a warning (TestMaskChangedNothing).
		{"pram one category", []string{"--method", "pram", "--p", "50", "--attrs", "one", "--types", "one:categorical"},
			[]string{`pram changed no value of "one"`, "at most one category besides missing values", "leave it out of --attrs"}},
		// k above the values: the message named mask's function (IndividualRanking) and
		// not the flag (mdav's case: TestBadInputCLI).
		{"indrank k over records", []string{"--method", "indrank", "--k", "8", "--attrs", "a"}, []string{"in.csv", `column "a"`, "--k 8 is more than the column's 7 values"}},
		{"attrs empty name", []string{"--method", "noise", "--p", "10", "--attrs", "a,"}, []string{"--attrs has an empty name"}},
		// A column of codes read as numbers: the message names the flag that reads it
		// as categories (a newcomer's pram on numeric codes).
		{"pram on numbers", []string{"--method", "pram", "--p", "10", "--attrs", "a"},
			[]string{`column "a"`, "pram masks categorical columns, this one is numeric (--types a:categorical reads it as categories)"}},
		// 7 records: the window ⌊p·7/100⌋ is 0 for p < 100/7; the least p in hundredths is 14.29.
		{"rankswap window 0", []string{"--method", "rankswap", "--p", "14", "--attrs", "a"}, []string{"in.csv", `column "a"`, "window of 0", "14.29"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := append([]string{"mask", "--out", out, in}, tc.args...)
			code, _, stderr := runReid(t, args...)
			expectInputError(t, code, stderr, tc.mention...)
			if _, err := os.Stat(out); err == nil {
				t.Error("output written")
			}
		})
	}
	// A matrix replaces p in the summary (it said "p=0").
	out := filepath.Join(t.TempDir(), "out.csv")
	if code, stdout, stderr := runReid(t, "mask", "--out", out, in, "--method", "pram", "--matrix", matrix, "--attrs", "region", "--seed", "4"); code != exitOK || !strings.Contains(stdout, "with pram (matrix="+matrix+" seed=4)") {
		t.Errorf("pram with a matrix: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	// A row rounded to six decimals sums to 1 within 1e-6 and is divided by its sum: the
	// swap matrix written so gives the exact one's output (a tester's [1/3]×3 refused).
	rounded := writeCSV(t, dir, "rounded.json", "[[0,1],[0.9999995,0]]")
	var outputs []string
	for _, mx := range []string{matrix, rounded} {
		out := filepath.Join(t.TempDir(), "out.csv")
		if code, _, stderr := runReid(t, "mask", "--out", out, in, "--method", "pram", "--matrix", mx, "--attrs", "region"); code != exitOK {
			t.Fatalf("%s: exit %d: %s", mx, code, stderr)
		}
		b, _ := os.ReadFile(out)
		outputs = append(outputs, string(b))
	}
	if outputs[0] != outputs[1] {
		t.Errorf("the rounded matrix's output differs from the exact one's:\n%s\n%s", outputs[1], outputs[0])
	}
	// The smallest valid values are accepted.
	for _, args := range [][]string{
		{"--method", "rankswap", "--p", "14.29", "--attrs", "a"},
		{"--method", "pram", "--p", "100", "--attrs", "region"},
		{"--method", "pram", "--matrix", matrix, "--attrs", "region"},
		{"--method", "mdav", "--k", "2"},
	} {
		out := filepath.Join(t.TempDir(), "out.csv")
		if code, _, stderr := runReid(t, append([]string{"mask", "--out", out, in}, args...)...); code != exitOK {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
		}
	}
}

// TestMaskMinRankSwapP: the suggested p gives a window of at least one rank, and one
// hundredth less does not.
func TestMaskMinRankSwapP(t *testing.T) {
	for n := 2; n <= 5000; n++ {
		p := minRankSwapP(n)
		if math.Floor(p*float64(n)/100) < 1 {
			t.Fatalf("n=%d: p=%v gives a window of 0", n, p)
		}
		if q := p - 0.01; math.Floor(q*float64(n)/100) >= 1 {
			t.Fatalf("n=%d: p=%v is not the least (%v works)", n, p, q)
		}
	}
}

// missingCSV has missing cells in every column; a and b have 5 present values of 6.
const missingCSV = `a,b,r
1,10,x
,20,y
3,,x
10,40,
12,50,y
20,60,x
`

// TestMaskMissingKeep: under --missing keep the univariate methods mask each column's
// present values as if the missing records were absent and leave missing cells missing.
// Expected values by hand.
func TestMaskMissingKeep(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", missingCSV)
	const miss = math.MaxFloat64 // marks a missing cell in the expectations
	cases := []struct {
		name string
		args []string
		col  string
		want []float64 // numeric columns
		cat  []string  // or categorical ("" missing)
	}{
		// Present a = 1,3,10,12,20 in rank order; k=2 gives ⌊5/2⌋ = 2 groups, {1,3} → 2
		// and {10,12,20} → 14 (the last absorbs the remainder).
		{"indrank a", []string{"--method", "indrank", "--k", "2"}, "a", []float64{2, miss, 2, 14, 14, 14}, nil},
		// Present b = 10,20,40,50,60: {10,20} → 15, {40,50,60} → 50.
		{"indrank b", []string{"--method", "indrank", "--k", "2"}, "b", []float64{15, 15, miss, 50, 50, 50}, nil},
		// p = 35: window ⌊35·5/100⌋ = 1 on the 5 present values (it would be 2 on 6), so
		// ranks 0↔1 and 2↔3 must swap and rank 4 has no partner: 1↔3, 10↔12, 20 stays.
		{"rankswap a", []string{"--method", "rankswap", "--p", "35", "--attrs", "a"}, "a", []float64{3, miss, 1, 12, 10, 20}, nil},
		// p = 100 with two levels: every present value moves to the other level.
		{"pram r", []string{"--method", "pram", "--p", "100"}, "r", nil, []string{"y", "x", "y", "", "x", "y"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := append([]string{"mask", "--missing", "keep", "--out", out, in}, tc.args...)
			if code, _, stderr := runReid(t, args...); code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			got, err := datasets.Load(out, datasets.LoadOptions{Missing: datasets.MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			c := got.Column(tc.col)
			for i, w := range tc.want {
				if (w == miss) != c.Missing(i) || (w != miss && c.Values[i] != w) {
					t.Errorf("row %d: %q, want %v", i+1, c.String(i), w)
				}
			}
			for i, w := range tc.cat {
				if (w == "") != c.Missing(i) || c.String(i) != w {
					t.Errorf("row %d: %q, want %q", i+1, c.String(i), w)
				}
			}
		})
	}
}

// TestMaskMissingKeepNoise: noise under --missing keep is the noise of the present values
// alone (same seed, same draws) and leaves the missing cells missing.
func TestMaskMissingKeepNoise(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", missingCSV)
	out := filepath.Join(dir, "out.csv")
	if code, _, stderr := runReid(t, "mask", "--missing", "keep", "--method", "noise", "--p", "20", "--seed", "4", "--out", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := datasets.Load(out, datasets.LoadOptions{Missing: datasets.MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	// The property: each column is masked as if its missing records were absent, so the
	// present cells equal the masking of a file holding only the present values (each
	// column's five, in order).
	complete := writeCSV(t, dir, "complete.csv", "a,b\n1,10\n3,20\n10,40\n12,50\n20,60\n")
	completeOut := filepath.Join(dir, "complete_out.csv")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "20", "--seed", "4", "--out", completeOut, complete); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	ref, err := datasets.Load(completeOut, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float64{ref.Column("a").Values, ref.Column("b").Values}
	for j, c := range []*datasets.Column{got.Column("a"), got.Column("b")} {
		missing := []int{1, 2}[j] // 0-based row of the column's missing cell
		r := 0
		for i := 0; i < c.Len(); i++ {
			if c.Missing(i) != (i == missing) {
				t.Errorf("%s row %d: missing %v", c.Name, i+1, c.Missing(i))
			}
			if i == missing {
				continue
			}
			// CSV holds the shortest decimal that reads back as the same float64.
			if c.Values[i] != want[j][r] {
				t.Errorf("%s row %d: %v, want %v", c.Name, i+1, c.Values[i], want[j][r])
			}
			r++
		}
	}
}

// TestMaskMissingKeepWholeRecord: mdav and corrnoise refuse a missing value even under
// --missing keep, naming the method and the first missing cell in reading order (row 2 of
// column "b", before row 3 of column "a").
func TestMaskMissingKeepWholeRecord(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "m.csv", "a,b\n1,5\n2,\n,7\n4,8\n")
	for _, args := range [][]string{{"--method", "mdav", "--k", "2"}, {"--method", "corrnoise", "--p", "10"}} {
		out := filepath.Join(t.TempDir(), "out.csv")
		code, _, stderr := runReid(t, append([]string{"mask", "--missing", "keep", "--out", out, in}, args...)...)
		expectInputError(t, code, stderr, "m.csv", `column "b"`, "row 2", args[1]+" cannot mask")
		if _, err := os.Stat(out); err == nil {
			t.Error("output written")
		}
	}
}

// TestMaskPerColumnIsWholeMatrix: without missing values, masking column by column gives
// exactly the method applied to the whole matrix, so files masked before per-column masking
// existed are reproduced.
func TestMaskPerColumnIsWholeMatrix(t *testing.T) {
	data := [][]float64{{1, 2, 3, 10, 11, 12, 13}, {10, 11, 12, 50, 51, 52, 53}}
	for _, method := range []string{"noise", "rankswap", "indrank"} {
		job := maskJob{method: method, k: 2, p: 60, seed: 7}
		var want [][]float64
		var err error
		switch method {
		case "noise":
			want, err = mask.AdditiveNoise(data, job.p, job.rng())
		case "rankswap":
			want, err = mask.RankSwap(data, job.p, job.rng())
		case "indrank":
			want, err = mask.IndividualRanking(data, job.k)
		}
		if err != nil {
			t.Fatal(err)
		}
		tab := &datasets.Table{Source: "t", Columns: []datasets.Column{
			{Name: "a", Kind: datasets.Numeric, Values: slices.Clone(data[0])},
			{Name: "b", Kind: datasets.Numeric, Values: slices.Clone(data[1])},
		}}
		if _, err := job.apply(tab); err != nil {
			t.Fatal(err)
		}
		for j := range data {
			if !slices.Equal(tab.Columns[j].Values, want[j]) {
				t.Errorf("%s column %d: %v, want %v", method, j, tab.Columns[j].Values, want[j])
			}
		}
	}
}

// TestMaskOutFormats: --out .arrows writes an IPC stream (continuation marker first, not
// the file format's "ARROW1"), and the unknown-extension error lists every accepted one.
func TestMaskOutFormats(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", smallCSV)
	out := filepath.Join(dir, "out.arrows")
	if code, _, stderr := runReid(t, "mask", "--method", "mdav", "--out", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte{0xff, 0xff, 0xff, 0xff}) {
		t.Errorf(".arrows starts with %q, want an IPC stream", b[:8])
	}
	code, _, stderr := runReid(t, "mask", "--method", "mdav", "--out", filepath.Join(dir, "out.xyz"), in)
	if code != exitInput {
		t.Errorf("exit %d", code)
	}
	for _, ext := range []string{".csv", ".txt", ".arrow", ".feather", ".ipc", ".arrows", ".parquet", ".pq"} {
		if !strings.Contains(stderr, ext) {
			t.Errorf("stderr %q does not list %s", stderr, ext)
		}
	}
}

// TestMaskCopiesText: the columns left out of --attrs are copied unchanged. From CSV to
// CSV that is their text, field by field (read back with encoding/csv, independently of
// reid's loader); to Parquet their values, the numbers as numbers.
func TestMaskCopiesText(t *testing.T) {
	dir := t.TempDir()
	const input = "id,x,a,b\n007,1.50,1,10\n010,2.25e1,2,20\n011, 3 ,4,40\n012,-0.0,8,80\n"
	in := writeCSV(t, dir, "in.csv", input)
	out := filepath.Join(dir, "out.csv")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "50", "--attrs", "a,b", "--out", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	want, got := readCSVFile(t, in), readCSVFile(t, out)
	if len(got) != len(want) {
		t.Fatalf("%d lines, want %d", len(got), len(want))
	}
	for i := range want {
		for j, name := range want[0] {
			same := got[i][j] == want[i][j]
			if masked := name == "a" || name == "b"; i > 0 && masked && same {
				t.Errorf("line %d: masked %s unchanged (%q)", i+1, name, got[i][j])
			} else if !masked && !same {
				t.Errorf("line %d: %s is %q, want %q", i+1, name, got[i][j], want[i][j])
			}
		}
	}
	pq := filepath.Join(dir, "out.parquet")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "50", "--attrs", "a,b", "--out", pq, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := datasets.Load(pq, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := tab.Column("id"); c.Kind != datasets.Numeric || !slices.Equal(c.Values, []float64{7, 10, 11, 12}) {
		t.Errorf("Parquet id: %v %v, want numbers 7 10 11 12", c.Kind, c.Values)
	}
}

// TestMaskRefusesNonFinite: noise of 1e308 % of the sd makes ±Inf, which no reader takes
// back: an input error naming the column and the row, and no output file.
func TestMaskRefusesNonFinite(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "a,b\n100000,1\n300000,2\n200000,3\n500000,4\n")
	out := filepath.Join(dir, "x.csv")
	code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "1e308", "--out", out, orig)
	if code != exitInput || !strings.Contains(stderr, `column "a", row `) || !strings.Contains(stderr, "not finite") {
		t.Errorf("exit %d, %q; want exit 2 naming column a, a row and the non-finite value", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("%s was written (%v)", out, err)
	}
}

// TestMaskWriteHoldsSignals: an interrupt while the masked file is written waits for it
// (here notify sends one as soon as it is asked for, which only the hold does): the
// file is whole, no temporary file is left, stderr says so, and the run exits 130 as the
// signal asked (it exited 0, which a script that sent SIGTERM reads as a normal end).
func TestMaskWriteHoldsSignals(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "a,b\n1,5\n3,2\n2,8\n5,4\n")
	out := filepath.Join(dir, "m.csv")
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, notify: func(c chan<- os.Signal) { c <- os.Interrupt }}
	if code := run([]string{"mask", "--method", "noise", "--p", "10", "--seed", "1", "--out", out, orig}, e); code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupt while the output was written: it is whole") {
		t.Errorf("stderr %q does not tell of the interrupt", stderr.String())
	}
	tab, err := datasets.Load(out, datasets.LoadOptions{})
	if err != nil || tab.Rows() != 4 {
		t.Errorf("the masked file: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("%d files in the directory, want the input and the output: %v", len(entries), entries)
	}
}

// A masking that changes no value of an attribute is told: of every attribute, the output
// would be the input called masked, refused with exit 2 and no file (noise of 1e-300 % of
// the sd is lost in rounding; an identity --matrix is refused before the work); of some,
// a warning names them. The tester's files: noise wrote the input unchanged with exit 0;
// then, with zeros in the file, every value but the zeros (made ±1e-303) unchanged.
func TestMaskChangedNothing(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", "a,b,c\n0,1,x\n20,0,y\n35,3,x\n41,4,y\n50,5,x\n66,6,y\n")
	oneValue := writeCSV(t, dir, "one.csv", "a,b\n5,1\nNA,2\n5,3\nNA,4\n5,8\n")
	matrix := filepath.Join(dir, "id.json")
	if err := os.WriteFile(matrix, []byte("[[1,0],[0,1]]"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "noise", "--p", "1e-300"}, `noise changed no value of "a", "b": the output would be the input; a larger --p`},
		{[]string{"--method", "pram", "--matrix", matrix}, "id.json: the identity matrix keeps every category"},
		// Under --missing keep a column of one value besides missing ones loads: no
		// masking changes it, and "a larger --p" would not help.
		{[]string{"--method", "noise", "--p", "10", "--missing", "keep", "--attrs", "a", oneValue}, `noise changed no value of "a": the output would be the input; one value besides missing ones`},
	} {
		args := append([]string{"mask"}, tc.args...)
		if !strings.HasSuffix(args[len(args)-1], ".csv") {
			args = append(args, in)
		}
		code, _, stderr := runReid(t, append(args, "--out", out)...)
		if code != exitInput || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want exit 2 saying %q", tc.args, code, stderr, tc.want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%v: %s was written", tc.args, out)
		}
	}
	// Some attributes changed: no error, and a warning only of those that did not. PRAM
	// with p = 100 changes every value of two categories; indrank with k = 2 averages
	// a's pairs (1, 2 → 1.5) and leaves b's (7, 7 and 9, 9) as they were.
	code, stdout, stderr := runReid(t, "mask", "--method", "pram", "--p", "100", "--attrs", "c", "--format", "json", "--out", out, in)
	if code != exitOK {
		t.Fatalf("pram p=100: exit %d: %s", code, stderr)
	}
	if strings.Contains(stdout, "warnings") {
		t.Errorf("pram p = 100 changes every value of c, but: %s", stdout)
	}
	// A column of one category beside others (pram's default --attrs) or, under
	// --missing keep, of one present value is left as it is with a warning, as a constant
	// column is (pram refused the file; noise and indrank failed in mask's functions).
	oneCategory := writeCSV(t, dir, "onecat.csv", "g,h\nx,a\nx,b\nx,a\nx,b\n")
	swapMatrix := writeCSV(t, dir, "swap.json", "[[0,1],[1,0]]")
	onePresent := writeCSV(t, dir, "onep.csv", "a,b\n1,5\n2,NA\n3,NA\n4,NA\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "pram", "--p", "100", oneCategory}, `pram changed no value of \"g\": written as they were (at most one category besides missing values`},
		// With a --matrix too (it refused the file: "matrix is 2×2 but the column has 1
		// categories").
		{[]string{"--method", "pram", "--matrix", swapMatrix, oneCategory}, `pram changed no value of \"g\": written as they were (at most one category besides missing values`},
		{[]string{"--method", "noise", "--p", "50", "--missing", "keep", onePresent}, `noise changed no value of \"b\": written as they were (one value besides missing ones`},
		{[]string{"--method", "indrank", "--k", "2", "--missing", "keep", onePresent}, `indrank changed no value of \"b\": written as they were (one value besides missing ones`},
	} {
		code, stdout, stderr := runReid(t, append([]string{"mask", "--format", "json", "--out", out}, tc.args...)...)
		if code != exitOK || !strings.Contains(stdout, tc.want) {
			t.Errorf("%v: exit %d, %s %s; want a warning %s", tc.args, code, stdout, stderr, tc.want)
		}
	}
	twins := writeCSV(t, dir, "twins.csv", "a,b\n1,7\n2,7\n5,9\n6,9\n")
	code, stdout, stderr = runReid(t, "mask", "--method", "indrank", "--k", "2", "--format", "json", "--out", out, twins)
	if code != exitOK || !strings.Contains(stdout, `indrank changed no value of \"b\": written as they were (a larger --k`) {
		t.Errorf("indrank on pairs of equal b: exit %d, %s %s; want a warning of b", code, stdout, stderr)
	}
}

// A signal that comes after the masked file is in place, while the summary is printed,
// is held too: a tester's SIGTERM there killed the run (exit 143, read as "nothing
// written", the file in place). Here stdout sends SIGTERM on the relay notify was given
// at its first write; the run finishes and exits 130.
func TestMaskSignalDuringSummary(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "a,b\n1,5\n3,2\n2,8\n5,4\n")
	out := filepath.Join(dir, "m.csv")
	var relay chan<- os.Signal
	var stderr bytes.Buffer
	stdout := writeFunc(func(p []byte) (int, error) {
		if relay != nil {
			select {
			case relay <- syscall.SIGTERM:
			default:
			}
		}
		return len(p), nil
	})
	e := &env{stdout: stdout, stderr: &stderr, notify: func(c chan<- os.Signal) { relay = c }}
	if code := run([]string{"mask", "--method", "noise", "--p", "10", "--out", out, orig}, e); code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, stderr.String())
	}
	if !strings.Contains(stderr.String(), "terminated while the output was written: it is whole") {
		t.Errorf("stderr %q does not tell of the signal", stderr.String())
	}
	if tab, err := datasets.Load(out, datasets.LoadOptions{}); err != nil || tab.Rows() != 4 {
		t.Errorf("the masked file: %v", err)
	}
}

// writeFunc is an io.Writer made of a function.
type writeFunc func(p []byte) (int, error)

func (f writeFunc) Write(p []byte) (int, error) { return f(p) }

// TestMaskPRAMMatrixSortedOrder: --matrix's rows and columns are the categories in sorted
// order of their labels, whatever order the file has them in. The matrix keeps a, and
// swaps b and c (rows a: [1 0 0], b: [0 0 1], c: [0 1 0]); the file's first categories
// are c, a, b, in whose order the same matrix would keep c and swap a and b.
func TestMaskPRAMMatrixSortedOrder(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", "r,x\nc,1\na,2\nb,3\nc,4\na,5\n")
	matrix := writeCSV(t, dir, "m.json", "[[1,0,0],[0,0,1],[0,1,0]]")
	out := filepath.Join(dir, "out.csv")
	if code, _, stderr := runReid(t, "mask", "--method", "pram", "--matrix", matrix, "--attrs", "r", "--out", out, in); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	tab, err := datasets.Load(out, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := tab.Column("r")
	var got []string
	for i := range tab.Rows() {
		got = append(got, r.String(i))
	}
	if want := []string{"b", "a", "c", "b", "a"}; !slices.Equal(got, want) {
		t.Errorf("pram with a → a, b → c, c → b gave %v, want %v", got, want)
	}
}

// TestMaskMatrixErrorsNameTheMatrix: a --matrix whose last row sums to 0.9 is reported
// in the matrix file's own rows (counted from 1, as its other errors are), naming that
// file, not the data file, whatever order the categories have in the data.
func TestMaskMatrixErrorsNameTheMatrix(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "p.csv", "r,x\nc,1\na,2\nb,3\n")
	matrix := writeCSV(t, dir, "m.json", "[[1,0,0],[0,0,1],[0,0.5,0.4]]")
	code, _, stderr := runReid(t, "mask", "--method", "pram", "--matrix", matrix, "--attrs", "r", "--out", filepath.Join(dir, "o.csv"), in)
	if code != exitInput || !strings.HasPrefix(stderr, "reid mask: "+matrix+", row 3: ") || !strings.Contains(stderr, "sums to 0.9") {
		t.Errorf("exit %d, %q; want exit 2 naming %s and its row 3", code, stderr, matrix)
	}
}

// TestMaskWriteToFIFONotHeld: an output that is a named pipe is written directly and
// may block until a reader comes; signals are not held then, so that one still stops it
// (held, three signals left the process waiting for a reader, then exit 0).
func TestMaskWriteToFIFONotHeld(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", "a,b\n1,5\n3,2\n2,8\n5,4\n")
	fifo := filepath.Join(dir, "out.csv")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no named pipes here:", err)
	}
	read := make(chan []byte)
	go func() {
		b, _ := os.ReadFile(fifo)
		read <- b
	}()
	held := false
	var stdout, stderr bytes.Buffer
	e := &env{stdout: &stdout, stderr: &stderr, notify: func(c chan<- os.Signal) { held = true }}
	if code := run([]string{"mask", "--method", "noise", "--p", "10", "--out", fifo, in}, e); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if b := <-read; !bytes.HasPrefix(b, []byte("a,b\n")) {
		t.Errorf("the pipe carried %q", b)
	}
	if held {
		t.Error("signals were held while writing to a named pipe")
	}
}

// A column named in Latin-1 (not UTF-8) is masked and copied CSV to CSV with its header's
// bytes as they were: the loader shows the name as v\xe9, and the copy finds the field by
// that name.
func TestMaskLatin1Header(t *testing.T) {
	dir := t.TempDir()
	var in strings.Builder
	in.WriteString("v\xe9,w\n")
	for i := range 10 {
		fmt.Fprintf(&in, "%d,caf\xe9%d\n", 3*i+i%4, i%2)
	}
	input := writeCSV(t, dir, "in.csv", in.String())
	out := filepath.Join(dir, "out.csv")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--out", out, input); code != exitOK {
		t.Fatalf("mask: exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(got), "\n")
	if lines[0] != "v\xe9,w" || !strings.HasSuffix(lines[1], ",caf\xe90") {
		t.Errorf("output begins %q, %q; want the header and labels byte for byte", lines[0], lines[1])
	}
	// PRAM rewrites the labels of w: as their bytes, not as the loader's caf\xe90 text,
	// in a CSV copy and in a CSV written from Parquet.
	pq := filepath.Join(dir, "in.parquet")
	if code, _, stderr := runReid(t, "mask", "--method", "pram", "--p", "50", "--attrs", "w", "--out", pq, input); code != exitOK {
		t.Fatalf("pram to Parquet: exit %d: %s", code, stderr)
	}
	// The Parquet file is masked with another seed: with two categories and p = 50 each
	// output value is either category with chance ½ whatever the input, so the same seed
	// would draw the Parquet file's own values again, and an output equal to its input
	// is refused.
	for _, c := range []struct{ in, out, seed string }{{input, filepath.Join(dir, "pram.csv"), "1"}, {pq, filepath.Join(dir, "pram2.csv"), "2"}} {
		if code, _, stderr := runReid(t, "mask", "--method", "pram", "--p", "50", "--seed", c.seed, "--attrs", "w", "--out", c.out, c.in); code != exitOK {
			t.Fatalf("pram %s: exit %d: %s", c.in, code, stderr)
		}
		got, err := os.ReadFile(c.out)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(got), `\x`) || !strings.HasPrefix(string(got), "v\xe9,w\n") || strings.Count(string(got), "caf\xe9") != 10 {
			t.Errorf("pram from %s wrote:\n%q", filepath.Base(c.in), got)
		}
	}
}

// A one-column file whose quoted header holds ';' is masked into a file with the header
// still quoted: written bare, reid itself refused it as a semicolon export.
func TestMaskQuotedSemicolonHeader(t *testing.T) {
	dir := t.TempDir()
	input := writeCSV(t, dir, "q.csv", "\"income; USD\"\n10\n20\n35\n41\n")
	for _, out := range []string{filepath.Join(dir, "q1.csv"), filepath.Join(dir, "q1.parquet")} {
		if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--out", out, input); code != exitOK {
			t.Fatalf("mask to %s: exit %d: %s", out, code, stderr)
		}
	}
	back := filepath.Join(dir, "q2.csv")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--out", back, filepath.Join(dir, "q1.parquet")); code != exitOK {
		t.Fatalf("mask from Parquet: exit %d: %s", code, stderr)
	}
	for _, f := range []string{filepath.Join(dir, "q1.csv"), back} {
		got, _ := os.ReadFile(f)
		if !strings.HasPrefix(string(got), "\"income; USD\"\n") {
			t.Errorf("%s begins %q", filepath.Base(f), got)
		}
		if code, _, stderr := runReid(t, "describe", f); code != exitOK {
			t.Errorf("describe %s: exit %d: %s", filepath.Base(f), code, stderr)
		}
	}
}

// With the masked file on standard output, mask's summary goes to stderr: after the data,
// on stdout, it made the file unreadable ("row 7: not a number: masked 6 records ...").
func TestMaskSummaryBesideStdout(t *testing.T) {
	for _, c := range []struct {
		output   string
		toStderr bool
	}{{"/dev/stdout", true}, {"/dev/fd/1", true}, {"out.csv", false}, {"/dev/stderr", false}} {
		var out, errOut bytes.Buffer
		s := &maskSummary{Method: "noise", Input: "in.csv", Output: pathText(c.output), Records: 6, Attributes: []string{"x"}}
		if err := printMaskSummary(&env{stdout: &out, stderr: &errOut}, s, "text"); err != nil {
			t.Fatal(err)
		}
		onStderr := errOut.Len() > 0 && out.Len() == 0
		onStdout := out.Len() > 0 && errOut.Len() == 0
		if onStderr != c.toStderr || onStdout == c.toStderr {
			t.Errorf("--out %s: stdout %q, stderr %q", c.output, out.String(), errOut.String())
		}
	}
}

// --missing applies to the attributes masked: a missing value in a column left out of
// --attrs is copied (it stopped the job under the default policy), one in a masked
// column is refused under --missing error, and masked around under keep.
func TestMaskMissingOutsideAttrs(t *testing.T) {
	dir := t.TempDir()
	input := writeCSV(t, dir, "mx.csv", "x,y\n1,10\n,20\n3,30\n4,12\n")
	for _, format := range []string{"csv", "parquet"} {
		out := filepath.Join(dir, "o."+format)
		if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--attrs", "y", "--out", out, input); code != exitOK {
			t.Fatalf("%s: exit %d: %s", format, code, stderr)
		}
		tab, err := datasets.Load(out, datasets.LoadOptions{Missing: datasets.MissingKeep})
		if err != nil {
			t.Fatal(err)
		}
		if x := tab.Column("x"); !x.Missing(1) || x.Values[0] != 1 || x.Values[3] != 4 || tab.Column("y").Values[0] == 10 {
			t.Errorf("%s: x %v (missing %v), y %v", format, x.Values, x.Valid, tab.Column("y").Values)
		}
	}
	out := filepath.Join(dir, "o2.csv")
	code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--attrs", "x", "--out", out, input)
	expectInputError(t, code, stderr, "reid mask: "+input+`: column "x", row 2: missing value`)
	if _, err := os.Stat(out); err == nil {
		t.Error("an output was written")
	}
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--attrs", "x", "--missing", "keep", "--out", out, input); code != exitOK {
		t.Errorf("keep: exit %d: %s", code, stderr)
	}
}

// --types cuts an entry at its last colon: a column named a:b is typed a:b:categorical,
// which the pram hint suggests (it was read as column "a" of type "b:categorical").
func TestTypesNameWithColon(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("id,\"a:b\"\n")
	for i := range 20 {
		fmt.Fprintf(&b, "%d,%d\n", i+1, i%4)
	}
	in := writeCSV(t, dir, "in.csv", b.String())
	out := filepath.Join(dir, "out.csv")
	code, _, stderr := runReid(t, "mask", "--method", "pram", "--p", "10", "--attrs", "a:b", "--out", out, in)
	if code != exitInput || !strings.Contains(stderr, "(--types a:b:categorical reads it as categories)") {
		t.Fatalf("numeric a:b: exit %d, %q", code, stderr)
	}
	if code, _, stderr := runReid(t, "mask", "--method", "pram", "--p", "10", "--attrs", "a:b", "--types", "a:b:categorical", "--out", out, in); code != exitOK {
		t.Errorf("--types a:b:categorical: exit %d, %q", code, stderr)
	}
}

// TestMaskCSVRefusesMissingLabels: an Arrow category "NA" (or "") would read back from a
// CSV output as a missing value: mask refuses it before the work, naming column and row,
// and writes nothing; to Arrow it is kept.
func TestMaskCSVRefusesMissingLabels(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.arrow")
	tab := &datasets.Table{Source: "in", Columns: []datasets.Column{
		{Name: "a", Kind: datasets.Numeric, Values: []float64{1, 2, 3, 4}},
		{Name: "s", Kind: datasets.Categorical, Levels: []string{"x", "NA"}, Codes: []int32{0, 1, 0, 0}},
	}}
	if err := datasets.Write(in, tab, datasets.FormatAuto); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--attrs", "a", "--out", out, in)
	expectInputError(t, code, stderr, out+`: column "s", row 2: a category that CSV reads back as a missing value: "NA"`)
	if _, err := os.Stat(out); err == nil {
		t.Error("output written")
	}
	kept := filepath.Join(dir, "out.arrow")
	if code, _, stderr := runReid(t, "mask", "--method", "noise", "--p", "10", "--attrs", "a", "--out", kept, in); code != exitOK {
		t.Fatalf("to Arrow: exit %d: %s", code, stderr)
	}
	back, err := datasets.Load(kept, datasets.LoadOptions{})
	if err != nil || back.Column("s").String(1) != "NA" {
		t.Errorf("to Arrow: %v", err)
	}
}
