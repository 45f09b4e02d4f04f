package datasets

import (
	"path/filepath"
	"slices"
	"testing"
)

// TestColumnNames: the names of every format's columns, in file order, without reading
// the values (a CSV whose body is not readable still gives its header).
func TestColumnNames(t *testing.T) {
	dir := t.TempDir()
	csvPath := writeFile(t, dir, "a.csv", " id ,x,label\n1,2.5,a\n2,3.5,b\n")
	tab, err := Load(csvPath, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"id", "x", "label"}
	paths := []string{csvPath, writeFile(t, dir, "bad.csv", "id,x,label\n1,\"2\n")}
	for _, f := range []Format{FormatParquet, FormatArrow} {
		p := filepath.Join(dir, "a"+extensionOf(f))
		if err := Write(p, tab, f); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	for _, p := range paths {
		got, err := ColumnNames(p, LoadOptions{})
		if err != nil || !slices.Equal(got, want) {
			t.Errorf("%s: %q, %v; want %q", filepath.Base(p), got, err, want)
		}
	}
	if _, err := ColumnNames(filepath.Join(dir, "absent.csv"), LoadOptions{}); err == nil {
		t.Error("absent file: no error")
	}
}
