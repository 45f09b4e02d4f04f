package main

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/linkage"
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
	// Quantile thresholds that collapse on equal differences (x is 1 in four of five
	// records of both files: 0.01 and 0.1 of the 25 |Δx| are both 0) are a property of
	// the two files' column x: one line naming both files and the column.
	dir := t.TempDir()
	o := writeCSV(t, dir, "qo.csv", "x,y\n1,1\n1,2\n1,3\n2,4\n1,5\n")
	m := writeCSV(t, dir, "qm.csv", "x,y\n1,1.1\n1,2.1\n1,3.2\n2,4.1\n1,5.3\n")
	code, _, stderr = runReid(t, "link", "--method", "prl", o, m)
	want := o + " and " + m + `: column "x": quantiles [0.01 0.1] give thresholds that are not increasing`
	if code != exitInput || !strings.Contains(stderr, want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
		t.Errorf("collapsing quantiles: exit %d, %q; want one line with %q", code, stderr, want)
	}
}

// TestLinkPRLPartialAssignment: blocks of unequal sizes in the two files. Originals x =
// 0, 10, 20, 30 in blocks a, a, b, b; the masked file has the same x but record 2's block
// changed to b. Block b then has three masked records for two originals: no one-to-one
// assignment links them all. Supervised weights are +log2(10⁶) for the exact agreements
// (the true pairs) and −log2(10⁶) for the others (|Δz| ≥ 0.77 > 0.5), so the assignment
// links masked 1 → 1, 3 → 3, 4 → 4 and leaves masked 2 out: Reid 3/4, where a complete
// assignment was required before (Reid 0).
func TestLinkPRLPartialAssignment(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "x,c\n0,a\n10,a\n20,b\n30,b\n")
	masked := writeCSV(t, dir, "m.csv", "x,c\n0,a\n10,b\n20,b\n30,b\n")
	code, out, stderr := runReid(t, "link", "--method", "prl", "--supervised", "--bands", "0.1,0.5", "--block", "c", "--format", "json", orig, masked)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Modes map[string]struct {
			Reid       *float64 `json:"reid"`
			Correct    int      `json:"correct"`
			Unassigned int      `json:"unassigned"`
		} `json:"modes"`
		ReidByMode map[string]*float64 `json:"reid_by_mode"`
		Block      []string            `json:"block"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	as, byMode := doc.Modes["assignment"], doc.ReidByMode["assignment"]
	if as.Reid == nil || *as.Reid != 0.75 || as.Correct != 3 || as.Unassigned != 1 || byMode == nil || *byMode != 0.75 {
		t.Errorf("assignment: %s", out)
	}
	if !slices.Equal(doc.Block, []string{"c"}) {
		t.Errorf("block %q, want the --block attribute c", doc.Block)
	}
}

// TestLinkPRLZeroErrorRates: --mu 0 and --lambda 0 are used as given (not replaced by the
// defaults). Under EM every agreement pattern has some non-match and some match mass, so
// μ = 0 leaves no link (upper threshold null) and λ = 0 no non-link (lower null).
func TestLinkPRLZeroErrorRates(t *testing.T) {
	_, orig, masked := prlFiles(t)
	for _, c := range []struct {
		flag, field, threshold string
	}{{"--mu", "mu", "upper"}, {"--lambda", "lambda", "lower"}} {
		code, out, stderr := runReid(t, "link", "--method", "prl", "--missing", "keep", "--format", "json", c.flag, "0", orig, masked)
		if code != exitOK {
			t.Fatalf("%s 0: exit %d: %s", c.flag, code, stderr)
		}
		var doc struct {
			Thresholds map[string]any `json:"thresholds"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatal(err)
		}
		if doc.Thresholds[c.field] != 0.0 || doc.Thresholds[c.threshold] != nil {
			t.Errorf("%s 0: thresholds %v, want %s 0 and %s null", c.flag, doc.Thresholds, c.field, c.threshold)
		}
	}
}

// TestLinkPRLBlockTooFine: blocking on an attribute the masking changed everywhere (x has
// noise added) leaves no pair to compare: an input error naming --block, not a complaint
// about another attribute.
func TestLinkPRLBlockTooFine(t *testing.T) {
	_, orig, masked := prlFiles(t)
	code, _, stderr := runReid(t, "link", "--method", "prl", "--missing", "keep", "--block", "x", orig, masked)
	want := "reid link: --block x: the blocking leaves no pair to compare"
	if code != exitInput || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, "coarser") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d, stderr %q; want exit %d and a line starting %q", code, stderr, exitInput, want)
	}
}

// One record is refused up front, with the flag named: for PRL (its EM needs pairs of
// both classes; the message was about quantile thresholds), and for DBRL and learn, which
// reported one record re-identified out of one (README: fewer than two records are
// refused in every command).
func TestLinkPRLOneRecord(t *testing.T) {
	_, orig, masked := prlFiles(t)
	for _, args := range [][]string{
		{"link", "--method", "prl", "--missing", "keep"},
		{"link", "--attrs", "x,y"},
		{"learn", "--operator", "wm", "--attrs", "x,y", "--work-limit", "1"},
	} {
		code, _, stderr := runReid(t, append(args, "--records", "1", orig, masked)...)
		if code != exitInput || !strings.Contains(stderr, "--records must be 0 (all) or at least 2, got 1") {
			t.Errorf("%v: exit %d, stderr %q", args, code, stderr)
		}
	}
}

// integerAgeFiles writes 100 records (id r0…r99, an integer age, a label) and a masked
// copy in which every tenth age moved by 3, so that the masked file has another mean and
// sd; and an intruder file with the ids of the first 50 records left alone.
func integerAgeFiles(t *testing.T) (orig, masked, ids string) {
	dir := t.TempDir()
	var o, m, known strings.Builder
	o.WriteString("id,age,c\n")
	m.WriteString("id,age,c\n")
	for i := range 100 {
		age := 20 + i%40
		moved := age
		if i%10 == 0 {
			moved += 3
		} else if len(strings.Fields(known.String())) < 50 {
			fmt.Fprintf(&known, "r%d\n", i)
		}
		fmt.Fprintf(&o, "r%d,%d,%c\n", i, age, 'a'+rune(i%3))
		fmt.Fprintf(&m, "r%d,%d,%c\n", i, moved, 'a'+rune(i%3))
	}
	return writeCSV(t, dir, "o.csv", o.String()), writeCSV(t, dir, "m.csv", m.String()), writeCSV(t, dir, "ids.txt", known.String())
}

// TestLinkPRLIntegerBands: an integer attribute whose masked file has another mean and
// sd (integerAgeFiles). Both files are compared on the original's scale, so the 90 true
// pairs with equal values have |Δz| = 0 exactly and all agree at a band of 1e-9: the
// supervised m of "agree" is 90/100. With each file z-scored on its own, an equal pair's
// |Δz| depended on the value and almost none agreed.
func TestLinkPRLIntegerBands(t *testing.T) {
	orig, masked, _ := integerAgeFiles(t)
	if got := prlM(t, "age", "--bands", "1e-9", "--id", "id", orig, masked); len(got) != 2 || math.Abs(got[0]-0.9) > 1e-3 {
		t.Errorf("m of age %v, want 0.9 agreeing (up to the estimate's smoothing)", got)
	}
}

// TestLinkPRLIntegerBandsIntruder: the same files with an intruder who knows 50 of the
// records whose values the masking left alone: the original's statistics come from the
// whole file, the masked values are put on that scale, so every known true pair agrees
// (supervised m of "agree" 1, up to the probability floor).
func TestLinkPRLIntegerBandsIntruder(t *testing.T) {
	orig, masked, ids := integerAgeFiles(t)
	got := prlM(t, "age", "--bands", "1e-9", "--id", "id", "--intruder-ids", ids, "--direction", "original-to-masked", orig, masked)
	if len(got) != 2 || got[0] < 1-1e-5 {
		t.Errorf("m of age %v, want every known true pair agreeing", got)
	}
}

// prlM runs reid link --method prl --supervised with args and returns the m of attr.
func prlM(t *testing.T, attr string, args ...string) []float64 {
	t.Helper()
	var doc struct {
		M map[string][]float64 `json:"m"`
	}
	runJSON(t, &doc, append([]string{"link", "--method", "prl", "--supervised", "--format", "json"}, args...)...)
	return doc.M[attr]
}

// TestLinkPRLWeightTies: three records of three categorical attributes where EM fits c0
// and c2 alike, so the patterns "c0 differs" and "c2 differs" have the same weight in
// exact arithmetic (1e-12 apart as fitted). Masked records 1 and 2 each have one
// candidate of each pattern at their best weight: a tie of two, not a correct link
// (worked out by a separate per-pair evaluation); only record 3 (all agree) is linked:
// Reid 1/3.
func TestLinkPRLWeightTies(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "c0,c1,c2\nb,a,c\na,a,a\nb,b,a\n")
	masked := writeCSV(t, dir, "m.csv", "c0,c1,c2\na,a,c\nb,a,a\nb,b,a\n")
	var doc struct {
		Reid    float64 `json:"reid"`
		Correct int     `json:"correct"`
	}
	runJSON(t, &doc, "link", "--method", "prl", "--format", "json", orig, masked)
	if doc.Correct != 1 {
		t.Errorf("best weight: %d correct (Reid %v), want 1", doc.Correct, doc.Reid)
	}
}

// TestEMWarning: the warning of an EM fit joins the guard's and a stop before
// convergence; a supervised or converged, oriented fit has none.
func TestEMWarning(t *testing.T) {
	for _, c := range []struct {
		m    linkage.EMResult
		want string
	}{
		{linkage.EMResult{Converged: true}, ""},
		{linkage.EMResult{Supervised: true}, ""},
		{linkage.EMResult{Iterations: 1000}, "EM stopped after 1000 iterations without converging"},
		{linkage.EMResult{Converged: true, Warning: "w"}, "w"},
		{linkage.EMResult{Iterations: 7, Warning: "w"}, "w; EM stopped after 7 iterations without converging"},
	} {
		if got := emWarning(c.m); got != c.want {
			t.Errorf("%+v: %q, want %q", c.m, got, c.want)
		}
	}
}

// TestLinkPRLWarningInWarnings: the EM fit's warning (here a stop after 2 iterations,
// which cannot converge from the start) is in the JSON's warnings list as well as in its
// own field, and the text prints it once.
func TestLinkPRLWarningInWarnings(t *testing.T) {
	_, orig, masked := prlFiles(t)
	var doc struct {
		Warning  string   `json:"warning"`
		Warnings []string `json:"warnings"`
	}
	runJSON(t, &doc, "link", "--method", "prl", "--missing", "keep", "--max-iterations", "2", "--format", "json", orig, masked)
	want := "EM stopped after 2 iterations without converging"
	if !strings.Contains(doc.Warning, want) || !slices.Contains(doc.Warnings, doc.Warning) {
		t.Errorf("warning %q, warnings %q: want %q in both", doc.Warning, doc.Warnings, want)
	}
	code, out, stderr := runReid(t, "link", "--method", "prl", "--missing", "keep", "--max-iterations", "2", orig, masked)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if n := strings.Count(out, want); n != 1 {
		t.Errorf("the text says %q %d times, want once:\n%s", want, n, out)
	}
}

// TestLinkPRLBlockNumeric: --block on a numeric attribute pairs records whose values are
// equal as read, whatever each file's mean and sd. The keys were each file's z-scores, so
// a masked file with other proportions of the same codes had no pair with an equal key.
// Pairs and true pairs (rows in the same place) are counted by hand: Σ over the values of
// (originals with it) × (masked records with it).
func TestLinkPRLBlockNumeric(t *testing.T) {
	for _, c := range []struct {
		name       string
		orig, mask []string // g by row; "" is missing
		args       []string
		pairs      uint64
		truePairs  uint64
	}{
		// 1: 3 originals × 2 masked, 2: 3 × 4; true rows 1, 4, 5.
		{"other proportions", []string{"1", "1", "1", "2", "2", "2"}, []string{"1", "2", "2", "2", "2", "1"}, nil, 18, 3},
		{"other proportions, categorical", []string{"1", "1", "1", "2", "2", "2"}, []string{"1", "2", "2", "2", "2", "1"},
			[]string{"--types", "g:categorical"}, 18, 3},
		// 1: 2 × 1, 2: 2 × 3, missing: 2 × 2; true rows 1, 3, 4, 5.
		{"missing values", []string{"1", "1", "", "2", "2", ""}, []string{"1", "", "", "2", "2", "2"}, nil, 12, 4},
		// The same numbers written otherwise: 0.5: 2 × 2, 0: 2 × 2, 2: 2 × 2; all rows true.
		{"spelling", []string{"0.5", "0.5", "0", "0", "2", "2"}, []string{"0.50", "5e-1", "-0", "0.0", "2", "2.000"}, nil, 12, 6},
		// 1: 3 × 3, 2: 3 × 3; all rows true.
		{"identical", []string{"1", "1", "1", "2", "2", "2"}, []string{"1", "1", "1", "2", "2", "2"}, nil, 18, 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var o, m strings.Builder
			o.WriteString("g,x\n")
			m.WriteString("g,x\n")
			for i := range c.orig {
				fmt.Fprintf(&o, "%s,%d\n", c.orig[i], 10*i)
				fmt.Fprintf(&m, "%s,%d.1\n", c.mask[i], 10*i)
			}
			orig, masked := writeCSV(t, dir, "o.csv", o.String()), writeCSV(t, dir, "m.csv", m.String())
			var doc struct {
				Pairs     uint64 `json:"pairs"`
				TruePairs uint64 `json:"true_pairs"`
			}
			args := append([]string{"link", "--method", "prl", "--missing", "keep", "--bands", "0.1,0.5", "--block", "g", "--format", "json"}, c.args...)
			runJSON(t, &doc, append(args, orig, masked)...)
			if doc.Pairs != c.pairs || doc.TruePairs != c.truePairs {
				t.Errorf("%d pairs, %d true; want %d, %d", doc.Pairs, doc.TruePairs, c.pairs, c.truePairs)
			}
		})
	}
}

// TestLinkPRLBlockNumericCensus: on CENSUS rank-swapped at p = 5 (values permuted, so both
// files hold the same values), --block on a numeric attribute pairs the records with
// equal raw values, counted here from the CSV text: AGI (every value moved) leaves 1080
// pairs, none true, which is the blocking error; INTVAL leaves pairs to fit the model.
func TestLinkPRLBlockNumericCensus(t *testing.T) {
	orig, masked := censusFiles(t, "rankswap_p5")
	for _, c := range []struct {
		attr string
		ok   bool
	}{{"AGI", false}, {"INTVAL", true}} {
		t.Run(c.attr, func(t *testing.T) {
			vo, vm := csvColumn(t, orig, c.attr), csvColumn(t, masked, c.attr)
			count := map[float64]uint64{}
			for _, v := range vm {
				count[v]++
			}
			var pairs, truePairs uint64
			for i, v := range vo {
				pairs += count[v]
				if v == vm[i] { // no --id: a row's true partner is the same row
					truePairs++
				}
			}
			code, out, stderr := runReid(t, "link", "--method", "prl", "--block", c.attr, "--format", "json", orig, masked)
			if !c.ok {
				want := fmt.Sprintf("; %d pairs with equal keys, %d of them true)", pairs, truePairs)
				if code != exitInput || !strings.HasPrefix(stderr, "reid link: --block "+c.attr+": the blocking leaves ") || !strings.Contains(stderr, want) {
					t.Errorf("exit %d, stderr %q; want exit %d and %q", code, stderr, exitInput, want)
				}
				return
			}
			if code != exitOK {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			var doc struct {
				Pairs     uint64 `json:"pairs"`
				TruePairs uint64 `json:"true_pairs"`
			}
			if err := json.Unmarshal([]byte(out), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Pairs != pairs || doc.TruePairs != truePairs {
				t.Errorf("%d pairs, %d true; want %d, %d", doc.Pairs, doc.TruePairs, pairs, truePairs)
			}
		})
	}
}

// csvColumn reads the numbers of column name of a CSV file with a header.
func csvColumn(t *testing.T, path, name string) []float64 {
	t.Helper()
	rows := readCSVFile(t, path)
	col := slices.Index(rows[0], name)
	if col < 0 {
		t.Fatalf("%s: no column %q", path, name)
	}
	var out []float64
	for _, r := range rows[1:] {
		v, err := strconv.ParseFloat(r[col], 64)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out = append(out, v)
	}
	return out
}

// TestDisjointCategoriesWarned: a categorical attribute written TRUE/FALSE in the
// original and true/false in the masked file shares no value, which masking does not
// do: check, PRL and the audit warn, naming it; a file spelled alike is not warned of.
func TestDisjointCategoriesWarned(t *testing.T) {
	dir := t.TempDir()
	var ob, mb, same strings.Builder
	ob.WriteString("flag,x\n")
	mb.WriteString("flag,x\n")
	same.WriteString("flag,x\n")
	for i := 0; i < 40; i++ {
		v := []string{"TRUE", "FALSE"}[i%3%2]
		fmt.Fprintf(&ob, "%s,%d\n", v, i*i%37)
		fmt.Fprintf(&mb, "%s,%d.5\n", strings.ToLower(v), i*i%37)
		fmt.Fprintf(&same, "%s,%d.5\n", v, i*i%37)
	}
	orig := writeCSV(t, dir, "o.csv", ob.String())
	masked := writeCSV(t, dir, "m.csv", mb.String())
	alike := writeCSV(t, dir, "same.csv", same.String())
	warned := func(ws []string) bool {
		return slices.ContainsFunc(ws, func(w string) bool {
			return strings.HasPrefix(w, `attribute "flag": no value of the masked file equals`)
		})
	}
	for _, tc := range []struct {
		masked string
		want   bool
	}{{masked, true}, {alike, false}} {
		var r struct {
			Warnings []string `json:"warnings"`
		}
		runJSON(t, &r, "link", "--method", "prl", "--format", "json", orig, tc.masked)
		if warned(r.Warnings) != tc.want {
			t.Errorf("prl on %s: warnings %q, want the flag's: %v", tc.masked, r.Warnings, tc.want)
		}
		r.Warnings = nil
		runJSON(t, &r, "check", "--format", "json", orig, tc.masked)
		if warned(r.Warnings) != tc.want {
			t.Errorf("check on %s: warnings %q, want the flag's: %v", tc.masked, r.Warnings, tc.want)
		}
	}
	doc := map[string]any{}
	if err := json.Unmarshal(auditJSON(t, t.TempDir(), "--work-limit", "0.1", orig, masked), &doc); err != nil {
		t.Fatal(err)
	}
	var ws []string
	for _, w := range doc["warnings"].([]any) {
		ws = append(ws, w.(string))
	}
	if !warned(ws) {
		t.Errorf("audit warnings %q lack the flag's", ws)
	}
}

// TestPRLEqualDifferencesOneLevel: true pairs whose raw values differ by the same amount
// (5, half of them; 0 the others) fall in one band, also when a quantile cut is exactly
// that difference: computed as the difference of two z-scores, the 100 pairs 5 apart
// were split 43/57 across the cut by rounding. The quantile 0.006 lies between the
// shares of all pairs with |Δx| ≤ 4 (0.004975) and ≤ 5 (0.007475), counted by hand in
// the comment's terms: its cut is 5, and every true pair is within it.
func TestPRLEqualDifferencesOneLevel(t *testing.T) {
	var o, m strings.Builder
	o.WriteString("x,y\n")
	m.WriteString("x,y\n")
	xs, ms := make([]int, 200), make([]int, 200)
	for i := range xs {
		xs[i], ms[i] = 7*i, 7*i+5*(i%2)
		fmt.Fprintf(&o, "%d,%d\n", xs[i], i*37%101)
		fmt.Fprintf(&m, "%d,%d\n", ms[i], i*37%101)
	}
	within := func(d int) float64 {
		c := 0
		for _, a := range xs {
			for _, b := range ms {
				if max(a-b, b-a) <= d {
					c++
				}
			}
		}
		return float64(c) / float64(len(xs)*len(ms))
	}
	if lo, hi := within(4), within(5); !(lo < 0.006 && 0.006 < hi) {
		t.Fatalf("shares %v and %v do not bracket the quantile 0.006", lo, hi)
	}
	dir := t.TempDir()
	orig, masked := writeCSV(t, dir, "o.csv", o.String()), writeCSV(t, dir, "m.csv", m.String())
	var r struct {
		M          map[string][]float64 `json:"m"`
		Comparison []struct {
			Thresholds []float64 `json:"thresholds"`
		} `json:"comparison"`
	}
	runJSON(t, &r, "link", "--method", "prl", "--supervised", "--attrs", "x", "--quantiles", "0.006,0.5", "--format", "json", orig, masked)
	if mx := r.M["x"]; len(mx) != 3 || mx[0] < 1-1e-4 {
		t.Errorf("m of x = %v: every true pair (|Δx| 0 or 5, the cut) belongs in the first band", mx)
	}
	// The cut is reported in |Δz|: 5 over the original's sample sd.
	var sum, ss float64
	for _, x := range xs {
		sum += float64(x)
	}
	mean := sum / float64(len(xs))
	for _, x := range xs {
		ss += (float64(x) - mean) * (float64(x) - mean)
	}
	sd := math.Sqrt(ss / float64(len(xs)-1))
	if got := r.Comparison[0].Thresholds; len(got) != 2 || math.Abs(got[0]-5/sd) > 1e-12*5/sd {
		t.Errorf("thresholds %v, want the first 5/sd = %v", got, 5/sd)
	}
	// Fixed bands are reported as given (b·sd/sd need not give b back).
	bands := []float64{0.1, 0.3, 0.7}
	runJSON(t, &r, "link", "--method", "prl", "--attrs", "x", "--bands", "0.1,0.3,0.7", "--format", "json", orig, masked)
	if got := r.Comparison[0].Thresholds; !slices.Equal(got, bands) {
		t.Errorf("--bands 0.1,0.3,0.7 reported as %v", got)
	}
}
