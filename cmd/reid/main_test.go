package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// runReid runs one command line in-process and returns the exit code and both streams.
func runReid(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(args, &env{stdout: &out, stderr: &errOut})
	return code, out.String(), errOut.String()
}

func writeCSV(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestHelp(t *testing.T) {
	code, out, _ := runReid(t, "help")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, c := range commands() {
		if !strings.Contains(out, c.Name) {
			t.Errorf("help does not list %s", c.Name)
		}
	}
	code, out, _ = runReid(t, "mask", "--help")
	if code != exitOK || !strings.Contains(out, "usage: reid mask") || !strings.Contains(out, "-method") {
		t.Errorf("mask --help: exit %d, %q", code, out)
	}
	if code, _, errOut := runReid(t, "frobnicate"); code != exitInput || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: exit %d, %q", code, errOut)
	}
	if code, _, _ := runReid(t); code != exitInput {
		t.Errorf("no arguments: exit %d, want %d", code, exitInput)
	}
	if code, _, errOut := runReid(t, "mask", "--nope"); code != exitInput || !strings.Contains(errOut, "nope") {
		t.Errorf("unknown flag: exit %d, %q", code, errOut)
	}
}

// smallCSV has 7 records: MDAV with k=3 makes groups of 3 and 4.
const smallCSV = `id,a,b,region
1,1,10,n
2,2,11,s
3,3,12,n
4,10,50,s
5,11,51,n
6,12,52,s
7,13,53,n
`

func TestMaskMDAV(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", smallCSV)
	out := filepath.Join(dir, "out.parquet")
	// Flags after the input file are accepted.
	code, stdout, stderr := runReid(t, "mask", "--method", "mdav", "--attrs", "a,b", in, "--k", "3", "--out", out, "--format", "json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var s maskSummary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil || s.Method != "mdav" || s.K != 3 || s.Records != 7 {
		t.Fatalf("summary %q: %v", stdout, err)
	}
	got, err := datasets.Load(out, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Two clusters, by hand: rows 1-3 (a mean 2, b mean 11) and rows 4-7 (a mean 11.5,
	// b mean 51.5).
	wantA := []float64{2, 2, 2, 11.5, 11.5, 11.5, 11.5}
	wantB := []float64{11, 11, 11, 51.5, 51.5, 51.5, 51.5}
	for i := range wantA {
		if got.Column("a").Values[i] != wantA[i] || got.Column("b").Values[i] != wantB[i] {
			t.Errorf("row %d: a=%v b=%v, want %v %v", i+1, got.Column("a").Values[i], got.Column("b").Values[i], wantA[i], wantB[i])
		}
	}
	// Unmasked columns are copied.
	if got.Column("id").Values[6] != 7 || got.Column("region").String(1) != "s" {
		t.Error("unmasked columns changed")
	}
}

func TestMaskDeterministic(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", smallCSV)
	for _, method := range []string{"noise", "corrnoise", "rankswap", "pram"} {
		var files [][]byte
		for i := 0; i < 2; i++ {
			out := filepath.Join(dir, method+string(rune('a'+i))+".csv")
			args := []string{"mask", "--method", method, "--p", "40", "--seed", "9", "--out", out, in}
			if method != "pram" {
				args = append(args, "--attrs", "a,b")
			}
			if code, _, stderr := runReid(t, args...); code != exitOK {
				t.Fatalf("%s: exit %d: %s", method, code, stderr)
			}
			b, _ := os.ReadFile(out)
			files = append(files, b)
		}
		if !bytes.Equal(files[0], files[1]) {
			t.Errorf("%s: two runs with the same seed differ", method)
		}
	}
}

// TestBadInputCLI: each bad input exits 2 with one line on stderr naming the file (and
// column and row where they apply) and leaves no output file.
func TestBadInputCLI(t *testing.T) {
	dir := t.TempDir()
	good := writeCSV(t, dir, "good.csv", smallCSV)
	goodParquet := filepath.Join(dir, "good.parquet")
	if code, _, stderr := runReid(t, "mask", "--method", "indrank", "--k", "2", "--out", goodParquet, good); code != exitOK {
		t.Fatal(stderr)
	}
	b, _ := os.ReadFile(goodParquet)
	truncated := writeCSV(t, dir, "truncated.parquet", string(b[:len(b)/2]))
	cases := []struct {
		name    string
		args    []string
		mention []string
	}{
		{"missing file", []string{"--method", "mdav", filepath.Join(dir, "nope.csv")}, []string{"nope.csv"}},
		{"empty file", []string{"--method", "mdav", writeCSV(t, dir, "empty.csv", "")}, []string{"empty.csv", "empty file"}},
		{"header only", []string{"--method", "mdav", writeCSV(t, dir, "header.csv", "a,b\n")}, []string{"header.csv", "no records"}},
		{"one record", []string{"--method", "mdav", writeCSV(t, dir, "one.csv", "a,b\n1,2\n")}, []string{"one.csv", "fewer than two"}},
		{"text in numeric column", []string{"--method", "mdav", writeCSV(t, dir, "text.csv", "a,b\n1,2\n3,4\n5,x\n")}, []string{"text.csv", `column "b"`, "row 3", `"x"`}},
		{"NaN", []string{"--method", "mdav", writeCSV(t, dir, "nan.csv", "a,b\n1,2\nNaN,4\n")}, []string{"nan.csv", `column "a"`, "row 2"}},
		{"missing value", []string{"--method", "mdav", writeCSV(t, dir, "miss.csv", "a,b\n1,2\n3,\n5,6\n")}, []string{"miss.csv", `column "b"`, "row 2", "missing"}},
		{"unknown input extension", []string{"--method", "mdav", writeCSV(t, dir, "data.xls", smallCSV)}, []string{"data.xls", "unknown file format"}},
		{"unknown output extension", []string{"--method", "mdav", "--out", filepath.Join(dir, "out.xyz"), good}, []string{"out.xyz"}},
		{"truncated parquet", []string{"--method", "mdav", truncated}, []string{"truncated.parquet"}},
		{"attribute twice", []string{"--method", "mdav", "--attrs", "a,a", good}, []string{"good.csv", `column "a"`, "more than once"}},
		{"unknown attribute", []string{"--method", "mdav", "--attrs", "a,zz", good}, []string{"good.csv", `"zz"`}},
		{"k larger than records", []string{"--method", "mdav", "--k", "8", "--attrs", "a,b", good}, []string{"good.csv", "k (8)", "records (7)"}},
		{"categorical attribute to a numeric method", []string{"--method", "mdav", "--attrs", "region", good}, []string{`column "region"`}},
		{"no method", []string{good}, []string{"--method"}},
		{"bad missing policy", []string{"--method", "mdav", "--missing", "guess", good}, []string{"--missing"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.csv")
			args := append([]string{"mask"}, tc.args...)
			if !strings.Contains(strings.Join(args, " "), "--out") {
				args = append(args, "--out", out)
			}
			code, _, stderr := runReid(t, args...)
			if code != exitInput {
				t.Errorf("exit %d, want %d; stderr %q", code, exitInput, stderr)
			}
			if strings.Count(stderr, "\n") != 1 {
				t.Errorf("stderr is not one line: %q", stderr)
			}
			for _, m := range tc.mention {
				if !strings.Contains(stderr, m) {
					t.Errorf("stderr %q does not mention %s", stderr, m)
				}
			}
			if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

func TestDescribe(t *testing.T) {
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", "a,r\n1,x\n2,y\n3,x\n")
	code, out, stderr := runReid(t, "describe", "--format", "json", in)
	if code != exitOK {
		t.Fatal(stderr)
	}
	var d fileDescription
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	// a: mean 2, sample sd 1 (by hand); r: 2 categories.
	if d.Records != 3 || *d.Columns[0].Mean != 2 || *d.Columns[0].SD != 1 || d.Columns[1].Categories != 2 {
		t.Errorf("%+v", d)
	}
}

func TestDemoDeterministic(t *testing.T) {
	var outs []string
	for i := 0; i < 2; i++ {
		dir := t.TempDir()
		code, out, stderr := runReid(t, "demo", "--records", "300", "--seed", "5", "--format", "json", "--dir", dir, "--audit=false")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		var r demoResult
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Masked) != 2 {
			t.Fatalf("%d masked files, want 2", len(r.Masked))
		}
		// MDAV with k=3 makes groups of at least 3 identical records; rank swapping
		// moves values but keeps each record distinct in general.
		if r.Masked[0].KAnonymity < 3 {
			t.Errorf("MDAV k=3 file is only %d-anonymous", r.Masked[0].KAnonymity)
		}
		for _, f := range []string{"original.csv", "mdav_k3.csv", "rankswap_p5.csv"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
				t.Error(err)
			}
		}
		r.Dir, r.Original = "", ""
		b, _ := json.Marshal(r)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Errorf("two demo runs differ:\n%s\n%s", outs[0], outs[1])
	}
}
