package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/distances"
	"github.com/reid-sdc/reid/linkage"
)

// toy files: the authors' example (Abril, Navarro-Arribas & Torra), where linking gets 2
// of 3 records right in both directions (checked with numpy, see linkage tests).
func toyFiles(t *testing.T) (dir, orig, masked string) {
	dir = t.TempDir()
	orig = writeCSV(t, dir, "o.csv", "a,b,c\n1,30,27\n2,50,47\n3,25,31\n")
	masked = writeCSV(t, dir, "m.csv", "a,b,c\n1,20,47\n2,20,47\n3,23,31\n")
	return
}

func TestLinkJSONContract(t *testing.T) {
	dir, orig, masked := toyFiles(t)
	recs := filepath.Join(dir, "recs.parquet")
	code, out, stderr := runReid(t, "link", "--original", orig, "--masked", masked, "--format", "json",
		"--direction", "original-to-masked", "--records-out", recs)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	// The fields the issue names are a contract with users' scripts.
	for _, f := range []string{"n", "direction", "operator", "reid", "reid_sets", "reid_at_k", "k_reid", "kr_reid", "knowledge"} {
		if _, ok := doc[f]; !ok {
			t.Errorf("JSON lacks %q", f)
		}
	}
	if doc["n"].(float64) != 3 || doc["direction"] != "original-to-masked" || doc["operator"] != "euclidean" {
		t.Errorf("n/direction/operator: %v %v %v", doc["n"], doc["direction"], doc["operator"])
	}
	if math.Abs(doc["reid"].(float64)-2.0/3) > 1e-15 {
		t.Errorf("reid %v, want 2/3", doc["reid"])
	}
	atK := doc["reid_at_k"].(map[string]any)
	for _, k := range []string{"1", "2", "5", "10"} {
		if _, ok := atK[k]; !ok {
			t.Errorf("reid_at_k lacks %q", k)
		}
	}
	if kr := doc["kr_reid"].([]any); len(kr) != 2 || kr[0].(float64) != 0 || kr[1] != doc["reid"] {
		t.Errorf("kr_reid %v", kr)
	}
	// Per-record file: record 3 links to masked record 2.
	tab, err := datasets.Load(recs, datasets.LoadOptions{Missing: datasets.MissingKeep})
	if err != nil {
		t.Fatal(err)
	}
	if got := tab.Column("nearest").Values; got[2] != 2 || tab.Rows() != 3 {
		t.Errorf("nearest %v", got)
	}
}

func TestLinkDeterministic(t *testing.T) {
	_, orig, masked := toyFiles(t)
	var outs []string
	for _, threads := range []string{"1", "2", "5"} {
		code, out, stderr := runReid(t, "link", "--format", "json", "--threads", threads, orig, masked)
		if code != exitOK {
			t.Fatal(stderr)
		}
		outs = append(outs, out)
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Error("JSON differs between runs")
	}
}

func TestLinkOperators(t *testing.T) {
	dir, orig, masked := toyFiles(t)
	// WM with equal weights must give the Euclidean links (hierarchy sanity).
	wm := writeCSV(t, dir, "wm.json", `{"operator":"wm","weights":{"a":0.25,"b":0.25,"c":0.5}}`)
	eq := writeCSV(t, dir, "eq.json", `{"operator":"owa","weights":[0.3333333333333333,0.3333333333333333,0.3333333333333334]}`)
	for _, args := range [][]string{
		{"--operator", "wm", "--params", wm},
		{"--operator", "owa", "--params", eq},
	} {
		code, out, stderr := runReid(t, append([]string{"link", "--format", "json", orig, masked}, args...)...)
		if code != exitOK {
			t.Errorf("%v: exit %d: %s", args, code, stderr)
			continue
		}
		var doc linkReport
		json.Unmarshal([]byte(out), &doc)
		if doc.Operator != args[1] && !(args[1] == "mahalanobis-classical" && doc.Operator == "mahalanobis") {
			t.Errorf("%v: operator %q", args, doc.Operator)
		}
	}
	// OWA with equal weights is the Euclidean distance: same Reid.
	_, e, _ := runReid(t, "link", "--format", "json", orig, masked)
	_, o, _ := runReid(t, "link", "--format", "json", "--operator", "owa", "--params", eq, orig, masked)
	var de, do linkReport
	json.Unmarshal([]byte(e), &de)
	json.Unmarshal([]byte(o), &do)
	if de.Reid != do.Reid || de.ReidSets != do.ReidSets {
		t.Errorf("equal-weight OWA Reid %v, Euclidean %v", do.Reid, de.Reid)
	}
}

// TestLinkMahalanobis: both Mahalanobis variants run on a file with more records than
// attributes, and on the toy files (3 records, 3 attributes: a singular covariance) they
// fail with an input error that names the cause.
func TestLinkMahalanobis(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runReid(t, "demo", "--records", "200", "--dir", dir, "--format", "json", "--audit=false")
	if code != exitOK {
		t.Fatal(stderr)
	}
	o, m := filepath.Join(dir, "original.csv"), filepath.Join(dir, "rankswap_p5.csv")
	attrs := "age,wages,interest,total_income,federal_tax"
	for _, op := range []string{"mahalanobis", "mahalanobis-classical"} {
		code, out, stderr := runReid(t, "link", "--format", "json", "--attrs", attrs, "--operator", op, o, m)
		if code != exitOK {
			t.Errorf("%s: exit %d: %s", op, code, stderr)
			continue
		}
		var doc linkReport
		json.Unmarshal([]byte(out), &doc)
		if doc.Operator != "mahalanobis" || doc.N != 200 || len(doc.Params) != 15 {
			t.Errorf("%s: operator %q n %d params %d", op, doc.Operator, doc.N, len(doc.Params))
		}
	}
	_, orig, masked := toyFiles(t)
	code, _, stderr = runReid(t, "link", "--operator", "mahalanobis-classical", orig, masked)
	if code != exitInput || !strings.Contains(stderr, "not positive definite") || !strings.Contains(stderr, "o.csv") {
		t.Errorf("singular covariance: exit %d, %q", code, stderr)
	}
}

func TestLinkBadInput(t *testing.T) {
	dir, orig, masked := toyFiles(t)
	bad := writeCSV(t, dir, "bad.json", `{"operator":"wm","weights":[0.5,0.6,-0.1]}`)
	cases := []struct {
		args    []string
		mention string
	}{
		{[]string{"--operator", "wm"}, "--params"},
		{[]string{"--operator", "nope"}, "unknown --operator"},
		{[]string{"--operator", "wm", "--params", bad}, "bad.json"},
		{[]string{"--direction", "sideways"}, "--direction"},
		{[]string{"--masking", "mdav"}, "--masking"},
		{[]string{"--masking", "rankswap:p=500"}, "--masking"},
		{[]string{"--records-out", filepath.Join(dir, "r.xyz")}, "r.xyz"},
	}
	for _, tc := range cases {
		out := filepath.Join(dir, "out.json")
		code, _, stderr := runReid(t, append([]string{"link", "--out", out, orig, masked}, tc.args...)...)
		if code != exitInput || !strings.Contains(stderr, tc.mention) || strings.Count(stderr, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q (want 2 and a line mentioning %q)", tc.args, code, stderr, tc.mention)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: output file left behind", tc.args)
		}
	}
}

// TestLinkMethodFlags: a flag of the other linkage method, or PRL flags that contradict
// each other, are usage errors naming them rather than flags silently ignored.
func TestLinkMethodFlags(t *testing.T) {
	_, orig, masked := prlFiles(t)
	cases := []struct {
		args    []string
		mention []string // nil: accepted
	}{
		{[]string{"--method", "prl", "--quantiles", "0.01", "--bands", "0.1"}, []string{"--quantiles", "--bands"}},
		{[]string{"--method", "prl", "--rank", "5", "--bands", "0.1"}, []string{"--bands", "--rank"}},
		{[]string{"--method", "prl", "--rank", "5", "--quantiles", "0.1"}, []string{"--quantiles", "--rank"}},
		{[]string{"--method", "prl", "--supervised", "--estimate-p"}, []string{"--estimate-p", "--supervised"}},
		{[]string{"--method", "prl", "--supervised", "--max-iterations", "5"}, []string{"--max-iterations", "--supervised"}},
		{[]string{"--method", "prl", "--operator", "euclidean"}, []string{"--operator", "--method dbrl"}},
		{[]string{"--method", "dbrl", "--supervised"}, []string{"--supervised", "--method prl"}},
		{[]string{"--bands", "0.1"}, []string{"--bands", "--method prl"}},
		{[]string{"--mu", "0.01"}, []string{"--mu", "--method prl"}},
		{[]string{"--method", "prl", "--rank", "5"}, nil},
		{[]string{"--method", "prl", "--bands", "0.1", "--quantiles", ""}, nil},
		{[]string{"--method", "prl", "--supervised", "--mu", "0.01"}, nil},
	}
	for _, tc := range cases {
		code, _, stderr := runReid(t, append(append([]string{"link", "--missing", "keep", "--attrs", "x,y"}, tc.args...), orig, masked)...)
		if tc.mention == nil {
			if code != exitOK {
				t.Errorf("%v: exit %d: %s", tc.args, code, stderr)
			}
			continue
		}
		expectInputError(t, code, stderr, tc.mention...)
	}
}

// TestPRLOnlyFlags: the list of PRL-only flags refused with DBRL holds every flag whose
// help says it is for prl.
func TestPRLOnlyFlags(t *testing.T) {
	fs := flag.NewFlagSet("link", flag.ContinueOnError)
	linkCommand().Flags(fs, &env{})
	listed := map[string]bool{}
	for _, name := range prlOnlyFlags() {
		listed[name] = true
	}
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		if strings.HasPrefix(f.Usage, "prl:") {
			n++
			if !listed[f.Name] {
				t.Errorf("--%s is for prl but not in prlOnlyFlags", f.Name)
			}
		}
	})
	if n != len(listed) {
		t.Errorf("%d flags say prl, %d listed", n, len(listed))
	}
}

// TestLinkDistanceNeedsNumbers: DBRL and the learned distances (and K.Reid) refuse a
// missing value kept by --missing keep, and a categorical attribute, naming the method,
// the file, the column and the row in the file (also when the intruder knows a subset).
func TestLinkDistanceNeedsNumbers(t *testing.T) {
	dir, orig, masked := toyFiles(t)
	// Masked row 2 misses b; original row 3 misses a (id 3, second in the ids list).
	missM := writeCSV(t, dir, "miss_m.csv", "a,b,c\n1,20,47\n2,,47\n3,23,31\n")
	idO := writeCSV(t, dir, "id_o.csv", "id,a,b\n1,1,30\n2,2,50\n3,,25\n4,4,40\n")
	idM := writeCSV(t, dir, "id_m.csv", "id,a,b\n4,4,41\n3,3,23\n2,2,20\n1,1,20\n")
	ids := writeCSV(t, dir, "ids.txt", "4\n3\n1\n")
	all := writeCSV(t, dir, "all.txt", "4\n3\n2\n1\n") // every id, in another order
	_, pOrig, pMasked := prlFiles(t)                   // c is categorical
	cases := []struct {
		args    []string
		mention []string
	}{
		{[]string{"link", "--missing", "keep", orig, missM}, []string{"miss_m.csv", `column "b"`, "row 2", "missing value", "DBRL"}},
		{[]string{"learn", "--missing", "keep", orig, missM}, []string{"miss_m.csv", `column "b"`, "row 2", "learned distances"}},
		{[]string{"link", "--missing", "keep", "--id", "id", "--intruder-ids", ids, idO, idM}, []string{"id_o.csv", `column "a"`, "row 3", "DBRL"}},
		{[]string{"link", "--missing", "keep", "--id", "id", "--intruder-ids", all, idO, idM}, []string{"id_o.csv", `column "a"`, "row 3", "DBRL"}},
		{[]string{"learn", "--epsilon", "inf", orig, masked}, []string{"--epsilon must be a positive number"}},
		{[]string{"link", "--types", "b:categorical", orig, masked}, []string{"o.csv", `column "b"`, "categorical", "numeric", "--attrs"}},
		{[]string{"link", "--missing", "keep", pOrig, pMasked}, []string{"o.csv", `column "c"`, "categorical", "DBRL"}},
		{[]string{"link", "--method", "prl", "--missing", "keep", "--masking", "mdav:k=3", pOrig, pMasked}, []string{"o.csv", `column "c"`, "K.Reid"}},
	}
	for _, tc := range cases {
		code, _, stderr := runReid(t, tc.args...)
		expectInputError(t, code, stderr, tc.mention...)
	}
}

// A --masking that understates the rank-swap window (p = 10 % on CENSUS's p = 15 % file)
// makes some wrong links "known": link leaves them out of known_links and K.Reid, counts
// them in known_links_wrong and warns; with the right p there are none. The counts are
// those of linkage.KnownLinks on the raw files (row order is the truth here).
func TestLinkKnownLinksWrong(t *testing.T) {
	orig, masked := censusFiles(t, "rankswap_p15")
	raw := func(path string) [][]float64 {
		tab, err := datasets.Load(path, datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m, err := tab.NumericMatrix()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	om, mm := raw(orig), raw(masked)
	for _, p := range []float64{10, 15} {
		kr, err := linkage.KnownLinks(om, mm, linkage.Knowledge{Method: linkage.MaskRankSwap, P: p})
		if err != nil {
			t.Fatal(err)
		}
		right, wrong := 0, 0
		for i, j := range kr.Known {
			switch {
			case j == i:
				right++
			case j >= 0:
				wrong++
			}
		}
		if p == 10 && wrong == 0 {
			t.Fatalf("p = 10: the attack makes no wrong link known; the test needs one")
		}
		var r struct {
			KnownLinks      int      `json:"known_links"`
			KnownLinksWrong int      `json:"known_links_wrong"`
			KReid           float64  `json:"k_reid"`
			N               int      `json:"n"`
			Warnings        []string `json:"warnings"`
		}
		runJSON(t, &r, "link", "--format", "json", "--masking", fmt.Sprintf("rankswap:p=%g", p), orig, masked)
		if r.KnownLinks != right || r.KnownLinksWrong != wrong || r.KReid != float64(right)/float64(r.N) {
			t.Errorf("p = %g: known_links %d, known_links_wrong %d, k_reid %v; want %d, %d, %d/%d", p, r.KnownLinks, r.KnownLinksWrong, r.KReid, right, wrong, right, r.N)
		}
		if warned := slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "--masking does not describe") }); warned != (wrong > 0) {
			t.Errorf("p = %g: %d wrong links, warnings %q", p, wrong, r.Warnings)
		}
		if p != 10 {
			continue
		}
		// Under --records both counts are over the records measured (known_links_wrong
		// counted the whole file's).
		const first = 300
		rightFirst, wrongFirst := 0, 0
		for i, j := range kr.Known[:first] {
			switch {
			case j == i:
				rightFirst++
			case j >= 0:
				wrongFirst++
			}
		}
		if wrongFirst == 0 || wrongFirst == wrong {
			t.Fatalf("the first %d records hold %d of the %d wrong links; the test needs some, not all", first, wrongFirst, wrong)
		}
		runJSON(t, &r, "link", "--format", "json", "--records", strconv.Itoa(first), "--masking", "rankswap:p=10", orig, masked)
		if r.KnownLinks != rightFirst || r.KnownLinksWrong != wrongFirst {
			t.Errorf("--records %d: known_links %d, known_links_wrong %d; want %d, %d", first, r.KnownLinks, r.KnownLinksWrong, rightFirst, wrongFirst)
		}
		// The text output of DBRL and PRL says it too (PRL's printed only EM's warning).
		for _, method := range []string{"dbrl", "prl"} {
			code, text, stderr := runReid(t, "link", "--method", method, "--masking", "rankswap:p=10", orig, masked)
			if code != exitOK || strings.Count(text, "warning: --masking does not describe") != 1 {
				t.Errorf("%s text: exit %d, %s\n%s", method, code, stderr, text)
			}
		}
		// The audit's report: every linkage run with the same counts, one warning, and
		// the document still validates.
		out := t.TempDir()
		doc := map[string]any{}
		if err := json.Unmarshal(auditJSON(t, out, "--masking", "rankswap:p=10", "--work-limit", "0.2", orig, masked), &doc); err != nil {
			t.Fatal(err)
		}
		schema := loadSchema(t)
		if errs := validate(schema, schema, doc, "$"); len(errs) > 0 {
			t.Fatalf("audit report does not validate:\n%s", strings.Join(errs, "\n"))
		}
		for _, x := range doc["linkage"].([]any) {
			l := x.(map[string]any)
			if l["known_links"] != float64(right) || l["known_links_wrong"] != float64(wrong) {
				t.Errorf("audit %v: known_links %v, known_links_wrong %v; want %d, %d", l["id"], l["known_links"], l["known_links_wrong"], right, wrong)
			}
		}
		n := 0
		for _, w := range doc["warnings"].([]any) {
			if strings.HasPrefix(w.(string), "--masking does not describe") {
				n++
			}
		}
		if n != 1 {
			t.Errorf("audit: %d warnings on the masking, want 1: %v", n, doc["warnings"])
		}
	}
}

// --records-out names records by their rows in the files, also when the intruder holds a
// subset of the original (--intruder-ids): its rows were the subset's positions (1, 2)
// instead of the original's rows (2, 5).
func TestRecordsOutFileRows(t *testing.T) {
	dir := t.TempDir()
	// Ids unlike the row numbers, so that a table of ids would not pass for one of rows.
	orig := writeCSV(t, dir, "o.csv", "id,a,b\n10,1,9\n20,2,7\n30,4,8\n40,3,1\n50,8,2\n60,5,5\n")
	ids := writeCSV(t, dir, "ids.txt", "50\n20\n")
	for _, tc := range []struct {
		direction string
		want      map[float64]float64 // record → true, for the records with a partner
	}{
		{"masked-to-original", map[float64]float64{2: 2, 5: 5}},
		{"original-to-masked", map[float64]float64{2: 2, 5: 5}},
	} {
		out := filepath.Join(dir, tc.direction+".csv")
		if code, _, stderr := runReid(t, "link", "--id", "id", "--intruder-ids", ids, "--direction", tc.direction, "--records-out", out, orig, orig); code != exitOK {
			t.Fatalf("%s: exit %d: %s", tc.direction, code, stderr)
		}
		tab, err := datasets.Load(out, datasets.LoadOptions{Missing: datasets.MissingKeep})
		if err != nil {
			t.Fatal(err)
		}
		rec, tru, near := tab.Column("record"), tab.Column("true"), tab.Column("nearest")
		got := map[float64]float64{}
		for i := range tab.Rows() {
			if !tru.Missing(i) {
				got[rec.Values[i]] = tru.Values[i]
				// The files are equal: the nearest is the true partner itself.
				if near.Values[i] != tru.Values[i] {
					t.Errorf("%s: record %v: nearest %v, true %v", tc.direction, rec.Values[i], near.Values[i], tru.Values[i])
				}
			}
		}
		if fmt.Sprint(got) != fmt.Sprint(tc.want) {
			t.Errorf("%s: record → true %v, want %v", tc.direction, got, tc.want)
		}
	}
}

// TestMaskingNeedsTheSameRecords: --masking on files of different records says so, not
// that --intruder-ids or --sample were given (they were not); with --sample it names it.
func TestMaskingNeedsTheSameRecords(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "id,a,b\n1,1,5\n2,2,3\n3,3,9\n4,7,1\n")
	masked := writeCSV(t, dir, "m.csv", "id,a,b\n1,1,5\n2,2,3\n3,3,9\n4,7,1\n5,6,6\n")
	code, _, stderr := runReid(t, "link", "--id", "id", "--masking", "rankswap:p=5", orig, masked)
	expectInputError(t, code, stderr, "--masking needs the original and the masked file to hold the same records (4 and 5 here)")
	code, _, stderr = runReid(t, "link", "--sample", "0.5", "--masking", "rankswap:p=5", orig, orig)
	expectInputError(t, code, stderr, "no --intruder-ids or --sample")
	// As many records, not the same: id 4 left out, id 9 not the original's (a panic).
	other := writeCSV(t, dir, "x.csv", "id,a,b\n1,1,5\n2,2,3\n3,3,9\n9,7,1\n")
	for _, args := range [][]string{{"link"}, {"link", "--method", "prl", "--bands", "0.1,0.5"}, {"audit", "--out", filepath.Join(dir, "audit")}} {
		code, _, stderr = runReid(t, append(args, "--id", "id", "--masking", "rankswap:p=5", orig, other)...)
		expectInputError(t, code, stderr, "--masking needs the original and the masked file to hold the same records (1 of the original's 4 ids are not in the masked file)")
	}
	if _, err := os.Stat(filepath.Join(dir, "audit")); !os.IsNotExist(err) {
		t.Errorf("the refused audit left its --out directory: %v", err)
	}
}

// TestLinkReleasedSample: a masked file holding 3 of the original's 5 records, unmasked
// (ids 2, 4, 5; values 2, 4, 5 of 1…5), counted over the 3 (the 2 left out are unmatched
// original-to-masked). By hand: the original's z-scores are −1.265, −0.632, 0, 0.632,
// 1.265. On the sample's own mean 11/3 and sd √(7/3) (the default) its z-scores are
// −1.091 (id 2), 0.218 (id 4), 0.873 (id 5): masked-to-original each is nearest a wrong
// record (ids 1, 3, 4), Reid 0; original-to-masked ids 2 and 5 find their partners and
// id 4 (0.632) finds id 5 (0.873), Reid 2/3. With --masked-scale original every released
// record is at distance 0 from its original only: Reid 1 both ways.
func TestLinkReleasedSample(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "id,a\n1,1\n2,2\n3,3\n4,4\n5,5\n")
	masked := writeCSV(t, dir, "m.csv", "id,a\n5,5\n2,2\n4,4\n")
	cases := []struct {
		scale, direction string
		unmatched        int
		reid             float64
	}{
		{"own", "masked-to-original", 0, 0},
		{"own", "original-to-masked", 2, 2.0 / 3},
		{"original", "masked-to-original", 0, 1},
		{"original", "original-to-masked", 2, 1},
	}
	for _, tc := range cases {
		var doc struct {
			N              int     `json:"n"`
			Unmatched      int     `json:"unmatched"`
			Reid           float64 `json:"reid"`
			MaskedScale    string  `json:"masked_scale"`
			ReleasedSample *struct {
				LeftOut     int    `json:"original_records_left_out"`
				MaskedScale string `json:"masked_scale"`
			} `json:"released_sample"`
		}
		runJSON(t, &doc, "link", "--id", "id", "--masked-scale", tc.scale, "--direction", tc.direction, "--format", "json", orig, masked)
		wantInput := map[string]string{"own": "", "original": "original"}[tc.scale]
		if doc.N != 3 || doc.Unmatched != tc.unmatched || math.Abs(doc.Reid-tc.reid) > 1e-15 || doc.MaskedScale != wantInput ||
			doc.ReleasedSample == nil || doc.ReleasedSample.LeftOut != 2 || doc.ReleasedSample.MaskedScale != tc.scale {
			t.Errorf("%+v: n %d unmatched %d reid %v masked_scale %q released %+v", tc, doc.N, doc.Unmatched, doc.Reid, doc.MaskedScale, doc.ReleasedSample)
		}
	}
	other := writeCSV(t, dir, "x.csv", "id,a\n7,5\n8,2\n")
	code, _, stderr := runReid(t, "link", "--id", "id", orig, other)
	expectInputError(t, code, stderr, `x.csv: column "id": no id in common with the original`)
	// The same records under other ids (4 and 5 written 40 and 50): not a sample.
	renamed := writeCSV(t, dir, "r.csv", "id,a\n1,1\n2,2\n3,3\n40,4\n50,5\n")
	code, out, stderr := runReid(t, "link", "--id", "id", orig, renamed)
	if code != exitOK || !strings.Contains(out, "the masked file lacks 2 of the original's records and holds 2 whose id the original lacks (ids written differently in the two files?)") {
		t.Errorf("ids written differently: exit %d\n%s%s", code, out, stderr)
	}
}

// TestParamsRememberTheScale: learn's --params-out records --masked-scale, and link with
// those parameters on the other scale warns (the same weights may link other records
// there), while on the same scale it links at least learn's count (margin ≥ ε).
func TestParamsRememberTheScale(t *testing.T) {
	dir := t.TempDir()
	orig := writeCSV(t, dir, "o.csv", "id,a,b\n1,1,9\n2,2,7\n3,3,8\n4,4,1\n5,5,2\n6,6,5\n")
	masked := writeCSV(t, dir, "m.csv", "id,a,b\n1,1.4,8.5\n3,3.2,8.1\n4,3.9,1.6\n6,6.3,4.4\n")
	params := filepath.Join(dir, "p.json")
	var learned struct {
		CorrectLinks int `json:"correct_links"`
	}
	runJSON(t, &learned, "learn", "--operator", "wm", "--id", "id", "--masked-scale", "original", "--work-limit", "0.5",
		"--params-out", params, "--format", "json", orig, masked)
	data, err := os.ReadFile(params)
	if err != nil {
		t.Fatal(err)
	}
	if got := distances.ParamsScale(data); got != "original" {
		t.Fatalf("params file's masked_scale %q:\n%s", got, data)
	}
	for _, scale := range []string{"original", "own"} {
		var doc struct {
			Correct  int      `json:"correct"`
			Warnings []string `json:"warnings"`
		}
		runJSON(t, &doc, "link", "--operator", "wm", "--params", params, "--id", "id", "--masked-scale", scale, "--format", "json", orig, masked)
		warned := strings.Contains(strings.Join(doc.Warnings, "\n"), "was learned with --masked-scale original and this run uses own")
		if warned != (scale == "own") {
			t.Errorf("link --masked-scale %s: warnings %v", scale, doc.Warnings)
		}
		if scale == "original" && doc.Correct < learned.CorrectLinks {
			t.Errorf("link on the learned scale: %d links, learn counted %d (margin ≥ ε)", doc.Correct, learned.CorrectLinks)
		}
	}
}

// TestRecordsBeyondTheFiles: --records larger than the files runs on every record (n
// says how many) and says so, in link (DBRL and PRL) and learn; a --records the files
// can give says nothing.
func TestRecordsBeyondTheFiles(t *testing.T) {
	_, orig, masked := prlFiles(t) // 60 records each
	want := "--records 1000 is more than the 60 of " + orig + " and the 60 of " + masked + ": all of them are used"
	for _, args := range [][]string{
		{"link", "--attrs", "x,y"},
		{"link", "--method", "prl", "--missing", "keep"},
		{"learn", "--operator", "wm", "--attrs", "x,y", "--work-limit", "0.5"},
	} {
		for _, records := range []string{"1000", "50"} {
			var doc struct {
				N        int      `json:"n"`
				Warnings []string `json:"warnings"`
			}
			runJSON(t, &doc, append(append(args, "--records", records, "--format", "json"), orig, masked)...)
			warned := slices.Contains(doc.Warnings, want)
			if records == "1000" && (!warned || doc.N != 60) {
				t.Errorf("%v --records 1000: n %d, warnings %q; want n 60 and %q", args, doc.N, doc.Warnings, want)
			}
			if records == "50" && (warned || doc.N != 50) {
				t.Errorf("%v --records 50: n %d, warnings %q; want n 50 and no such warning", args, doc.N, doc.Warnings)
			}
		}
	}
}

// TestRecordsWarningCountsTheFiles: under --sample the original's pairing holds the
// intruder's subset (30 of 60 records); --records 50 is within both files, so nothing is
// warned (it said "more than the 30 of o.csv: all are used", of a 60-record file).
func TestRecordsWarningCountsTheFiles(t *testing.T) {
	orig, masked := writePairCSV(t, t.TempDir(), "id,x,y", 60, func(i int) (string, string) {
		return fmt.Sprintf("%d,%d,%d", i, i*7%61, i*11%59), fmt.Sprintf("%d,%d.5,%d.5", i, i*7%61, i*11%59)
	})
	var doc struct {
		Warnings []string `json:"warnings"`
	}
	runJSON(t, &doc, "link", "--id", "id", "--attrs", "x,y", "--sample", "0.5", "--records", "50", "--format", "json", orig, masked)
	for _, w := range doc.Warnings {
		if strings.Contains(w, "--records") {
			t.Errorf("warned %q", w)
		}
	}
}

// A --masking the file contradicts outright: masked values x + 0.5 that no original record
// holds (the originals are integers), so under rank swapping no original is consistent
// with any masked record. link counts all of them in known_inconsistent and warns (K.Reid 0
// was silent before), and an audit's max_k_reid rule fails as not measured rather than
// passing on that 0; the same files unmasked (masked = original) refute nothing.
func TestKnownInconsistent(t *testing.T) {
	const n = 12
	dir := t.TempDir()
	orig, masked := writePairCSV(t, dir, "x,y", n, func(i int) (string, string) {
		x, y := 10*i+i%3, (7*i)%13+2*i
		return fmt.Sprintf("%d,%d", x, y), fmt.Sprintf("%d.5,%d.5", x, y)
	})
	var r struct {
		KnownInconsistent int      `json:"known_inconsistent"`
		KReid             float64  `json:"k_reid"`
		Warnings          []string `json:"warnings"`
	}
	runJSON(t, &r, "link", "--format", "json", "--masking", "rankswap:p=10", orig, masked)
	warned := func() bool {
		return slices.ContainsFunc(r.Warnings, func(w string) bool {
			return strings.HasPrefix(w, "--masking does not describe") && strings.Contains(w, fmt.Sprintf("%d of the %d masked records", n, n))
		})
	}
	if r.KnownInconsistent != n || r.KReid != 0 || !warned() {
		t.Errorf("x + 0.5 under rankswap: known_inconsistent %d, k_reid %v, warnings %q; want %d, 0, a warning", r.KnownInconsistent, r.KReid, r.Warnings, n)
	}
	policy := writePolicy(t, `{"max_k_reid": 1}`)
	code, stdout, stderr := runReid(t, "audit", "--out", t.TempDir(), "--work-limit", "0.1", "--masking", "rankswap:p=10", "--policy", policy, orig, masked)
	if code != exitPolicy || !strings.Contains(stderr, "max_k_reid: k_reid not measured (--masking does not describe the masked file") {
		t.Errorf("audit with the contradicted masking: exit %d, want %d and max_k_reid not measured:\n%s", code, exitPolicy, stderr)
	}
	// The summary says so too, for a script that reads it rather than the gate.
	if !strings.HasSuffix(strings.TrimSpace(stdout), " k_reid_measured=false") {
		t.Errorf("the CI line does not say K.Reid was not measured:\n%s", stdout)
	}
	var rep struct {
		Summary struct {
			KReidNotMeasured string `json:"k_reid_not_measured"`
		} `json:"summary"`
		Measures []auditMeasure `json:"measures"`
	}
	if err := json.Unmarshal(auditJSON(t, t.TempDir(), "--work-limit", "0.1", "--masking", "rankswap:p=10", orig, masked), &rep); err != nil || !strings.HasPrefix(rep.Summary.KReidNotMeasured, "--masking does not describe") {
		t.Errorf("summary.k_reid_not_measured = %q, %v", rep.Summary.KReidNotMeasured, err)
	}
	kMeasures := 0
	for _, m := range rep.Measures {
		if m.Name != "k_reid" {
			continue
		}
		kMeasures++
		if !strings.Contains(m.Definition, "; NOT MEASURED: --masking does not describe") {
			t.Errorf("measure %s/%s: definition %q does not say it is not measured", m.Name, m.Source, m.Definition)
		}
	}
	if kMeasures == 0 {
		t.Error("no k_reid measure in the report")
	}

	content, err := os.ReadFile(orig)
	if err != nil {
		t.Fatal(err)
	}
	same := writeCSV(t, dir, "same.csv", string(content))
	r.KnownInconsistent, r.Warnings = 0, nil
	runJSON(t, &r, "link", "--format", "json", "--masking", "rankswap:p=10", orig, same)
	// Only the warnings that every column alone re-identifies (it is unmasked): none of
	// --masking.
	if r.KnownInconsistent != 0 || slices.ContainsFunc(r.Warnings, func(w string) bool { return !strings.Contains(w, "unchanged by the masking") }) {
		t.Errorf("masked = original: known_inconsistent %d, warnings %q; want 0, none of --masking", r.KnownInconsistent, r.Warnings)
	}
	code, _, stderr = runReid(t, "audit", "--out", t.TempDir(), "--work-limit", "0.1", "--masking", "rankswap:p=10", "--policy", policy, orig, same)
	if code != exitOK {
		t.Errorf("audit with masked = original: exit %d:\n%s", code, stderr)
	}

	// Only the last record contradicts the masking, and --records 5 measures the first
	// five: the attack ran on the whole file, so the warning and the gate still say so.
	lines := strings.Split(strings.TrimSuffix(string(content), "\n"), "\n")
	lines[n] = strings.Replace(lines[n], ",", ".5,", 1)
	lastOff := writeCSV(t, dir, "last.csv", strings.Join(lines, "\n")+"\n")
	r.KnownInconsistent, r.Warnings = 0, nil
	runJSON(t, &r, "link", "--format", "json", "--records", "5", "--masking", "rankswap:p=10", orig, lastOff)
	if r.KnownInconsistent != 0 || !slices.ContainsFunc(r.Warnings, func(w string) bool {
		return strings.Contains(w, "in the whole masked file, 0 wrong links made known and 1 records consistent with no original")
	}) {
		t.Errorf("--records 5, record %d contradicting: known_inconsistent %d, warnings %q", n, r.KnownInconsistent, r.Warnings)
	}
	code, _, stderr = runReid(t, "audit", "--out", t.TempDir(), "--records", "5", "--work-limit", "0.1", "--masking", "rankswap:p=10", "--policy", policy, orig, lastOff)
	if code != exitPolicy || !strings.Contains(stderr, "max_k_reid: k_reid not measured") {
		t.Errorf("audit --records 5, record %d contradicting: exit %d, want %d and max_k_reid not measured:\n%s", n, code, exitPolicy, stderr)
	}
}

// --drop-constant's dropped attributes are named in link's and the audit's warnings (only
// check printed them): column c is 5 in every record of both files.
func TestDropConstantWarned(t *testing.T) {
	orig, masked := writePairCSV(t, t.TempDir(), "x,y,c", 10, func(i int) (string, string) {
		return fmt.Sprintf("%d,%d,5", i, (3*i)%10), fmt.Sprintf("%d.25,%d,5", i, (3*i)%10)
	})
	want := "--drop-constant: not linked on c, constant in"
	var r struct {
		Warnings []string `json:"warnings"`
	}
	runJSON(t, &r, "link", "--format", "json", "--drop-constant", orig, masked)
	if !slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("link: warnings %q lack %q", r.Warnings, want)
	}
	doc := map[string]any{}
	if err := json.Unmarshal(auditJSON(t, t.TempDir(), "--drop-constant", "--work-limit", "0.1", orig, masked), &doc); err != nil {
		t.Fatal(err)
	}
	if w := toStrings(doc["warnings"]); !slices.ContainsFunc(w, func(w string) bool { return strings.HasPrefix(w, want) }) {
		t.Errorf("audit: warnings %q lack %q", w, want)
	}
	r.Warnings = nil
	runJSON(t, &r, "link", "--format", "json", "--attrs", "x,y", orig, masked)
	if slices.ContainsFunc(r.Warnings, func(w string) bool { return strings.HasPrefix(w, "--drop-constant") }) {
		t.Errorf("nothing dropped: warnings %q", r.Warnings)
	}
}

// A device without an extension (/dev/null, as /dev/stdout) takes --records-out as CSV;
// it was refused for its missing extension although the README names /dev/stdout as an
// output written directly. A regular file without one is still refused.
func TestRecordsOutDevice(t *testing.T) {
	dir := t.TempDir()
	orig, masked := writePairCSV(t, dir, "x,y", 6, func(i int) (string, string) {
		return fmt.Sprintf("%d,%d", i, i*i), fmt.Sprintf("%d.5,%d", i, i*i)
	})
	if code, _, stderr := runReid(t, "link", "--records-out", "/dev/null", orig, masked); code != exitOK {
		t.Errorf("--records-out /dev/null: exit %d: %s", code, stderr)
	}
	code, _, stderr := runReid(t, "link", "--records-out", filepath.Join(dir, "plain"), orig, masked)
	expectInputError(t, code, stderr, "plain", "unknown file format")
}

// --masking values: the parameter is one number, in the ranges reid mask accepts (a
// masking with p = 0 or k = 1 would change nothing), and none takes none.
func TestParseKnowledge(t *testing.T) {
	for _, c := range []struct {
		in   string
		want linkage.Knowledge
		err  string
	}{
		{in: "none", want: linkage.Knowledge{Method: "none"}},
		{in: "rankswap:p=5", want: linkage.Knowledge{Method: "rankswap", P: 5}},
		{in: "rankswap:p=100", want: linkage.Knowledge{Method: "rankswap", P: 100}},
		{in: "mdav:k=2", want: linkage.Knowledge{Method: "mdav", K: 2}},
		{in: "indrank:k=3", want: linkage.Knowledge{Method: "indrank", K: 3}},
		{in: "none:k=3", err: "none takes no parameter"},
		{in: "rankswap:p=0", err: `p must be one number in (0, 100], got "0"`},
		{in: "rankswap:p=100.5", err: "p must be one number in (0, 100]"},
		{in: "rankswap:p=5,k=3", err: `got "5,k=3"`},
		{in: "mdav:k=1", err: `k must be one integer from 2 to the number of records, got "1"`},
		{in: "indrank:k=2.5", err: "k must be one integer from 2 to the number of records"},
		// Beyond int: it said "at least 2" of a k far above it.
		{in: "mdav:k=99999999999999999999", err: "k must be one integer from 2 to the number of records"},
		{in: "mdav:p=3", err: `unknown parameter "p"`},
	} {
		got, err := parseKnowledge(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("%q: %+v, %v; want %+v", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one containing %q", c.in, err, c.err)
		}
	}
	orig, masked := writePairCSV(t, t.TempDir(), "x,y", 5, func(i int) (string, string) {
		return fmt.Sprintf("%d,%d", i, i*i), fmt.Sprintf("%d,%d", i, i*i)
	})
	code, _, stderr := runReid(t, "link", "--masking", "mdav:k=6", orig, masked)
	if code != exitInput || !strings.Contains(stderr, "--masking mdav:k=6: k is more than the 5 records") || strings.Contains(stderr, "linkage:") {
		t.Errorf("k above n: exit %d: %s", code, stderr)
	}
}

// --params without --operator takes the operator the file names (it said "--params does not
// go with --operator euclidean"); a file naming none asks for --operator. Weights (1, 0)
// link on x alone: masked x = original x + 0.25 keeps every record nearest its partner,
// while y is reversed, so the Euclidean distance links fewer.
func TestParamsNameTheOperator(t *testing.T) {
	dir := t.TempDir()
	orig, masked := writePairCSV(t, dir, "x,y", 6, func(i int) (string, string) {
		return fmt.Sprintf("%d,%d", 10*i, i), fmt.Sprintf("%d.25,%d", 10*i, 5-i)
	})
	params := writeCSV(t, dir, "p.json", `{"operator": "wm", "weights": {"x": 1, "y": 0}}`)
	var r struct {
		Operator string  `json:"operator"`
		Reid     float64 `json:"reid"`
	}
	runJSON(t, &r, "link", "--format", "json", "--params", params, orig, masked)
	if r.Operator != "wm" || r.Reid != 1 {
		t.Errorf("--params alone: operator %q, reid %v; want wm, 1", r.Operator, r.Reid)
	}
	bare := writeCSV(t, dir, "bare.json", `{"weights": [1, 0]}`)
	code, _, stderr := runReid(t, "link", "--params", bare, orig, masked)
	expectInputError(t, code, stderr, "bare.json", `missing "operator" (want one of`)
}
