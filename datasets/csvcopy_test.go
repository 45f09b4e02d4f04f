package datasets

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readFields reads a CSV file's records with encoding/csv, independently of the loader.
func readFields(t *testing.T, path string) [][]string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.TrimPrefix(string(b), "\ufeff")
	if !strings.Contains(s, "\n") {
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	rows, err := csv.NewReader(strings.NewReader(s)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestReplaceCSVColumns: the copy's fields are the input's, field for field, except in
// the replaced columns, which hold the table's values as Column.String writes them; for
// files with a byte-order mark, classic Mac line ends, a quoted header, blanks, a
// missing-value token (kept where the replaced cell is missing in the input too) and a
// quoted field with a comma and a line break.
func TestReplaceCSVColumns(t *testing.T) {
	cases := map[string]string{
		"plain":    "id,x,a\n007,1.50,1\n010,NA,2\n011, 3 ,4\n",
		"bom, cr":  "\ufeffid,x,a\r007,1.50,1\r010,NA,2\r011, 3 ,4\r",
		"quoted":   "\"id\", x ,\"a\"\n\"A,07\",\"1.50\n2\",1\nB10,NA,2\n\"C \"\"11\"\"\", 3 ,4\n",
		"crlf, na": "id,x,a\r\n007,,1\r\n010,NA,\r\n011,-0.0,4\r\n",
		"na kept":  "id,x,a\n007,1,1\n010,NA,NA\n011,3,4\n",
		// A token with blanks around is missing too (the loader trims it), and kept.
		"padded na kept": "id,x,a\n007,1,1\n010,NA, NA \n011,3,4\n",
	}
	for name, content := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			in := writeFile(t, dir, "in.csv", content)
			tab, err := Load(in, LoadOptions{Missing: MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			a := tab.Column("a")
			for i := range a.Values { // a new value in each row, one missing
				a.Values[i] = float64(i) + 0.25
			}
			a.Valid = []bool{true, false, true}
			a.Values[1] = 0
			out := filepath.Join(dir, "out.csv")
			if err := ReplaceCSVColumns(out, in, tab, []string{"a"}); err != nil {
				t.Fatal(err)
			}
			want, got := readFields(t, in), readFields(t, out)
			if len(got) != len(want) {
				t.Fatalf("%d records, want %d", len(got), len(want))
			}
			for i := range want {
				for j := range want[i] {
					w := want[i][j]
					if i > 0 && j == 2 {
						w = []string{"0.25", "", "2.25"}[i-1]
						if i == 2 && strings.TrimSpace(want[i][j]) == "NA" {
							w = want[i][j] // missing in the input too: its token is kept
						}
					}
					if got[i][j] != w {
						t.Errorf("record %d field %d: %q, want %q", i+1, j+1, got[i][j], w)
					}
				}
			}
			back, err := Load(out, LoadOptions{Missing: MissingKeep})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(back.Column("a").Values, a.Values) || !slices.Equal(back.Column("a").Valid, a.Valid) {
				t.Errorf("a reads back as %v %v, want %v %v", back.Column("a").Values, back.Column("a").Valid, a.Values, a.Valid)
			}
		})
	}
}

// TestReplaceCSVColumnsMismatch: a table of another row count than the file, or without
// the column, is an error and writes nothing.
func TestReplaceCSVColumnsMismatch(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", "x,a\n1,2\n3,4\n")
	tab, err := Load(in, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.csv")
	for name, c := range map[string]struct {
		tab  *Table
		cols []string
	}{
		"fewer rows": {tab.Subset([]int{0}), []string{"a"}},
		"more rows":  {tab.Subset([]int{0, 1, 1}), []string{"a"}},
		"no column":  {tab, []string{"b"}},
	} {
		if err := ReplaceCSVColumns(out, in, c.tab, c.cols); err == nil {
			t.Errorf("%s: no error", name)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: the output exists", name)
		}
	}
}

// TestOneColumnMissingCSV: in a file of one column, a missing value written as an empty
// line is no record to a CSV reader, so every row after it moved up one (a review's
// find: 5 records masked, 4 read back). Write and ReplaceCSVColumns write it as "".
func TestOneColumnMissingCSV(t *testing.T) {
	dir := t.TempDir()
	in := writeFile(t, dir, "in.csv", "a\n1\nNA\n3\n")
	tab, err := Load(in, LoadOptions{Missing: MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	written := filepath.Join(dir, "written.csv")
	if err := Write(written, tab, FormatAuto); err != nil {
		t.Fatal(err)
	}
	replaced := filepath.Join(dir, "replaced.csv")
	if err := ReplaceCSVColumns(replaced, in, tab, []string{"a"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{written, replaced} {
		back, err := Load(p, LoadOptions{Missing: MissingKeep})
		if err != nil {
			t.Fatal(err)
		}
		a := back.Column("a")
		if !slices.Equal(a.Values, []float64{1, 0, 3}) || !slices.Equal(a.Valid, []bool{true, false, true}) {
			t.Errorf("%s reads back as %v %v, want 1, missing, 3", filepath.Base(p), a.Values, a.Valid)
		}
	}
}

// TestOneColumnEmptyLabelCSV: a one-column categorical table with a missing value, or an
// empty column name, wrote an empty line: a row lost, or a file that does not read back.
// Both are written as "". (An empty label, a category in Arrow or Parquet, is refused for
// CSV: TestWriteCSVRefusesMissingTokens.)
func TestOneColumnEmptyLabelCSV(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"s", ""} {
		tab := &Table{Source: "t", Columns: []Column{{Name: name, Kind: Categorical, Codes: []int32{0, 1, 2}, Levels: []string{"a", "c", "b"},
			Valid: []bool{true, false, true}}}}
		p := filepath.Join(dir, "t.csv")
		if err := Write(p, tab, FormatAuto); err != nil {
			t.Fatal(err)
		}
		rows := readFields(t, p)
		want := [][]string{{name}, {"a"}, {""}, {"b"}}
		if len(rows) != len(want) {
			t.Fatalf("name %q: %d records %q, want %q", name, len(rows), rows, want)
		}
		for i := range want {
			if !slices.Equal(rows[i], want[i]) {
				t.Errorf("name %q: record %d is %q, want %q", name, i+1, rows[i], want[i])
			}
		}
	}
}
