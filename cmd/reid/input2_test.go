package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMissingIDMessage: a missing id is reported as such, with its file, column and row,
// under either policy; "choose a missing-value policy" was wrong under --missing keep (one
// was chosen) and no policy helps with an id.
func TestMissingIDMessage(t *testing.T) {
	dir := t.TempDir()
	full := writeCSV(t, dir, "full.csv", "id,a\nx,1\ny,2\nz,4\n")
	holed := writeCSV(t, dir, "holed.csv", "id,a\nx,1\n,2\nz,4\n")
	for _, c := range []struct {
		name string
		args []string
		file string
	}{
		{"keep, original", []string{"--missing", "keep", holed, full}, "holed.csv"},
		{"keep, masked", []string{"--missing", "keep", full, holed}, "holed.csv"},
		{"error policy", []string{holed, full}, "holed.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runReid(t, append([]string{"check", "--id", "id"}, c.args...)...)
			expectInputError(t, code, stderr, c.file, `column "id"`, "row 2", "missing id")
			if strings.Contains(stderr, "policy") {
				t.Errorf("stderr %q advises a missing-value policy", stderr)
			}
		})
	}
}

// TestDirectoryInput: a directory given as a data file (or id list) is "is a directory",
// not an unknown format because its name has no extension.
func TestDirectoryInput(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	if err := os.Mkdir(data, 0o755); err != nil {
		t.Fatal(err)
	}
	f := writeCSV(t, dir, "f.csv", "id,a\nx,1\ny,2\nz,4\n")
	for _, c := range []struct {
		name string
		args []string
	}{
		{"describe", []string{"describe", data + string(filepath.Separator)}},
		{"describe no slash", []string{"describe", data}},
		{"check original", []string{"check", data, f}},
		{"check masked", []string{"check", f, data}},
		{"intruder ids", []string{"check", "--id", "id", "--intruder-ids", data, f, f}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, stderr := runReid(t, c.args...)
			expectInputError(t, code, stderr, data, "is a directory")
			if strings.Contains(stderr, "format") {
				t.Errorf("stderr %q speaks of a format", stderr)
			}
		})
	}
}
