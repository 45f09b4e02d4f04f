package main

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// prlFiles writes a 60-record original (two numeric attributes, one categorical with a
// missing value) and a noisy masked copy, row order being the true link.
func prlFiles(t *testing.T) (dir, orig, masked string) {
	dir = t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	var o, m strings.Builder
	o.WriteString("x,y,c\n")
	m.WriteString("x,y,c\n")
	for i := range 60 {
		x, y := rng.NormFloat64()*10, rng.NormFloat64()*5
		c := []string{"a", "b", "c"}[rng.IntN(3)]
		if i == 7 {
			c = ""
		}
		fmt.Fprintf(&o, "%.4f,%.4f,%s\n", x, y, c)
		fmt.Fprintf(&m, "%.4f,%.4f,%s\n", x+rng.NormFloat64(), y+rng.NormFloat64()*0.5, c)
	}
	return dir, writeCSV(t, dir, "o.csv", o.String()), writeCSV(t, dir, "m.csv", m.String())
}

func TestLinkPRLJSONContract(t *testing.T) {
	dir, orig, masked := prlFiles(t)
	recs := filepath.Join(dir, "recs.csv")
	code, out, stderr := runReid(t, "link", "--method", "prl", "--missing", "keep", "--format", "json",
		"--records-out", recs, orig, masked)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"n", "direction", "operator", "reid", "reid_sets", "reid_at_k", "k_reid", "kr_reid", "knowledge",
		"reid_by_mode", "m", "u", "match_proportion", "iterations", "thresholds", "modes", "comparison", "method"} {
		if _, ok := doc[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
	modes := doc["modes"].(map[string]any)
	for _, m := range []string{"threshold", "best", "assignment"} {
		mm, ok := modes[m].(map[string]any)
		if !ok {
			t.Fatalf("modes lacks %q", m)
		}
		for _, f := range []string{"reid", "links", "clerical", "false_links"} {
			if _, ok := mm[f]; !ok {
				t.Errorf("mode %s lacks %q", m, f)
			}
		}
	}
	if doc["reid"] != doc["reid_by_mode"].(map[string]any)["best"] || doc["n"].(float64) != 60 || doc["operator"] != "prl" {
		t.Errorf("reid %v, by mode %v, n %v", doc["reid"], doc["reid_by_mode"], doc["n"])
	}
	if got := doc["m"].(map[string]any)["c"].([]any); len(got) != 2 {
		t.Errorf("categorical m %v", got)
	}
	tab, err := datasets.Load(recs, datasets.LoadOptions{Missing: datasets.MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows() != 60 || tab.Column("assigned") == nil {
		t.Errorf("records-out: %d rows", tab.Rows())
	}
	// Supervised estimates are reported as such.
	code, out, stderr = runReid(t, "link", "--method", "prl", "--missing", "keep", "--format", "json", "--supervised", orig, masked)
	if code != exitOK {
		t.Fatal(stderr)
	}
	if !strings.Contains(out, `"supervised": true`) || !strings.Contains(out, `"iterations": 0`) {
		t.Errorf("supervised output: %s", out[:200])
	}
}

func TestLinkPRLDeterministic(t *testing.T) {
	_, orig, masked := prlFiles(t)
	var outs []string
	for _, threads := range []string{"1", "2", "5"} {
		code, out, stderr := runReid(t, "link", "--method", "prl", "--missing", "keep", "--format", "json", "--threads", threads,
			"--direction", "original-to-masked", "--block", "c", orig, masked)
		if code != exitOK {
			t.Fatal(stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("JSON differs between thread counts")
	}
}

func TestLinkPRLBadInput(t *testing.T) {
	_, orig, masked := prlFiles(t)
	for _, args := range [][]string{
		{"--method", "xyz"},
		{"--method", "prl", "--quantiles", "1.5"},
		{"--method", "prl", "--quantiles", "0.2,0.1"},
		{"--method", "prl", "--operator", "wm"},
		{"--method", "prl", "--mu", "2"},
		{"--method", "prl", "--block", "nope"},
		{"--method", "prl", "--quantiles", "", "--bands", ""},
	} {
		code, _, stderr := runReid(t, append(append([]string{"link", "--missing", "keep"}, args...), orig, masked)...)
		if code != exitInput || strings.Count(strings.TrimSpace(stderr), "\n") > 0 && !strings.Contains(stderr, "usage") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
	// A missing value without --missing keep is an input error naming the row.
	code, _, stderr := runReid(t, "link", "--method", "prl", orig, masked)
	if code != exitInput || !strings.Contains(stderr, "row 8") {
		t.Errorf("exit %d, %q", code, stderr)
	}
}
