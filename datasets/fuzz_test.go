package datasets

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoadCSV feeds arbitrary bytes to the CSV loader. It must never panic; an error must
// be an *InputError (one line, naming the file); an accepted table must satisfy the
// invariants every later stage relies on.
func FuzzLoadCSV(f *testing.F) {
	for _, seed := range []string{
		"a,b\n1,2\n3,4\n",
		"a,b\n1,x\n,NA\n3,y\n",
		"a,b\n\"1,5\",2\n3,\"q\"\"uote\"\n",
		"\ufeffa;b\n1;2\n",
		"a,b\n1,2\n3\n",
		"a\n1e999\n-0\n",
		"x,y,z\nNaN,Inf,-Inf\n1,2,3\n",
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, keepMissing bool) {
		p := filepath.Join(dir, "fuzz.csv")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		opts := LoadOptions{BatchRows: 3}
		if keepMissing {
			opts.Missing = MissingKeep
		}
		tab, err := Load(p, opts)
		if err != nil {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("error is not an InputError: %T %v", err, err)
			}
			return
		}
		rows := tab.Rows()
		if rows < 2 {
			t.Fatalf("accepted a table of %d rows", rows)
		}
		for _, c := range tab.Columns {
			if c.Len() != rows || (c.Valid != nil && len(c.Valid) != rows) {
				t.Fatalf("column %q has %d rows, want %d", c.Name, c.Len(), rows)
			}
			if !keepMissing && c.Valid != nil {
				t.Fatalf("column %q has missing values under MissingError", c.Name)
			}
			for i := 0; i < rows; i++ {
				if c.Missing(i) { // Values and Codes are 0 there, by contract
					if (c.Kind == Numeric && c.Values[i] != 0) || (c.Kind == Categorical && c.Codes[i] != 0) {
						t.Fatalf("column %q row %d is missing but holds a value", c.Name, i)
					}
					continue
				}
				if c.Kind == Numeric && (math.IsNaN(c.Values[i]) || math.IsInf(c.Values[i], 0)) {
					t.Fatalf("column %q row %d is %v", c.Name, i, c.Values[i])
				}
				if c.Kind == Categorical && (c.Codes[i] < 0 || int(c.Codes[i]) >= len(c.Levels)) {
					t.Fatalf("column %q row %d code %d out of %d levels", c.Name, i, c.Codes[i], len(c.Levels))
				}
			}
		}
	})
}
