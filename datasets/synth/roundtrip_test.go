package synth

import (
	"path/filepath"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// TestRoundTrip checks that a generated file written and read back by package datasets is
// the same table (levels in order of first appearance, integers exact).
func TestRoundTrip(t *testing.T) {
	tb := generate(t, Settings{Records: 300, Seed: 3})
	for _, name := range []string{"synth.csv", "synth.parquet", "synth.arrow"} {
		path := filepath.Join(t.TempDir(), name)
		if err := datasets.Write(path, tb, datasets.FormatAuto); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		back, err := datasets.Load(path, datasets.LoadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !datasets.Equal(tb, back) {
			t.Errorf("%s: table read back differs", name)
		}
		for j := range tb.Columns {
			if c := &tb.Columns[j]; c.Kind == datasets.Categorical {
				for k, l := range c.Levels {
					if back.Columns[j].Levels[k] != l {
						t.Errorf("%s: column %s: level %d is %q, want %q", name, c.Name, k, back.Columns[j].Levels[k], l)
					}
				}
			}
		}
	}
}
