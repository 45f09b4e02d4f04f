package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestMaskingOf(t *testing.T) {
	for name, want := range map[string]string{
		"mdav_k3.csv": "mdav:k=3", "indrank_k10.csv": "indrank:k=10", "rankswap_p15.csv": "rankswap:p=15",
		"argus_rankswap_p5.csv": "rankswap:p=5", "noise_additive_10.csv": "none", "mdav.csv": "none",
	} {
		if got := maskingOf(name); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
	}
}

func TestBenchSynthetic(t *testing.T) {
	dir := t.TempDir()
	withoutDefaultDatasets(t)
	csvPath := filepath.Join(dir, "bench.csv")
	code, out, stderr := runReid(t, "bench", "--records", "40", "--time-limit", "0.5s", "--csv", csvPath)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// bench's own lines start "reid bench:", as other commands' "reid CMD:" (they said
	// "reid: bench:"): the synthetic data's notice and one line per file done.
	for _, want := range []string{"reid bench: no " + filepath.Join("..", "shared", "datasets", "census", "original.csv") + "; using 40 synthetic records (seed 1)\n",
		"reid bench: mdav_k3.csv done (", "reid bench: rankswap_p15.csv done ("} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "reid: bench:") {
		t.Errorf("stderr has a line starting \"reid: bench:\":\n%s", stderr)
	}
	rows := readCSVFile(t, csvPath)
	if len(rows) != 7 || rows[0][4] != "dbrl_euclidean" {
		t.Fatalf("%d rows, header %v", len(rows), rows[0])
	}
	for _, want := range []string{"| mdav_k3 | mdav:k=3 |", "| rankswap_p15 | rankswap:p=15 |", "| s bilinear | s Choquet |"} {
		if !strings.Contains(out, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, out)
		}
	}
	// The worst case is anytime: optimal (incumbent = bound) or stopped by the time limit
	// with incumbent ≤ bound.
	for _, r := range rows[1:] {
		for _, c := range [][3]int{{6, 7, 8}, {9, 10, 11}, {19, 20, 21}, {22, 23, 24}} {
			inc, _ := strconv.ParseFloat(r[c[0]], 64)
			bound, _ := strconv.ParseFloat(r[c[1]], 64)
			status := r[c[2]]
			if (status != "optimal" && status != "time_limit") || inc > bound || (status == "optimal" && inc != bound) {
				t.Errorf("%s: incumbent %v bound %v status %s", r[1], inc, bound, status)
			}
		}
	}
}

// An interrupt ends the grid after the file being searched: the table holds the files
// done, says it was interrupted, and bench exits 130.
func TestBenchInterrupted(t *testing.T) {
	dir := t.TempDir()
	withoutDefaultDatasets(t)
	csvPath := filepath.Join(dir, "bench.csv")
	var out, errOut lockedBuffer
	e := &env{stdout: &out, stderr: &errOut, notify: func(c chan<- os.Signal) { c <- os.Interrupt }}
	code := run([]string{"bench", "--records", "40", "--time-limit", "5s", "--csv", csvPath}, e)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errOut.String())
	}
	rows := readCSVFile(t, csvPath)
	if len(rows) < 2 || len(rows) >= 7 || !strings.Contains(out.String(), fmt.Sprintf("interrupted after %d of 6 files", len(rows)-1)) {
		t.Errorf("%d CSV rows (with the header); Markdown:\n%s", len(rows), out.String())
	}
	if !strings.Contains(strings.Join(rows[len(rows)-1], ","), "interrupted") {
		t.Errorf("the last file's searches are not marked interrupted: %v", rows[len(rows)-1])
	}
	// The interrupt came before PRL, which is then not run: n/a, not a Reid of 0.
	last := rows[len(rows)-1]
	if prl := last[slices.Index(rows[0], "prl_em")]; prl != "n/a" {
		t.Errorf("prl_em of the interrupted file = %q, want n/a", prl)
	}
	// And before the Euclidean DBRL, which gives n and K.Reid: n/a, not 0, in the CSV as
	// in the Markdown (where a DBRL of 0.0000 stood), and the title, which takes n from the
	// first file, names no count of records.
	for _, col := range []string{"n", "dbrl_euclidean", "k_reid", "seconds_dbrl"} {
		if v := last[slices.Index(rows[0], col)]; v != "n/a" {
			t.Errorf("%s of the interrupted file = %q, want n/a", col, v)
		}
	}
	if md := "| " + last[1] + " | " + last[2] + " | n/a | n/a |"; !strings.Contains(out.String(), md) || strings.Contains(out.String(), "0 records") {
		t.Errorf("the Markdown of a file whose DBRL did not run:\n%s", out.String())
	}
	// It came before the worst-case searches too: none started, so no family has an
	// incumbent or a bound (the CSV wrote 0 for WM and OWA, a proven bound of 0).
	for _, fam := range []string{"wm", "owa", "bilinear", "choquet"} {
		inc, bound, status := last[slices.Index(rows[0], fam+"_incumbent")], last[slices.Index(rows[0], fam+"_bound")], last[slices.Index(rows[0], fam+"_status")]
		if inc != "n/a" || bound != "n/a" || status != "interrupted" {
			t.Errorf("%s of the interrupted file: incumbent %q, bound %q, status %q; want n/a, n/a, interrupted", fam, inc, bound, status)
		}
	}
}

// A family whose search started keeps its incumbent and bound in the CSV when it was
// interrupted or stopped on its limit; one that never started (interrupted before it, or
// not available) has n/a, as in the Markdown. The rows are made by hand: where a real
// interrupt lands in a search depends on timing.
func TestBenchCSVFamiliesNotStarted(t *testing.T) {
	prl := 0.25
	row := benchRow{Dataset: "d", File: "f", Masking: "none", DBRL: &auditLinkage{N: 8, Reid: 0.5}, PRL: &prl,
		WM:       auditWorstCase{Operator: "wm", Available: true, Status: "interrupted", IncumbentReid: 0.625, BoundReid: 0.875},
		OWA:      auditWorstCase{Operator: "owa", Available: false, Status: "interrupted", Reason: "interrupted before the search started"},
		Bilinear: auditWorstCase{Operator: "bilinear", Available: false, Status: "interrupted"},
		Choquet:  auditWorstCase{Operator: "choquet", Available: false, Status: "not_available"},
		Seconds:  map[string]float64{}}
	var b strings.Builder
	if err := writeBenchCSV(&b, []benchRow{row}); err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("%d rows (%v):\n%s", len(rows), err, b.String())
	}
	want := map[string]string{
		"wm_incumbent": "0.625", "wm_bound": "0.875", "wm_status": "interrupted",
		"owa_incumbent": "n/a", "owa_bound": "n/a", "owa_status": "interrupted",
		"bilinear": "n/a", "bilinear_incumbent": "n/a", "bilinear_bound": "n/a", "bilinear_status": "interrupted",
		"choquet": "n/a", "choquet_incumbent": "n/a", "choquet_bound": "n/a", "choquet_status": "not_available",
	}
	for col, v := range want {
		if i := slices.Index(rows[0], col); i < 0 || rows[1][i] != v {
			t.Errorf("%s: got %q (column %d), want %q", col, rows[1][max(i, 0)], i, v)
		}
	}
	// The Markdown row says the same: WM's figures, n/a for the three others.
	b.Reset()
	if err := writeBenchMarkdown(&b, "t", []benchRow{row}); err != nil {
		t.Fatal(err)
	}
	if want := "| 0.6250 (≤ 0.8750) | n/a | n/a | n/a |"; !strings.Contains(b.String(), want) {
		t.Errorf("Markdown lacks %q:\n%s", want, b.String())
	}
}

// The help and the README list the CSV's columns in the order they are written: the
// help said "then for each learned family F (wm, owa, bilinear, choquet) F_incumbent,
// F_bound and F_status, k_reid", where bilinear's and Choquet's columns (but the first
// version's bilinear and choquet) come after seconds_owa.
func TestBenchCSVColumnsDocumented(t *testing.T) {
	var b strings.Builder
	if err := writeBenchCSV(&b, nil); err != nil {
		t.Fatal(err)
	}
	header, err := csv.NewReader(strings.NewReader(b.String())).Read()
	if err != nil {
		t.Fatal(err)
	}
	written := strings.Join(header, ", ")
	help := strings.Join(strings.Fields(benchCommand().Long), " ")
	if m := regexp.MustCompile(`columns, in this order: ([a-z_, ]+)\.`).FindStringSubmatch(help); m == nil || m[1] != written {
		t.Errorf("help's CSV columns %q, written %q", m, written)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(readme), "\n") {
		if strings.HasPrefix(l, "| `reid bench ") {
			row = l
		}
	}
	if m := regexp.MustCompile("columns, in this order: `([a-z_, ]+)`").FindStringSubmatch(row); m == nil || m[1] != written {
		t.Errorf("README's CSV columns %q, written %q (row %q)", m, written, row)
	}
}

// withoutDefaultDatasets makes the working directory a new empty one, where the default
// --datasets (../shared/datasets) does not exist: bench then falls back to synthetic
// data, which it does only for the defaults.
func withoutDefaultDatasets(t *testing.T) {
	t.Helper()
	t.Chdir(t.TempDir())
	if _, err := os.Stat(filepath.Join("..", "shared", "datasets")); err == nil {
		t.Fatal("../shared/datasets exists beside the test's temporary directory")
	}
}

// readCSVFile reads every row of a CSV file.
func readCSVFile(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestBenchTimeLimitAndRecords: the help of --time-limit says what the code does (each
// file gets twice the limit, as the table's title says), and --records below 20 (MDAV
// k=10 needs two groups of 10, rank swapping p=5 a window of ⌊5n/100⌋ ≥ 1) is a usage
// error given before any work.
func TestBenchTimeLimitAndRecords(t *testing.T) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	benchCommand().Flags(fs, &env{})
	if u := fs.Lookup("time-limit").Usage; !strings.Contains(u, "twice") || strings.Contains(u, "per operator") {
		t.Errorf("--time-limit help %q", u)
	}
	dir := t.TempDir()
	withoutDefaultDatasets(t)
	for _, tc := range []struct {
		records string
		code    int
	}{{"19", exitInput}, {"20", exitOK}} {
		md := filepath.Join(dir, "b"+tc.records+".md")
		code, _, stderr := runReid(t, "bench", "--records", tc.records, "--time-limit", "0.05s", "--md", md)
		if code != tc.code {
			t.Errorf("--records %s: exit %d, want %d: %s", tc.records, code, tc.code, stderr)
		}
		if tc.code != exitOK {
			if !strings.Contains(stderr, "--records must be at least 20") {
				t.Errorf("--records %s: %q", tc.records, stderr)
			}
			continue
		}
		if b, _ := os.ReadFile(md); !strings.Contains(string(b), "time limit 100ms per file") {
			t.Errorf("title of a 50ms limit: %.200s", b)
		}
	}
}

// A data set named on the command line must exist; the default one may be absent (the
// synthetic fallback).
func TestBenchNamedDatasetMustExist(t *testing.T) {
	dir := t.TempDir()
	md := filepath.Join(dir, "b.md")
	code, _, stderr := runReid(t, "bench", "--datasets", dir, "--dataset", "censsus", "--md", md)
	if code != exitInput || !strings.Contains(stderr, "--dataset censsus: no ") {
		t.Errorf("misspelt --dataset: exit %d, stderr %q", code, stderr)
	}
	if _, err := os.Stat(md); err == nil {
		t.Error("an output was written")
	}
}

// A --datasets given on the command line must hold the data set: a mistyped directory
// fell back to synthetic data and exited 0, a table of the wrong data. Only the default
// directory may be absent.
func TestBenchGivenDatasetsMustExist(t *testing.T) {
	dir := t.TempDir()
	typo := filepath.Join(dir, "dataset")
	md := filepath.Join(dir, "b.md")
	code, _, stderr := runReid(t, "bench", "--datasets", typo, "--records", "20", "--work-limit", "0.05", "--md", md)
	expectInputError(t, code, stderr, "--datasets "+typo+": no "+filepath.Join(typo, "census", "original.csv"))
	if strings.Contains(stderr, "synthetic") {
		t.Errorf("fell back to synthetic data: %q", stderr)
	}
	if _, err := os.Stat(md); err == nil {
		t.Error("an output was written")
	}
}

// benchDatasetDir writes a data set of n records, DIR/NAME/original.csv and one masked
// file, DIR/NAME/masked/noise.csv (each value moved by at most 0.4, partners in row order),
// and returns DIR.
func benchDatasetDir(t *testing.T, name string, n int) string {
	t.Helper()
	dir := t.TempDir()
	set := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Join(set, "masked"), 0o755); err != nil {
		t.Fatal(err)
	}
	var o, m strings.Builder
	o.WriteString("a,b,c\n")
	m.WriteString("a,b,c\n")
	for i := range n {
		a, b, c := float64(i), float64(i*37%61), float64(i*17%29+i/3)
		d := 0.4 * float64(i%3-1)
		fmt.Fprintf(&o, "%g,%g,%g\n", a, b, c)
		fmt.Fprintf(&m, "%g,%g,%g\n", a+d, b-d, c+d)
	}
	writeCSV(t, set, "original.csv", o.String())
	writeCSV(t, filepath.Join(set, "masked"), "noise.csv", m.String())
	return dir
}

// --records N given on a real data set links and learns on the first N records of each
// file, as reid audit --records does; it was ignored there (it only sized the synthetic
// data). Not given, every record is used; more than a file has uses it whole, with
// audit's warning.
func TestBenchRecordsOnRealData(t *testing.T) {
	dir := benchDatasetDir(t, "mine", 60)
	for _, tc := range []struct {
		records []string // the flag, or none
		n       string   // the CSV's n: the masked records linked
		warn    bool     // the warning that the files have fewer records
		title   string   // in the Markdown's title
	}{
		{nil, "60", false, "mine, 60 records,"},
		{[]string{"--records", "25"}, "25", false, "mine, the first 25 records of each file,"},
		{[]string{"--records", "100"}, "60", true, "mine, 60 records,"},
	} {
		csvPath := filepath.Join(t.TempDir(), "b.csv")
		args := append([]string{"bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05", "--csv", csvPath}, tc.records...)
		code, out, stderr := runReid(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d: %s", tc.records, code, stderr)
		}
		rows := readCSVFile(t, csvPath)
		if n := rows[1][slices.Index(rows[0], "n")]; len(rows) != 2 || n != tc.n {
			t.Errorf("%v: n = %s, want %s (%d rows)", tc.records, n, tc.n, len(rows))
		}
		warning := "--records 100 is more than the 60 of " + filepath.Join(dir, "mine", "original.csv") + " and the 60 of " + filepath.Join(dir, "mine", "masked", "noise.csv") + ": all of them are used"
		if strings.Contains(stderr, warning) != tc.warn {
			t.Errorf("%v: warning %q on stderr: %v, want %v:\n%s", tc.records, warning, !tc.warn, tc.warn, stderr)
		}
		if !strings.Contains(out, tc.title) {
			t.Errorf("%v: the title does not say %q:\n%.300s", tc.records, tc.title, out)
		}
	}
}

// A masked file that shares no column with the original is an error naming the two
// files once each, checked for every file before any file's work: it said "(give
// --attrs)", a flag bench does not have, named the masked file twice, and came after the
// files before it had been measured.
func TestBenchNoCommonColumn(t *testing.T) {
	dir := benchDatasetDir(t, "mine", 30)
	orig := filepath.Join(dir, "mine", "original.csv")
	// Sorted after noise.csv, which would be measured first.
	bad := writeCSV(t, filepath.Join(dir, "mine", "masked"), "other.csv", "x,y\n1,2\n3,4\n")
	md := filepath.Join(t.TempDir(), "b.md")
	code, _, stderr := runReid(t, "bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05", "--md", md)
	expectInputError(t, code, stderr, "reid bench: "+bad+": no column in common with "+orig)
	if strings.Contains(stderr, "--attrs") || strings.Count(stderr, "other.csv") != 1 || strings.Count(stderr, "original.csv") != 1 {
		t.Errorf("stderr %q: want each file named once, and no --attrs", stderr)
	}
	if _, err := os.Stat(md); err == nil {
		t.Error("an output was written")
	}
}

// A masked file with fewer records than its original, a bad value or a constant column
// in a column the audit links on, or fewer of the original's columns than the other
// masked files, sorted after noise.csv, is refused before any file's work, with or
// without --records: bench measured the files before it and then exited 2 without a
// table (or, for the missing column, linked that file on fewer attributes in silence).
func TestBenchFilesCheckedFirst(t *testing.T) {
	for _, c := range []struct{ name, content, want string }{
		{"x_fewer.csv", "a,b,c\n1,2,3\n4,5,6\n", "the files have different numbers of records: 2 records here, 30 in "},
		{"x_bad.csv", "a,b,c\n" + strings.Repeat("1,2,3\n", 14) + "1,x,3\n" + strings.Repeat("1,2,3\n", 15), `column "b", row 15: `},
		// The audit refuses a constant column when it standardises, after the work.
		{"x_const.csv", "a,b,c\n" + constRows(30), `column "c": constant column (drop it)`},
		// Linked on a and b only, in silence, beside files linked on a, b and c.
		{"x_lacks.csv", "a,b\n" + strings.Repeat("1,2\n3,5\n", 15), `it holds the original's columns "a", "b", `},
	} {
		for _, records := range []string{"", "20"} {
			dir := benchDatasetDir(t, "mine", 30)
			bad := writeCSV(t, filepath.Join(dir, "mine", "masked"), c.name, c.content)
			md := filepath.Join(t.TempDir(), "b.md")
			args := []string{"bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05", "--md", md}
			if records != "" {
				args = append(args, "--records", records)
			}
			code, _, stderr := runReid(t, args...)
			expectInputError(t, code, stderr, "reid bench: "+bad+": "+c.want)
			if strings.Contains(stderr, "done") {
				t.Errorf("%s: a file was measured before the error:\n%s", c.name, stderr)
			}
			if _, err := os.Stat(md); err == nil {
				t.Errorf("%s: an output was written", c.name)
			}
		}
	}
}

// constRows is n CSV rows a,b,c with c constant.
func constRows(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d,%d,7\n", i, (i*37)%61)
	}
	return b.String()
}

// An error in a masked file names it once: bench put the file's name before an error
// that named its path already.
func TestBenchFileErrorNamedOnce(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "mine", "masked"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeCSV(t, filepath.Join(dir, "mine"), "original.csv", "a,b\n1,2\n3,4\n5,7\n6,1\n")
	bad := writeCSV(t, filepath.Join(dir, "mine", "masked"), "x.csv", "a,b\n1,2\n3,NA\n5,7\n6,1\n")
	code, _, stderr := runReid(t, "bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05")
	expectInputError(t, code, stderr, "reid bench: "+bad+`: column "b", row 2: missing value`)
	if strings.Count(stderr, "x.csv") != 1 {
		t.Errorf("stderr %q names x.csv more than once", stderr)
	}
}

// A data set with its original.csv but no masked file (no masked/, an empty one, one
// without .csv files) is an error naming the directory, whether --dataset names it or it
// is the default: it was measured on synthetic data, with a notice claiming that
// original.csv was missing.
func TestBenchDatasetWithoutMaskedFiles(t *testing.T) {
	for _, tc := range []struct {
		name   string
		masked []string // files made in NAME/masked; nil: no masked directory
		named  bool     // --dataset given, else the default census
	}{
		{"no masked directory", nil, true},
		{"empty masked directory", []string{}, true},
		{"no csv in masked", []string{"notes.txt"}, true},
		{"default without masked directory", nil, false},
		{"default with an empty masked directory", []string{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := "census"
			args := []string{"bench", "--datasets", dir, "--records", "20", "--time-limit", "0.05s"}
			if tc.named {
				name = "mine"
				args = append(args, "--dataset", name)
			}
			if err := os.Mkdir(filepath.Join(dir, name), 0o755); err != nil {
				t.Fatal(err)
			}
			writeCSV(t, filepath.Join(dir, name), "original.csv", smallCSV)
			if tc.masked != nil {
				if err := os.Mkdir(filepath.Join(dir, name, "masked"), 0o755); err != nil {
					t.Fatal(err)
				}
				for _, f := range tc.masked {
					writeCSV(t, filepath.Join(dir, name, "masked"), f, smallCSV)
				}
			}
			md := filepath.Join(dir, "b.md")
			code, _, stderr := runReid(t, append(args, "--md", md)...)
			expectInputError(t, code, stderr, filepath.Join(dir, name, "masked")+": no masked files",
				"want "+name+"/masked/*.csv beside "+name+"/original.csv")
			if strings.Contains(stderr, "synthetic") {
				t.Errorf("fell back to synthetic data: %q", stderr)
			}
			if _, err := os.Stat(md); err == nil {
				t.Error("an output was written")
			}
		})
	}
}

// Under --work-limit the table repeats but for its times, run after run (synthetic data;
// the title names the work limit).
func TestBenchWorkLimitRepeats(t *testing.T) {
	dir := t.TempDir()
	withoutDefaultDatasets(t)
	var tables []string
	// One goroutine and two: counted work decides where the searches stop, not the cores.
	for _, run := range []string{"1", "2"} {
		csvPath := filepath.Join(dir, "bench"+run+".csv")
		code, out, stderr := runReid(t, "bench", "--records", "60", "--work-limit", "0.3", "--threads", run, "--csv", csvPath)
		if code != exitOK {
			t.Fatalf("run %s: exit %d: %s", run, code, stderr)
		}
		if !strings.Contains(out, "work limit 0.6 work seconds per file") {
			t.Errorf("run %s: the title does not name the work limit:\n%s", run, out)
		}
		rows := readCSVFile(t, csvPath)
		if b, _ := os.ReadFile(csvPath); !strings.Contains(string(b), ",work_limit,") {
			t.Errorf("run %s: no search stopped by the work limit: the test needs some", run)
		}
		var cells []string
		for _, r := range rows {
			for c, v := range r {
				if !strings.HasPrefix(rows[0][c], "seconds_") {
					cells = append(cells, v)
				}
			}
		}
		tables = append(tables, strings.Join(cells, ","))
	}
	if tables[0] != tables[1] {
		t.Errorf("the tables differ beyond their times:\n%s\n%s", tables[0], tables[1])
	}
}

// An output naming one of the data set's files (--csv its original.csv, --md a masked
// file) is refused before any work and the file is left as it was: it was overwritten
// with the table, exit 0.
func TestBenchOutputIsAnInput(t *testing.T) {
	dir := t.TempDir()
	set := filepath.Join(dir, "mine")
	if err := os.MkdirAll(filepath.Join(set, "masked"), 0o755); err != nil {
		t.Fatal(err)
	}
	orig := writeCSV(t, set, "original.csv", smallCSV)
	masked := writeCSV(t, filepath.Join(set, "masked"), "noise.csv", smallCSV)
	for _, tc := range []struct{ flag, path string }{{"csv", orig}, {"md", masked}} {
		code, _, stderr := runReid(t, "bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05", "--"+tc.flag, tc.path)
		expectInputError(t, code, stderr, "--"+tc.flag+" "+tc.path+" is the input file")
		if b, err := os.ReadFile(tc.path); err != nil || string(b) != smallCSV {
			t.Errorf("--%s: %s changed (%v)", tc.flag, tc.path, err)
		}
	}
}

// A masked file whose name reads as a masking that changes nothing (mdav_k1.csv: k = 1)
// or cannot be (mdav_k31.csv on 30 records) gets no K.Reid, said on stderr, instead of
// ending the run with an error after the files before it.
func TestBenchNameMaskingInvalid(t *testing.T) {
	dir := benchDatasetDir(t, "mine", 30)
	noise, err := os.ReadFile(filepath.Join(dir, "mine", "masked", "noise.csv"))
	if err != nil {
		t.Fatal(err)
	}
	writeCSV(t, filepath.Join(dir, "mine", "masked"), "mdav_k1.csv", string(noise))
	writeCSV(t, filepath.Join(dir, "mine", "masked"), "mdav_k31.csv", string(noise)) // 30 records
	// Named rank-swapped, but noise: values ± 0.4 that no original holds refute it.
	writeCSV(t, filepath.Join(dir, "mine", "masked"), "rankswap_p10.csv", string(noise))
	csvOut := filepath.Join(t.TempDir(), "b.csv")
	code, _, stderr := runReid(t, "bench", "--datasets", dir, "--dataset", "mine", "--work-limit", "0.05", "--csv", csvOut, "--md", filepath.Join(t.TempDir(), "b.md"))
	if code != exitOK || !strings.Contains(stderr, "reid bench: mdav_k1.csv: its name reads as --masking \"mdav:k=1\": k must be one integer from 2 to the number of records, got \"1\"; K.Reid is not measured (n/a)") {
		t.Fatalf("exit %d:\n%s", code, stderr)
	}
	if !strings.Contains(stderr, `reid bench: mdav_k31.csv: its name reads as --masking "mdav:k=31": k is more than the 30 records`) {
		t.Errorf("no warning for mdav_k31.csv:\n%s", stderr)
	}
	if !strings.Contains(stderr, "reid bench: rankswap_p10.csv: K.Reid is not measured (n/a): --masking does not describe") {
		t.Errorf("no note for rankswap_p10.csv:\n%s", stderr)
	}
	// The note says "see the warning": bench prints it (it did not).
	if !strings.Contains(stderr, "reid bench: rankswap_p10.csv: --masking does not describe how the masked file was made") {
		t.Errorf("no warning of the refuted masking for rankswap_p10.csv:\n%s", stderr)
	}
	// K.Reid is n/a for all three, not the 0 of masking none: mdav_k1 is the unmasked file
	// here in all but name, whose true K.Reid would be 1. The invalid names read as none.
	rows := readCSVFile(t, csvOut)
	col := func(name string) int { return slices.Index(rows[0], name) }
	for _, c := range []struct{ name, masking string }{{"mdav_k1", "none"}, {"mdav_k31", "none"}, {"rankswap_p10", "rankswap:p=10"}} {
		i := slices.IndexFunc(rows, func(r []string) bool { return r[col("masked")] == c.name })
		if i < 0 {
			t.Errorf("no row for %s", c.name)
			continue
		}
		if r := rows[i]; r[col("k_reid")] != "n/a" || r[col("masking")] != c.masking {
			t.Errorf("%s: k_reid %q, masking %q; want n/a, %s", c.name, r[col("k_reid")], r[col("masking")], c.masking)
		}
	}
}
