package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The authors' toy example, original to masked: the learned weighted mean links all 3
// records, the Euclidean distance 2 (Abril, Navarro-Arribas & Torra 2012).
func TestLearnToy(t *testing.T) {
	dir, orig, masked := toyFiles(t)
	mps := filepath.Join(dir, "full.mps")
	params := filepath.Join(dir, "params.json")
	run := func() map[string]any {
		code, out, stderr := runReid(t, "learn", "--operator", "wm", "--direction", "original-to-masked", "--format", "json",
			"--export-mps", mps, "--params-out", params, orig, masked)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := run()
	for _, f := range []string{"operator", "params", "correct_links", "bound", "gap", "status", "nodes", "rows_generated", "lp_iterations", "seconds", "epsilon"} {
		if _, ok := doc[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
	if doc["correct_links"].(float64) != 3 || doc["euclidean_links"].(float64) != 2 || doc["bound"].(float64) != 3 ||
		doc["status"] != "optimal" || doc["gap"].(float64) != 0 || doc["operator"] != "wm" || doc["epsilon"].(float64) != 1e-4 {
		t.Errorf("toy: %v", doc)
	}
	if _, err := os.Stat(mps); err != nil {
		t.Errorf("no MPS file: %v", err)
	}
	// The learned parameters link all 3 records in reid link.
	code, out, stderr := runReid(t, "link", "--operator", "wm", "--params", params, "--direction", "original-to-masked", "--format", "json", orig, masked)
	if code != exitOK {
		t.Fatalf("link exit %d: %s", code, stderr)
	}
	var link map[string]any
	if err := json.Unmarshal([]byte(out), &link); err != nil {
		t.Fatal(err)
	}
	if link["correct"].(float64) != 3 {
		t.Errorf("reid link with the learned parameters: %v correct", link["correct"])
	}
	// Same inputs, same JSON but for seconds.
	again := run()
	delete(doc, "seconds")
	delete(again, "seconds")
	a, _ := json.Marshal(doc)
	b, _ := json.Marshal(again)
	if string(a) != string(b) {
		t.Errorf("two runs differ:\n%s\n%s", a, b)
	}
}

func TestLearnUsage(t *testing.T) {
	_, orig, masked := toyFiles(t)
	for _, args := range [][]string{
		{"--operator", "choquet", orig, masked},
		{"--epsilon", "0", orig, masked},
		{"--time-limit", "-1s", orig, masked},
		{"--format", "xml", orig, masked},
	} {
		if code, _, _ := runReid(t, append([]string{"learn"}, args...)...); code != exitInput {
			t.Errorf("%v: exit %d, want %d", args, code, exitInput)
		}
	}
}
