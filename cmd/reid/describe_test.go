package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// TestDescribeTypes: describe reports an Arrow or Parquet text column as categorical even
// when its labels look like numbers ("08001" and "8001" are two categories), as mask
// writes a categorical column; --types code:numeric reads the labels as numbers, and a
// label that is not one is an input error naming the file, column, row and value.
func TestDescribeTypes(t *testing.T) {
	dir := t.TempDir()
	codes := func(labels ...string) *datasets.Table {
		tab := &datasets.Table{Columns: []datasets.Column{
			{Name: "x", Kind: datasets.Numeric, Values: []float64{1, 2, 3}},
			{Name: "code", Kind: datasets.Categorical, Levels: labels, Codes: []int32{0, 1, 0}},
		}}
		return tab
	}
	var files []string
	for _, name := range []string{"codes.parquet", "codes.arrow", "codes.arrows", "bad.parquet", "bad.arrow"} {
		p := filepath.Join(dir, name)
		tab := codes("08001", "8001")
		if strings.HasPrefix(name, "bad") {
			tab = codes("7", "x") // rows: 7, x, 7
		}
		if err := datasets.Write(p, tab, datasets.FormatAuto); err != nil {
			t.Fatal(err)
		}
		files = append(files, p)
	}
	type want struct {
		kind       string
		categories int
		mean       float64
	}
	cases := []struct {
		file    string
		args    []string
		code    int
		want    want   // of column "code"
		mention string // in stderr, when it fails
	}{
		{files[0], nil, exitOK, want{"categorical", 2, 0}, ""},
		{files[1], nil, exitOK, want{"categorical", 2, 0}, ""},
		{files[2], nil, exitOK, want{"categorical", 2, 0}, ""},
		// 08001, 8001, 08001 as numbers: 8001 three times.
		{files[0], []string{"--types", "code:numeric"}, exitOK, want{"numeric", 0, 8001}, ""},
		{files[1], []string{"--types", "code:numeric"}, exitOK, want{"numeric", 0, 8001}, ""},
		{files[3], []string{"--types", "code:numeric"}, exitInput, want{}, files[3] + `: column "code", row 2: not a number: "x"`},
		{files[4], []string{"--types", "code:numeric"}, exitInput, want{}, files[4] + `: column "code", row 2: not a number: "x"`},
		{files[0], []string{"--types", "zz:numeric"}, exitInput, want{}, files[0] + `: column "zz": no such column`},
	}
	for _, tc := range cases {
		t.Run(filepath.Base(tc.file)+strings.Join(tc.args, " "), func(t *testing.T) {
			args := append(append([]string{"describe", "--format", "json"}, tc.args...), tc.file)
			code, out, stderr := runReid(t, args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %q", code, tc.code, stderr)
			}
			if tc.mention != "" {
				if strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.mention) {
					t.Errorf("%q is not one line mentioning %s", stderr, tc.mention)
				}
				return
			}
			var d fileDescription
			if err := json.Unmarshal([]byte(out), &d); err != nil {
				t.Fatal(err)
			}
			if len(d.Columns) != 2 || d.Columns[0].Type != "numeric" {
				t.Fatalf("columns %+v", d.Columns)
			}
			c := d.Columns[1]
			got := want{kind: c.Type}
			if c.Categories != nil {
				got.categories = *c.Categories
			}
			if c.Mean != nil {
				got.mean = *c.Mean
			}
			if got != tc.want {
				t.Errorf("code: %+v, want %+v", got, tc.want)
			}
		})
	}
}

// An all-missing column (--missing keep) is described as such: a categorical one with 0
// categories (the key was dropped from the JSON), a numeric one with no mean, sd, min or
// max (they read 0) and "-" in the text table.
func TestDescribeAllMissing(t *testing.T) {
	file := writeCSV(t, t.TempDir(), "na.csv", "a,b,c\n1,,x\n2,NA,\n")
	code, out, stderr := runReid(t, "describe", "--missing", "keep", "--types", "b:numeric", "--format", "json", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var raw struct{ Columns []map[string]any }
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	b, c := raw.Columns[1], raw.Columns[2]
	if b["missing"] != 2.0 || b["mean"] != nil || b["sd"] != nil || b["min"] != nil || b["max"] != nil || b["categories"] != nil {
		t.Errorf("all-missing numeric column: %v", b)
	}
	if c["categories"] != 1.0 || c["missing"] != 1.0 {
		t.Errorf("categorical column: %v", c)
	}
	code, out, _ = runReid(t, "describe", "--missing", "keep", "--format", "json", file)
	if err := json.Unmarshal([]byte(out), &raw); code != exitOK || err != nil {
		t.Fatalf("exit %d: %v", code, err)
	}
	if b := raw.Columns[1]; b["type"] != "categorical" || b["categories"] != 0.0 {
		t.Errorf("all-missing text column: %v", b)
	}
	code, text, _ := runReid(t, "describe", "--missing", "keep", "--types", "b:numeric", file)
	if code != exitOK || !strings.Contains(text, "numeric        2     -") {
		t.Errorf("text table:\n%s", text)
	}
}

// TestDescribeOneValue: a numeric column with one present value has a mean, min and max
// (that value) but no sample sd (n − 1 = 0): none in the JSON, "-" in the text, where it
// said 0; two equal values have sd 0.
func TestDescribeOneValue(t *testing.T) {
	file := writeCSV(t, t.TempDir(), "one.csv", "x,y,z\n1,,4\n2,5,4\n3,,\n")
	var raw struct{ Columns []map[string]any }
	runJSON(t, &raw, "describe", "--missing", "keep", "--format", "json", file)
	x, y, z := raw.Columns[0], raw.Columns[1], raw.Columns[2]
	if x["sd"] != 1.0 || y["mean"] != 5.0 || y["min"] != 5.0 || y["max"] != 5.0 || y["sd"] != nil || z["sd"] != 0.0 {
		t.Errorf("x %v, y %v, z %v: want sd 1, no sd for y's one value, sd 0 for z's two equal values", x, y, z)
	}
	code, text, _ := runReid(t, "describe", "--missing", "keep", file)
	yRow := slices.IndexFunc(strings.Split(text, "\n"), func(l string) bool {
		return slices.Equal(strings.Fields(l), []string{"y", "numeric", "2", "5", "-", "5", "5"})
	})
	if code != exitOK || yRow < 0 {
		t.Errorf("text table lacks the row y numeric 2 5 - 5 5 (missing 2, mean 5, no sd, min and max 5):\n%s", text)
	}
}

// The text table and the JSON show a least value −0 as 0, and a min and max that differ beyond six
// significant digits with all their digits (both read 1e+15).
func TestDescribeTextFigures(t *testing.T) {
	file := writeCSV(t, t.TempDir(), "f.csv", "a,b\n1e15,-0\n1000000000000004,0\n1e15,2\n")
	code, text, stderr := runReid(t, "describe", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) >= 7 {
			rows[f[0]] = f[5:7]
		}
	}
	if got := rows["a"]; !slices.Equal(got, []string{"1e+15", "1.000000000000004e+15"}) {
		t.Errorf("a's min and max %v:\n%s", got, text)
	}
	if got := rows["b"]; !slices.Equal(got, []string{"0", "2"}) {
		t.Errorf("b's min and max %v:\n%s", got, text)
	}
	// And in JSON (it wrote "min": -0).
	code, js, stderr := runReid(t, "describe", "--format", "json", file)
	if code != exitOK || strings.Contains(js, "-0") || !strings.Contains(js, `"min": 0,`) {
		t.Errorf("exit %d %s, JSON:\n%s", code, stderr, js)
	}
}

// TestTextTablesQuoteControlCharacters: a column name or category holding a newline or a
// tab is shown quoted, so the text tables keep one row per column or class and their
// columns (describe had a row broken in two, check too, uniqueness a class's key shifted
// into the next column).
func TestTextTablesQuoteControlCharacters(t *testing.T) {
	dir := t.TempDir()
	file := writeCSV(t, dir, "f.csv", "\"a\nb\",\"c\td\",k\n1,2,\"x\ty\"\n3,5,z\n4,4,z\n")
	code, out, stderr := runReid(t, "describe", file)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// A title, a header and one row per column.
	if lines := strings.Split(strings.TrimRight(out, "\n"), "\n"); len(lines) != 5 ||
		!strings.Contains(lines[2], `"a\nb"`) || !strings.Contains(lines[3], `"c\td"`) {
		t.Errorf("describe:\n%s", out)
	}
	code, out, stderr = runReid(t, "check", "--attrs", "a\nb,c\td", file, file)
	if code != exitOK {
		t.Fatalf("check: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "\n\"a\\nb\"  ") || !strings.Contains(out, "\n\"c\\td\"  ") {
		t.Errorf("check:\n%s", out)
	}
	code, out, stderr = runReid(t, "uniqueness", "--keys", "k", "--k", "2", file)
	if code != exitOK {
		t.Fatalf("uniqueness: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `  1     "x\ty"`) {
		t.Errorf("uniqueness: the failing class is not one quoted cell:\n%s", out)
	}
}
