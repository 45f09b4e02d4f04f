package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/reid-sdc/reid/linkage"
	"github.com/reid-sdc/reid/optimize"
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
	if doc["correct_links"].(float64) != 3 || doc["euclidean_links"].(float64) != 2 || doc["euclidean_correct_links"].(float64) != 2 || doc["bound"].(float64) != 3 ||
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
	if _, ok := doc["warnings"]; ok {
		t.Errorf("warnings %v where the bound (3) is above the Euclidean links (2)", doc["warnings"])
	}
	// ε = 10 is beyond every margin of three z-scored records (a squared difference is at
	// most (2·1.16)² < 10 on each attribute): the bound is 0, the Euclidean distance still
	// links 2 by plain DBRL, and the JSON says so.
	code, out, stderr = runReid(t, "learn", "--operator", "wm", "--direction", "original-to-masked", "--format", "json", "--epsilon", "10", orig, masked)
	if code != exitOK {
		t.Fatalf("ε = 10: exit %d: %s", code, stderr)
	}
	var wide struct {
		Bound                 int      `json:"bound"`
		EuclideanLinks        int      `json:"euclidean_links"`
		EuclideanCorrectLinks int      `json:"euclidean_correct_links"`
		Warnings              []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(out), &wide); err != nil {
		t.Fatal(err)
	}
	if wide.Bound != 0 || len(wide.Warnings) != 1 || !strings.Contains(wide.Warnings[0], "re-identifies 2 records") || !strings.Contains(wide.Warnings[0], "proven bound 0") {
		t.Errorf("ε = 10: bound %d, warnings %q", wide.Bound, wide.Warnings)
	}
	// No margin reaches 10, so the Euclidean distance's links by the bound's criterion are
	// none, while plain DBRL's stay 2.
	if wide.EuclideanLinks != 2 || wide.EuclideanCorrectLinks != 0 {
		t.Errorf("ε = 10: euclidean_links %d (want 2), euclidean_correct_links %d (want 0)", wide.EuclideanLinks, wide.EuclideanCorrectLinks)
	}
}

func TestLearnUsage(t *testing.T) {
	_, orig, masked := toyFiles(t)
	for _, args := range [][]string{
		{"--operator", "sugeno", orig, masked},
		{"--epsilon", "0", orig, masked},
		{"--time-limit", "-1s", orig, masked},
		{"--work-limit", "-1", orig, masked},
		{"--work-limit", "0", orig, masked}, // fell back to the default time limit
		{"--work-limit", "1e10", orig, masked},
		{"--work-limit", "300000h", orig, masked},
		{"--work-limit", "1", "--time-limit", "1s", orig, masked},
		{"--format", "xml", orig, masked},
	} {
		if code, _, _ := runReid(t, append([]string{"learn"}, args...)...); code != exitInput {
			t.Errorf("%v: exit %d, want %d", args, code, exitInput)
		}
	}
	// The demo's default work limit gives way to a time limit, but not to both.
	for _, args := range [][]string{
		{"--work-limit", "0"},
		{"--work-limit", "2", "--time-limit", "1s"},
	} {
		if code, _, stderr := runReid(t, append([]string{"demo", "--records", "20", "--out", t.TempDir()}, args...)...); code != exitInput || !strings.Contains(stderr, "--work-limit") {
			t.Errorf("demo %v: exit %d, %q; want a usage error naming --work-limit", args, code, stderr)
		}
	}
}

// learn --operator choquet, choquet2 and bilinear on the first CENSUS records: the
// hierarchy's warm starts and invariants (Choquet ≥ max(WM, OWA, 2-additive), bilinear ≥
// WM, 2-additive ≥ WM, all proven), the
// Shapley values sum to 1 and the interaction indices cover every pair, the eigenvalues of
// W are ≥ −1e-9, and the written parameters give reid link the reported DBRL links.
func TestLearnChoquetBilinear(t *testing.T) {
	orig, masked := censusFiles(t, "rankswap_p15")
	attrs := "AFNLWGT,AGI,EMCONTRB,FEDTAX,PTOTVAL"
	for _, op := range []string{"choquet", "choquet2", "bilinear"} {
		params := filepath.Join(t.TempDir(), "params.json")
		// A limit that does not bind: time_limit must echo it (it once reported what the
		// lower families had left, which differs from run to run).
		code, out, stderr := runReid(t, "learn", "--operator", op, "--attrs", attrs, "--records", "40", "--time-limit", "5m", "--format", "json", "--params-out", params, orig, masked)
		if code != exitOK {
			t.Fatalf("%s: exit %d: %s", op, code, stderr)
		}
		var doc struct {
			TimeLimit    string `json:"time_limit"`
			Status       string `json:"status"`
			CorrectLinks int    `json:"correct_links"`
			DBRLLinks    int    `json:"dbrl_links"`
			Bound        int    `json:"bound"`
			Hierarchy    []struct {
				Operator     string `json:"operator"`
				CorrectLinks int    `json:"correct_links"`
				Status       string `json:"status"`
			} `json:"hierarchy"`
			Shapley []struct {
				Attribute string  `json:"attribute"`
				Value     float64 `json:"value"`
			} `json:"shapley"`
			Interaction []struct {
				Attributes [2]string `json:"attributes"`
			} `json:"interaction"`
			Eigenvalues []float64 `json:"eigenvalues"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		want := map[string]int{"choquet": 3, "choquet2": 1, "bilinear": 1}[op]
		if doc.Status != "optimal" || len(doc.Hierarchy) != want {
			t.Fatalf("%s: status %s, hierarchy %+v", op, doc.Status, doc.Hierarchy)
		}
		if doc.TimeLimit != "5m0s" {
			t.Errorf("%s: time_limit %q, want the 5m0s asked for", op, doc.TimeLimit)
		}
		for _, h := range doc.Hierarchy {
			if h.Status == "optimal" && h.CorrectLinks > doc.CorrectLinks {
				t.Errorf("%s links %d < %s's %d", op, doc.CorrectLinks, h.Operator, h.CorrectLinks)
			}
		}
		switch op {
		case "choquet", "choquet2":
			sum := 0.0
			for _, s := range doc.Shapley {
				sum += s.Value
			}
			if len(doc.Shapley) != 5 || math.Abs(sum-1) > 1e-9 || len(doc.Interaction) != 10 || doc.Shapley[0].Attribute != "AFNLWGT" {
				t.Errorf("choquet: shapley %+v (Σ %v), %d interactions", doc.Shapley, sum, len(doc.Interaction))
			}
		case "bilinear":
			if len(doc.Eigenvalues) != 5 || doc.Eigenvalues[0] < -1e-9 {
				t.Errorf("bilinear: eigenvalues %v", doc.Eigenvalues)
			}
		}
		linkOp := op
		if op == "choquet2" {
			linkOp = "choquet" // --params-out writes the full measure
		}
		code, out, stderr = runReid(t, "link", "--operator", linkOp, "--params", params, "--attrs", attrs, "--records", "40", "--format", "json", orig, masked)
		if code != exitOK {
			t.Fatalf("%s link: exit %d: %s", op, code, stderr)
		}
		var link map[string]any
		if err := json.Unmarshal([]byte(out), &link); err != nil {
			t.Fatal(err)
		}
		if int(link["correct"].(float64)) != doc.DBRLLinks {
			t.Errorf("%s: reid link with the learned parameters: %v correct, learn reported %d DBRL links", op, link["correct"], doc.DBRLLinks)
		}
	}
}

// lockedBuffer is a bytes.Buffer safe for the interrupt handler's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// An interrupt (here delivered as soon as learn listens) stops the search: learn writes
// complete results with status interrupted, a valid bound and parameters that reid link
// counts as claimed, and exits 130.
func TestLearnInterrupted(t *testing.T) {
	orig, _, swap := fixture(t)
	dir := t.TempDir()
	outFile, params := filepath.Join(dir, "learn.json"), filepath.Join(dir, "params.json")
	var out, errOut lockedBuffer
	e := &env{stdout: &out, stderr: &errOut, notify: func(c chan<- os.Signal) { c <- os.Interrupt }}
	// The time limit only bounds the test if the interrupt fails: this search is not
	// proven in minutes.
	code := run([]string{"learn", "--operator", "wm", "--attrs", demoNumeric, "--time-limit", "30s", "--format", "json", "--out", outFile, "--params-out", params, orig, swap}, e)
	if code != exitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, exitInterrupted, errOut.String())
	}
	if !strings.Contains(errOut.String(), "interrupt") {
		t.Errorf("stderr does not say it was interrupted: %q", errOut.String())
	}
	raw, err := os.ReadFile(outFile)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Status       string `json:"status"`
		CorrectLinks int    `json:"correct_links"`
		Bound        int    `json:"bound"`
		N            int    `json:"n"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("%v: %s", err, raw)
	}
	if doc.Status != "interrupted" || doc.CorrectLinks > doc.Bound || doc.Bound > doc.N {
		t.Errorf("status %q, %d links, bound %d, n %d", doc.Status, doc.CorrectLinks, doc.Bound, doc.N)
	}
	// The parameters written link, with margin ε, the records the report claims.
	code, linkOut, stderr := runReid(t, "link", "--operator", "wm", "--attrs", demoNumeric, "--params", params, "--format", "json", orig, swap)
	if code != exitOK {
		t.Fatalf("link exit %d: %s", code, stderr)
	}
	var link struct {
		Correct int `json:"correct"`
	}
	if err := json.Unmarshal([]byte(linkOut), &link); err != nil {
		t.Fatal(err)
	}
	if link.Correct < doc.CorrectLinks {
		t.Errorf("reid link with the interrupted run's parameters links %d, the run claims %d with margin ε", link.Correct, doc.CorrectLinks)
	}
}

// demoNumeric are numeric attributes of the demo's files.
const demoNumeric = "age,wages,interest,other_income,total_income,federal_tax"

// Without a time limit the hierarchy's lower families still end (each is only a warm
// start): here with a limit of 1 ms instead of lowerFamilyLimit, WM stops on it while the
// bilinear search runs to its proof, links at least as many as WM and proves it.
func TestLearnLowerFamiliesLimited(t *testing.T) {
	orig, _, swap := fixture(t)
	pf := addPairFlags(flag.NewFlagSet("learn", flag.ContinueOnError))
	*pf.original, *pf.masked, *pf.attrs = orig, swap, demoNumeric
	files, err := pf.open(io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	job := learnJob{files: files, family: optimize.Bilinear, hierarchy: true, direction: linkage.MaskedToOriginal, records: 80,
		settings: optimize.Settings{}, lowerLimit: time.Millisecond}
	r, _, err := job.run(context.Background(), &env{stdout: &stdout, stderr: &stderr})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Hierarchy) != 1 || r.Hierarchy[0].Status != "time_limit" || r.Status != "optimal" || r.CorrectLinks < r.Hierarchy[0].CorrectLinks || r.Bound != r.CorrectLinks {
		t.Errorf("bilinear %s %d/%d; hierarchy %+v", r.Status, r.CorrectLinks, r.Bound, r.Hierarchy)
	}
}

// TestPrintLearnInterval: a stopped search's text says the worst case is an interval,
// with both ends as links and as Reid (454 / 1080 = 0.4204, 764 / 1080 = 0.7074); a
// proven one does not.
func TestPrintLearnInterval(t *testing.T) {
	r := learnReport{runInputs: runInputs{N: 1080, Attributes: []string{"a"}}, Operator: "wm", CorrectLinks: 454, Reid: 454.0 / 1080, Bound: 764,
		Gap: (764.0 - 454) / 764, Status: "time_limit", Params: []float64{1}}
	var b strings.Builder
	if err := printLearn(&b, &r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(Reid ≤ 0.7074; gap 40.58%)", "lies between 454 and 764 links (Reid 0.4204 to 0.7074)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
	r.Status, r.Bound, r.Gap = "optimal", 454, 0
	b.Reset()
	if err := printLearn(&b, &r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "lies between") {
		t.Errorf("a proven optimum is called an interval:\n%s", b.String())
	}
}

// learn --work-limit: the lower families of the hierarchy get a quarter of it each and the
// family what they did not count, and the JSON (but seconds) repeats on one goroutine and
// on two where every search stops at its limit (the first 120 CENSUS records of
// rankswap_p15, bilinear over WM).
func TestLearnWorkLimitRepeats(t *testing.T) {
	orig, masked := censusFiles(t, "rankswap_p15")
	const limit = 2.0
	var outs []string
	for _, threads := range []string{"1", "2"} {
		code, out, stderr := runReid(t, "learn", "--operator", "bilinear", "--records", "120", "--work-limit", "2", "--threads", threads, "--format", "json", orig, masked)
		if code != exitOK {
			t.Fatalf("threads %s: exit %d: %s", threads, code, stderr)
		}
		var doc struct {
			Status    string  `json:"status"`
			Work      float64 `json:"work"`
			WorkLimit float64 `json:"work_limit"`
			Hierarchy []struct {
				Status string  `json:"status"`
				Work   float64 `json:"work"`
			} `json:"hierarchy"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Hierarchy) != 1 || doc.Hierarchy[0].Status != "work_limit" || doc.Status != "work_limit" || doc.WorkLimit != limit {
			t.Fatalf("threads %s: %+v: want WM and bilinear stopped by the work limit of %v", threads, doc, limit)
		}
		// Each search stops at its share, past it by at most the LP solve under way, or
		// just before it when its next step's known work would pass it.
		wm := doc.Hierarchy[0].Work
		if wm < 0.95*limit/4 || wm > 1.02*limit/4 || doc.Work < 0.95*(limit-wm) || doc.Work > 1.02*(limit-wm) {
			t.Errorf("threads %s: WM counted %.4f, bilinear %.4f work seconds: want about %v and what WM left of %v", threads, wm, doc.Work, limit/4, limit)
		}
		var lines []string
		for _, l := range strings.Split(out, "\n") {
			if !strings.Contains(l, `"seconds"`) {
				lines = append(lines, l)
			}
		}
		outs = append(outs, strings.Join(lines, "\n"))
	}
	if outs[0] != outs[1] {
		t.Errorf("the JSON differs beyond seconds:\n%s\n%s", outs[0], outs[1])
	}
	if code, _, stderr := runReid(t, "learn", "--operator", "wm", "--work-limit", "2", "--time-limit", "1m", orig, masked); code != exitInput || !strings.Contains(stderr, "--work-limit and --time-limit") {
		t.Errorf("both limits: exit %d, %q; want a usage error", code, stderr)
	}
}

// TestLearnProofsAgreeAcrossWorkLimits: whatever the work limit, a search that says
// "optimal" has found the family's optimum, so every optimal run on the same records
// reports the same number of links, and no run's proven bound is below the links any
// run found. With --work-limit 1 on 400 CENSUS records (rank swapping, p = 5 %), the
// bilinear search closed its root when the work left could not pay for counting a W
// that linked all 400, and said "optimal" at 395 (0.9 and 1.1 found 400).
func TestLearnProofsAgreeAcrossWorkLimits(t *testing.T) {
	orig, masked := censusFiles(t, "rankswap_p5")
	type run struct {
		limit        string
		status       string
		links, bound int
	}
	var runs []run
	for _, limit := range []string{"0.6", "0.8", "0.9", "1", "1.1", "1.3"} {
		var doc struct {
			Status       string `json:"status"`
			CorrectLinks int    `json:"correct_links"`
			Bound        int    `json:"bound"`
		}
		runJSON(t, &doc, "learn", "--operator", "bilinear", "--records", "400", "--work-limit", limit, "--format", "json", orig, masked)
		runs = append(runs, run{limit, doc.Status, doc.CorrectLinks, doc.Bound})
	}
	for _, a := range runs {
		for _, b := range runs {
			if a.bound < b.links {
				t.Errorf("--work-limit %s proves at most %d links (%s), --work-limit %s found %d", a.limit, a.bound, a.status, b.limit, b.links)
			}
			if a.status == "optimal" && b.status == "optimal" && a.links != b.links {
				t.Errorf("optimal at %d links with --work-limit %s, at %d with %s", a.links, a.limit, b.links, b.limit)
			}
		}
	}
}

// A second interrupt aborts at once, and first removes what --export-mps had begun to
// write: a tester's second SIGTERM while learn wrote its model left .reid-learn-*/ with up
// to 49 MB of it. Here the first interrupt comes as learn listens, the second as it says
// it is stopping; abort, which in main ends the process, records the signal and whether
// the model's directory was still there.
func TestLearnSecondInterruptRemovesModel(t *testing.T) {
	orig, _, swap := fixture(t)
	dir := t.TempDir()
	var relay chan<- os.Signal
	var errOut lockedBuffer
	stderr := writeFunc(func(p []byte) (int, error) {
		if relay != nil && bytes.Contains(p, []byte("stopping with the best results")) {
			relay <- syscall.SIGTERM
		}
		return errOut.Write(p)
	})
	var aborted []os.Signal
	var left []string
	e := &env{stdout: io.Discard, stderr: stderr, notify: func(c chan<- os.Signal) {
		relay = c
		c <- os.Interrupt
	}, abort: func(s os.Signal) {
		aborted = append(aborted, s)
		left, _ = filepath.Glob(filepath.Join(dir, ".reid-learn-*"))
	}}
	run([]string{"learn", "--operator", "wm", "--attrs", demoNumeric, "--time-limit", "30s", "--export-mps", filepath.Join(dir, "model.mps"), orig, swap}, e)
	if len(aborted) != 1 || aborted[0] != syscall.SIGTERM || len(left) != 0 {
		t.Errorf("aborted by %v with %q left; stderr %s", aborted, left, errOut.String())
	}
}

// A time limit the Euclidean linkage before the search uses up is said in those words:
// the search's own note then speaks of its limit, 1 ms (a tester's 5 s on 100,000
// records, which that linkage took).
func TestLearnLimitSpentByEuclidean(t *testing.T) {
	orig, _, swap := fixture(t)
	code, stdout, stderr := runReid(t, "learn", "--operator", "wm", "--attrs", demoNumeric, "--time-limit", "1ns", "--format", "json", orig, swap)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		N        int      `json:"n"`
		Warnings []string `json:"warnings"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("the Euclidean linkage of every pair (%d × %d records) took ", doc.N, doc.N)
	if !slices.ContainsFunc(doc.Warnings, func(w string) bool {
		return strings.HasPrefix(w, want) && strings.Contains(w, "of the time limit of 1ns")
	}) {
		t.Errorf("no warning %q... in %q", want, doc.Warnings)
	}
}
