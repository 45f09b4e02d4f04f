package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// writePairCSV writes o.csv and m.csv into dir: the header, then row(i)'s original and
// masked lines for i = 0 … n−1.
func writePairCSV(t *testing.T, dir, header string, n int, row func(i int) (o, m string)) (orig, masked string) {
	t.Helper()
	var o, m strings.Builder
	o.WriteString(header + "\n")
	m.WriteString(header + "\n")
	for i := range n {
		lo, lm := row(i)
		o.WriteString(lo + "\n")
		m.WriteString(lm + "\n")
	}
	return writeCSV(t, dir, "o.csv", o.String()), writeCSV(t, dir, "m.csv", m.String())
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
		{"attribute twice", []string{"--method", "mdav", "--attrs", "a,a", good}, []string{`--attrs names "a" twice`}}, // a usage error, not the file's
		{"unknown attribute", []string{"--method", "mdav", "--attrs", "a,zz", good}, []string{"good.csv", `"zz"`}},
		{"k larger than records", []string{"--method", "mdav", "--k", "8", "--attrs", "a,b", good}, []string{"good.csv", "--k 8 is more than the file's 7 records"}},
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
			expectInputError(t, code, stderr, tc.mention...)
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
	if d.Records != 3 || *d.Columns[0].Mean != 2 || *d.Columns[0].SD != 1 || d.Columns[1].Categories == nil || *d.Columns[1].Categories != 2 {
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
		r.Dir = "" // the --dir given, a different one each run
		b, _ := json.Marshal(r)
		outs = append(outs, string(b))
	}
	if outs[0] != outs[1] {
		t.Errorf("two demo runs differ:\n%s\n%s", outs[0], outs[1])
	}
}

// TestCheckOutPaths: an output path that cannot receive a file (or, for a directory of
// outputs, that cannot become one) is a usage error naming the flag and the culprit;
// a file's directory must exist, a directory of outputs may be created later.
func TestCheckOutPaths(t *testing.T) {
	dir := t.TempDir()
	file := writeCSV(t, dir, "f", "x")
	// Links into a missing directory and into this one (a tester's: the masking ran, then
	// the write failed naming its temporary file).
	dangling, good := filepath.Join(dir, "dangling.csv"), filepath.Join(dir, "good.csv")
	if os.Symlink(filepath.Join("nowhere", "t.csv"), dangling) != nil || os.Symlink("t.csv", good) != nil {
		t.Skip("no symbolic links here")
	}
	cases := []struct {
		name    string
		check   func(flag, path string) error
		path    string
		mention []string // nil: no error
	}{
		{"file in an existing directory", checkOutFile, filepath.Join(dir, "out.json"), nil},
		{"file in a missing directory", checkOutFile, filepath.Join(dir, "nodir", "out.json"), []string{"--out", "nodir", "does not exist"}},
		{"file that is a directory", checkOutFile, dir, []string{"--out", "is a directory"}},
		{"link into a missing directory", checkOutFile, dangling, []string{"--out", "symbolic link to " + filepath.Join(dir, "nowhere", "t.csv"), "directory does not exist"}},
		{"link to a new file", checkOutFile, good, nil},
		{"file below a file", checkOutFile, filepath.Join(file, "out.json"), []string{"--out", file + " is not a directory"}},
		{"file two levels below a file", checkOutFile, filepath.Join(file, "sub", "out.json"), []string{file + " is not a directory"}},
		{"existing directory", checkOutDir, dir, nil},
		{"directory to create", checkOutDir, filepath.Join(dir, "new", "sub"), nil},
		{"directory that is a file", checkOutDir, file, []string{"--out", "is a file"}},
		{"directory below a file", checkOutDir, filepath.Join(file, "sub"), []string{file + " is not a directory"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.check("out", tc.path)
			if tc.mention == nil {
				if err != nil {
					t.Errorf("%v", err)
				}
				return
			}
			var ue *usageError
			if !errors.As(err, &ue) {
				t.Fatalf("error %v (%T), want a usage error", err, err)
			}
			for _, m := range tc.mention {
				if !strings.Contains(err.Error(), m) {
					t.Errorf("%q does not mention %q", err, m)
				}
			}
		})
	}
}

// TestWriteFilesAllOrNone: writeFiles writes every file or none, and a failure leaves
// neither a new file, nor a temporary one, nor changes a file that existed.
func TestWriteFilesAllOrNone(t *testing.T) {
	fail := errors.New("cannot render")
	text := func(s string) func(*os.File) error {
		return func(f *os.File) error { _, err := f.WriteString(s); return err }
	}
	failing := func(*os.File) error { return fail }
	cases := []struct {
		name  string
		write []func(*os.File) error // for a.txt, b.txt, c.txt
		err   error
		want  map[string]string // the directory's files afterwards (a.txt holds "old" before)
	}{
		{"all written", []func(*os.File) error{text("A"), text("B"), text("C")}, nil, map[string]string{"a.txt": "A", "b.txt": "B", "c.txt": "C"}},
		{"last fails", []func(*os.File) error{text("A"), text("B"), failing}, fail, map[string]string{"a.txt": "old"}},
		{"middle fails", []func(*os.File) error{text("A"), failing, text("C")}, fail, map[string]string{"a.txt": "old"}},
		{"first fails", []func(*os.File) error{failing, text("B"), text("C")}, fail, map[string]string{"a.txt": "old"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCSV(t, dir, "a.txt", "old")
			var outs []outFile
			for k, w := range tc.write {
				outs = append(outs, outFile{filepath.Join(dir, string(rune('a'+k))+".txt"), w})
			}
			if err := writeFiles(outs...); !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %v", err, tc.err)
			}
			entries, _ := os.ReadDir(dir)
			got := map[string]string{}
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				got[e.Name()] = string(b)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("files %v, want %v", got, tc.want)
			}
		})
	}
}

// TestOutputPathsCheckedFirst: a bad output path is a usage error (exit 2, one line
// naming the flag) given before any work, and no output of the command is left behind.
func TestOutputPathsCheckedFirst(t *testing.T) {
	_, orig, masked := toyFiles(t)
	sample := writeCSV(t, t.TempDir(), "s.csv", uniqSample)
	cases := []struct {
		name    string
		args    []string // "D/" is replaced by the test's directory
		mention string
	}{
		{"learn: --out in a missing directory", []string{"learn", "--params-out", "D/p.json", "--export-mps", "D/m.mps", "--out", "D/nodir/x.json", orig, masked}, "--out"},
		{"learn: --export-mps in a missing directory", []string{"learn", "--params-out", "D/p.json", "--export-mps", "D/nodir/m.mps", orig, masked}, "--export-mps"},
		{"learn: two flags, one file", []string{"learn", "--params-out", "D/x.json", "--out", "D/x.json", orig, masked}, "both name"},
		// A directory that exists but takes no file (/proc, even for root): the search ran
		// first, and its results were lost with the error.
		{"learn: --params-out where no file can be made", []string{"learn", "--params-out", "/proc/p.json", orig, masked}, "--params-out /proc/p.json: cannot create files in /proc"},
		{"link: --out in a missing directory", []string{"link", "--records-out", "D/r.csv", "--out", "D/nodir/l.json", orig, masked}, "--out"},
		{"link: --out is a directory", []string{"link", "--records-out", "D/r.csv", "--out", "D/", orig, masked}, "is a directory"},
		{"link prl: --out in a missing directory", []string{"link", "--method", "prl", "--records-out", "D/r.csv", "--out", "D/nodir/l.json", orig, masked}, "--out"},
		{"mask: --out below a file", []string{"mask", "--method", "mdav", "--out", "D/f/x.csv", orig}, "--out"},
		{"uniqueness: --records-out in a missing directory", []string{"uniqueness", "--keys", "A,B", "--records-out", "D/nodir/r.csv", sample}, "--records-out"},
		{"demo: --dir is a file", []string{"demo", "--records", "20", "--audit=false", "--dir", "D/f"}, "--dir"},
		{"demo: --out is a file", []string{"demo", "--records", "20", "--time-limit", "1s", "--dir", "D/keep", "--out", "D/f"}, "--out"},
		{"bench: --md in a missing directory", []string{"bench", "--datasets", "D/none", "--records", "20", "--time-limit", "0.1s", "--csv", "D/b.csv", "--md", "D/nodir/b.md"}, "--md"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeCSV(t, dir, "f", "a file")
			args := make([]string, len(tc.args))
			for k, a := range tc.args {
				args[k] = strings.Replace(a, "D/", dir+string(filepath.Separator), 1)
			}
			code, _, stderr := runReid(t, args...)
			// The test's directory is named after the test, whose name has the flag.
			stderr = strings.ReplaceAll(stderr, dir, "D")
			if code != exitInput || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, tc.mention) {
				t.Errorf("exit %d, stderr %q; want %d and one line mentioning %q", code, stderr, exitInput, tc.mention)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 1 {
				t.Errorf("left behind: %v", entries)
			}
		})
	}
}

// TestDemoRecords: --records below the fewest on which both maskings change something
// (rank swapping p=5: a window of ⌊5n/100⌋ ≥ 1 rank needs n ≥ 20) is a usage error that
// says so; 20 works.
func TestDemoRecords(t *testing.T) {
	for _, tc := range []struct {
		records string
		code    int
	}{{"5", exitInput}, {"19", exitInput}, {"20", exitOK}} {
		code, _, stderr := runReid(t, "demo", "--records", tc.records, "--audit=false", "--format", "json")
		if code != tc.code {
			t.Errorf("--records %s: exit %d, want %d: %s", tc.records, code, tc.code, stderr)
		}
		if tc.code == exitInput && (!strings.Contains(stderr, "--records must be at least 20") || strings.Count(stderr, "\n") != 1) {
			t.Errorf("--records %s: %q", tc.records, stderr)
		}
	}
}

// TestDemoInterrupted: an interrupt stops the demo with exit 130 and removes its
// temporary directory (a tester's Ctrl-C left original.csv and mdav_k3.csv in TMPDIR and
// exited 143). Here the interrupt comes at the start, before the first masking; with the
// audits on, their searches see it.
func TestDemoInterrupted(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	for _, audit := range []string{"--audit=false", "--audit=true"} {
		var stdout, stderr bytes.Buffer
		e := &env{stdout: &stdout, stderr: &stderr, notify: func(c chan<- os.Signal) { c <- os.Interrupt }}
		args := []string{"demo", "--records", "20", audit, "--work-limit", "0.01", "--out", filepath.Join(t.TempDir(), "r")}
		if code := run(args, e); code != exitInterrupted || !strings.Contains(stderr.String(), "stopped; the demo's temporary files are removed") {
			t.Errorf("%s: exit %d, want %d; stderr %q", audit, code, exitInterrupted, stderr.String())
		}
		if left, _ := os.ReadDir(tmp); len(left) != 0 {
			t.Errorf("%s: left in TMPDIR: %v", audit, left)
		}
		if stdout.Len() != 0 {
			t.Errorf("%s: printed %q for a demo that did not run", audit, stdout.String())
		}
	}
}

// TestDemoInterruptedDuringAudit: the demo measures both files before it audits them, so
// an interrupt during the first audit has shown the table (a tester's demo stopped there
// printed nothing) but no audit line, and writes no report of the audit it cut.
func TestDemoInterruptedDuringAudit(t *testing.T) {
	var relay chan<- os.Signal
	var stdout, errBuf bytes.Buffer
	stderr := writeFunc(func(p []byte) (int, error) {
		if relay != nil && bytes.Contains(p, []byte("worst case")) {
			select {
			case relay <- os.Interrupt:
			default:
			}
		}
		return errBuf.Write(p)
	})
	out := filepath.Join(t.TempDir(), "r")
	e := &env{stdout: &stdout, stderr: stderr, notify: func(c chan<- os.Signal) { relay = c }}
	if code := run([]string{"demo", "--records", "40", "--work-limit", "0.5", "--out", out}, e); code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errBuf.String())
	}
	for _, want := range []string{"\nmdav_k3.csv ", "\nrankswap_p5.csv "} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("stdout lacks the table's row %q:\n%s", want, stdout.String())
		}
	}
	if strings.Contains(stdout.String(), "report written") {
		t.Errorf("an audit line after the interrupt:\n%s", stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "mdav_k3", "report.json")); err == nil {
		t.Error("a report of the interrupted audit was written")
	}
}

// TestMinRecords: the fewest records each masking needs, by hand: rank swapping the
// smallest n with ⌊p·n/100⌋ ≥ 1, microaggregation two groups of k.
func TestMinRecords(t *testing.T) {
	for _, tc := range []struct {
		jobs []maskJob
		want int
	}{
		{nil, 2},
		{[]maskJob{{method: "rankswap", p: 5}}, 20},
		{[]maskJob{{method: "rankswap", p: 15}}, 7}, // ⌊15·6/100⌋ = 0, ⌊15·7/100⌋ = 1
		{[]maskJob{{method: "rankswap", p: 3}}, 34}, // ⌊3·33/100⌋ = 0
		{[]maskJob{{method: "mdav", k: 3}, {method: "indrank", k: 4}}, 8},
		{demoMaskJobs(), 20},
		{benchMaskJobs(), 20},
	} {
		if got, why := minRecords(tc.jobs); got != tc.want || why == "" {
			t.Errorf("%+v: %d (%s), want %d", tc.jobs, got, why, tc.want)
		}
	}
}

// TestDemoJSONSameBytes: without --dir the demo's files are in a temporary directory;
// the JSON must not name it, so that two runs give the same bytes.
func TestDemoJSONSameBytes(t *testing.T) {
	var outs []string
	for range 2 {
		code, out, stderr := runReid(t, "demo", "--records", "40", "--audit=false", "--format", "json")
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] {
		t.Errorf("two runs differ:\n%s\n%s", outs[0], outs[1])
	}
	var r demoResult
	if err := json.Unmarshal([]byte(outs[0]), &r); err != nil || r.Original != "original.csv" {
		t.Errorf("original %q: %v", r.Original, err)
	}
}

// expectInputError checks the contract of a usage or input error: exit code 2 and one
// line on stderr that mentions each of mention.
func expectInputError(t *testing.T, code int, stderr string, mention ...string) {
	t.Helper()
	if code != exitInput {
		t.Errorf("exit %d, want %d; stderr %q", code, exitInput, stderr)
	}
	if strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr is not one line: %q", stderr)
	}
	for _, m := range mention {
		if !strings.Contains(stderr, m) {
			t.Errorf("stderr %q does not mention %s", stderr, m)
		}
	}
}

// TestOutputIsInputRefused: an output flag naming one of the command's inputs (the same
// path, another spelling or a hard link) is a usage error before any work, and the input
// is left as it was; the reviewer's cases overwrote it with exit 0.
func TestOutputIsInputRefused(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", smallCSV)
	masked := writeCSV(t, dir, "m.csv", smallCSV)
	link := filepath.Join(dir, "link.csv")
	if err := os.Link(orig, link); err != nil {
		t.Fatal(err)
	}
	spelt := filepath.Join(dir, ".", "sub", "..", "o.csv")
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		flag string
	}{
		{"link records-out", []string{"link", "--attrs", "a,b", "--records-out", orig, orig, masked}, "--records-out"},
		{"link out, hard link", []string{"link", "--attrs", "a,b", "--out", link, orig, masked}, "--out"},
		{"link out, flags", []string{"link", "--attrs", "a,b", "--out", spelt, "--original", orig, "--masked", masked}, "--out"},
		{"learn out", []string{"learn", "--operator", "wm", "--attrs", "a,b", "--out", masked, orig, masked}, "--out"},
		{"mask out", []string{"mask", "--method", "noise", "--p", "10", "--attrs", "a", "--out", orig, orig}, "--out"},
		{"uniqueness records-out", []string{"uniqueness", "--keys", "region", "--records-out", orig, orig}, "--records-out"},
		{"uniqueness population", []string{"uniqueness", "--keys", "region", "--population", masked, "--records-out", masked, orig}, "--records-out"},
		{"uniqueness sample flag", []string{"uniqueness", "--keys", "region", "--sample", orig, "--records-out", orig}, "--records-out"},
	} {
		code, _, errOut := runReid(t, c.args...)
		if code != exitInput || !strings.Contains(errOut, c.flag) || !strings.Contains(errOut, "input file") {
			t.Errorf("%s: exit %d, stderr %q; want %d naming %s as an input file", c.name, code, errOut, exitInput, c.flag)
		}
		for _, p := range []string{orig, masked} {
			if b, err := os.ReadFile(p); err != nil || string(b) != smallCSV {
				t.Fatalf("%s: %s changed (err %v)", c.name, p, err)
			}
		}
	}
}

// TestNoTruePairKept: --records keeping no record whose true partner is kept too (files
// paired by id, the masked one in reverse order) leaves nothing to measure: an input
// error, exit 2, for link and learn (it was Reid 0 over n = 0).
func TestNoTruePairKept(t *testing.T) {
	dir := t.TempDir()
	lines := strings.Split(strings.TrimSpace(smallCSV), "\n")
	reversed := []string{lines[0]}
	for i := len(lines) - 1; i >= 1; i-- {
		reversed = append(reversed, lines[i])
	}
	orig := writeCSV(t, dir, "o.csv", smallCSV)
	masked := writeCSV(t, dir, "m.csv", strings.Join(reversed, "\n")+"\n")
	for _, cmd := range []string{"link", "learn"} {
		args := []string{cmd, "--attrs", "a,b", "--id", "id", "--records", "2", orig, masked}
		if cmd == "learn" {
			args = append(args, "--operator", "wm")
		}
		code, _, errOut := runReid(t, args...)
		if code != exitInput || !strings.Contains(errOut, "true partner") {
			t.Errorf("%s: exit %d, stderr %q; want %d naming the missing true partners", cmd, code, errOut, exitInput)
		}
	}
}

// TestThreadsNegative: --threads -3 was taken as all cores; it is a usage error.
func TestThreadsNegative(t *testing.T) {
	for _, cmd := range []string{"link", "learn", "audit", "uniqueness"} {
		code, _, stderr := runReid(t, cmd, "--threads", "-3", "x.csv", "y.csv")
		if code != exitInput || !strings.Contains(stderr, "--threads must be") {
			t.Errorf("%s --threads -3: exit %d, %q", cmd, code, stderr)
		}
	}
}

// TestFullDiskIsOutputError: an output the file system refuses for lack of space is exit
// 2 with the path and the system's reason, not an "internal error" (exit 3). /dev/full
// (behind a link named .csv) fails every write with ENOSPC.
func TestFullDiskIsOutputError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	dir := t.TempDir()
	in := writeCSV(t, dir, "in.csv", smallCSV)
	out := filepath.Join(dir, "full.csv") // the output's format comes from its name
	if err := os.Symlink("/dev/full", out); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runReid(t, "mask", "--method", "mdav", "--out", out, in)
	expectInputError(t, code, stderr, "full.csv", "no space left")
	if strings.Contains(stderr, "internal") {
		t.Errorf("stderr %q calls a full disk an internal error", stderr)
	}
}

// fullWriter takes room bytes, then fails as a full disk does (room 0: /dev/full).
type fullWriter struct{ room int }

func (w *fullWriter) Write(p []byte) (int, error) {
	if len(p) > w.room {
		n := w.room
		w.room = 0
		return n, syscall.ENOSPC
	}
	w.room -= len(p)
	return len(p), nil
}

// TestStdoutFullIsOutputError: a text (or JSON) output that cannot be written to stdout
// is exit 2 with the system's reason on one line, as the README's exit codes say: mask's
// summary, audit's summary and CI line, and version exited 0 with the output lost. So
// with a disk that fills at the output's last byte: the lines printed after the last
// checked write (a table's flush) were lost without a word. The audit's reports, written
// before, stay; a policy verdict or an interrupt does not hide the lost summary.
func TestStdoutFullIsOutputError(t *testing.T) {
	orig, _, swap := fixture(t)
	dir := t.TempDir()
	// Every path is absolute; bench's default --datasets (../shared/datasets) is absent
	// from the working directory, so it falls back to synthetic data (a --datasets given
	// must exist).
	withoutDefaultDatasets(t)
	in := writeCSV(t, dir, "in.csv", smallCSV)
	strict := writePolicy(t, `{"max_reid": 0}`)
	audit := func(out string, extra ...string) []string {
		return append([]string{"audit", "--records", "40", "--work-limit", "0.1", "--out", filepath.Join(dir, out), orig, swap}, extra...)
	}
	pair := func(args ...string) []string { return append(args, "--attrs", "age,total_income", orig, swap) }
	for _, tc := range []struct {
		name      string
		args      []string
		interrupt bool   // an interrupt arrives at the start
		report    string // a report directory that must be complete despite the error
	}{
		{"version", []string{"version"}, false, ""},
		{"help", []string{"help"}, false, ""},
		{"help learn", []string{"help", "learn"}, false, ""},
		{"learn --help", []string{"learn", "--help"}, false, ""},
		{"mask text", []string{"mask", "--method", "noise", "--p", "5", "--out", filepath.Join(dir, "noise.csv"), in}, false, ""},
		{"mask json", []string{"mask", "--method", "noise", "--p", "5", "--format", "json", "--out", filepath.Join(dir, "noise2.csv"), in}, false, ""},
		{"describe", []string{"describe", in}, false, ""},
		{"check", pair("check"), false, ""},
		{"link", pair("link", "--records", "40"), false, ""},
		{"link prl", pair("link", "--method", "prl", "--records", "40"), false, ""},
		// A signal held while --records-out is written makes a whole run exit 130; the
		// results lost on stdout still make it exit 2 (it was 130, the loss untold).
		{"link, signal held", pair("link", "--records", "40", "--records-out", filepath.Join(dir, "r.csv")), true, ""},
		{"learn", pair("learn", "--operator", "wm", "--work-limit", "0.1", "--records", "40"), false, ""},
		{"uniqueness", []string{"uniqueness", "--keys", "age_band,sex", orig}, false, ""},
		{"demo", []string{"demo", "--records", "20", "--audit=false"}, false, ""},
		// A work limit: under a time limit the table's figures, and so its length, vary
		// from run to run, and the disk that fills at the first run's last byte did not.
		{"bench", []string{"bench", "--records", "20", "--work-limit", "0.01"}, false, ""},
		{"audit", audit("a"), false, "a"},
		{"audit policy violated", audit("p", "--policy", strict), false, "p"},
		{"audit interrupted", audit("i"), true, "i"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runWith := func(stdout io.Writer) (int, string) {
				var stderr lockedBuffer
				e := &env{stdout: stdout, stderr: &stderr}
				if tc.interrupt {
					e.notify = func(c chan<- os.Signal) { c <- os.Interrupt }
				}
				return run(tc.args, e), stderr.String()
			}
			var whole bytes.Buffer
			if code, stderr := runWith(&whole); code == exitInput || code == exitInternal || whole.Len() == 0 {
				t.Fatalf("with room on stdout: exit %d, %d bytes out; stderr:\n%s", code, whole.Len(), stderr)
			}
			for _, room := range []int{0, whole.Len() - 1} {
				code, stderr := runWith(&fullWriter{room})
				lines := strings.Split(strings.TrimSpace(stderr), "\n")
				last := lines[len(lines)-1]
				if code != exitInput || !strings.HasPrefix(last, "reid "+tc.args[0]+": ") || !strings.Contains(last, "no space left on device") ||
					strings.Count(stderr, "no space left") != 1 || strings.Contains(last, "internal") {
					t.Errorf("room for %d of %d bytes: exit %d, want %d with one line giving the reason; stderr:\n%s", room, whole.Len(), code, exitInput, stderr)
				}
				if tc.report != "" {
					readReport(t, filepath.Join(dir, tc.report))
				}
			}
		})
	}
}

// censusFiles returns the paths of the CENSUS original and of one of its masked files in
// ../shared, and skips the test where they are absent.
func censusFiles(t *testing.T, masked string) (original, maskedPath string) {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "datasets", "census")
	original, maskedPath = filepath.Join(dir, "original.csv"), filepath.Join(dir, "masked", masked+".csv")
	if _, err := os.Stat(maskedPath); err != nil {
		t.Skipf("CENSUS benchmark files absent (%v): see README.md", err)
	}
	return original, maskedPath
}

// runJSON runs reid with args, fails the test unless it exits 0, decodes its stdout into
// v and returns its stderr.
func runJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	code, out, stderr := runReid(t, args...)
	if code != exitOK {
		t.Fatalf("%v: exit %d: %s", args, code, stderr)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %v: %s", args, err, out)
	}
	return stderr
}

// Two output flags naming one file by different spellings (a link to its directory, a
// relative and an absolute path) are refused like the same spelling: the second write
// lost the first output.
func TestOutputsOneFileTwoSpellings(t *testing.T) {
	_, orig, masked := toyFiles(t)
	dir := t.TempDir()
	if err := os.Symlink(dir, filepath.Join(dir, "ln")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	t.Chdir(dir)
	for _, pair := range [][2]string{
		{filepath.Join(dir, "x.json"), filepath.Join(dir, "ln", "x.json")},
		{"x.json", filepath.Join(dir, "x.json")},
	} {
		code, _, stderr := runReid(t, "learn", "--operator", "wm", "--params-out", pair[0], "--out", pair[1], orig, masked)
		if code != exitInput || !strings.Contains(stderr, "--params-out and --out both name") {
			t.Errorf("%v: exit %d, %q", pair, code, stderr)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("left behind: %v", entries)
	}
}

// Standard input is no output: written through its link it replaced the file the shell
// read it from (--out /dev/stdin < victim.json). Refused before the work, as a closed
// standard output would be.
func TestStdinIsNoOutput(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", smallCSV)
	for _, p := range []string{"/dev/stdin", "/dev/fd/0", "/dev//stdin"} {
		code, _, errOut := runReid(t, "link", "--attrs", "a,b", "--out", p, orig, orig)
		if code != exitInput || !strings.Contains(errOut, "standard input is not an output") {
			t.Errorf("--out %s: exit %d, %q", p, code, errOut)
		}
	}
}
