package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// uniqSample is the hand example of package uniqueness (measure_test.go): classes (x,1)
// f=3, (x,2) f=1, (y,1) f=1, (y,2) f=3, with ages for binning.
const uniqSample = `A,B,w,S,age
x,1,2,a,10
x,1,4,a,20
x,2,5,b,30
y,1,10,a,10
y,2,3,b,40
y,2,3,c,10
y,2,2,b,30
x,1,4,c,20
`

// uniqPopulation: (x,1) 5, (x,2) 1, (y,1) 3, (y,2) 4, (z,1) 1, (z,2) 2.
const uniqPopulation = `A,B
z,1
x,1
x,1
y,2
x,1
x,2
y,1
z,2
y,2
x,1
y,1
y,2
z,2
y,1
x,1
y,2
`

func uniqJSON(t *testing.T, args ...string) uniquenessReport {
	t.Helper()
	code, out, errOut := runReid(t, append([]string{"uniqueness", "--format", "json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var r uniquenessReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return r
}

func TestUniquenessPopulation(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	p := writeCSV(t, dir, "p.csv", uniqPopulation)
	r := uniqJSON(t, "--keys", "A,B", "--population", p, "--sensitive", "S", s)
	// By hand: 2 sample uniques, population uniques (x,2) and (z,1), one of them both;
	// Σ 1/F_j = 3/5 + 1 + 1/3 + 3/4.
	sum := 3.0/5 + 1 + 1.0/3 + 3.0/4
	if r.Model != "population-count" || r.Classes != 4 || r.SampleUniques != 2 || *r.PopulationUniques != 2 ||
		r.SUandPU != 1 || *r.PPUGivenSU != 0.5 || math.Abs(r.ExpectedReidentifications-sum) > 1e-12 || r.KMin != 1 || r.Estimated {
		t.Errorf("%+v", r)
	}
	if len(r.KAnonymity.Failing) != 2 || keyText(r.KAnonymity.Failing[0]) != "x,2" {
		t.Errorf("k-anonymity %+v", r.KAnonymity)
	}
	if len(r.LDiversity) != 1 || r.LDiversity[0].FailingDistinct != 2 || len(r.TCloseness) != 1 || r.TCloseness[0].Distance != "equal" ||
		math.Abs(r.TCloseness[0].MaxDistance-0.625) > 1e-15 {
		t.Errorf("l %+v t %+v", r.LDiversity, r.TCloseness)
	}
	// Same inputs, byte-identical JSON.
	_, a, _ := runReid(t, "uniqueness", "--format", "json", "--keys", "A,B", "--population", p, "--sensitive", "S", s)
	_, b, _ := runReid(t, "uniqueness", "--format", "json", "--keys", "A,B", "--population", p, "--sensitive", "S", s, "--threads", "1")
	if a != b {
		t.Error("JSON differs between runs")
	}
}

func TestUniquenessEstimators(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	// Weights: p_j = 3/10, 1/5, 1/10, 3/8; sample uniques' P(F=1|f=1) = p, so
	// P(PU|SU) = (1/5 + 1/10)/2.
	r := uniqJSON(t, "--keys", "A,B", "--weights", "w", s)
	if r.Model != "benedetti-franconi" || !r.Estimated || math.Abs(*r.PPUGivenSU-0.15) > 1e-15 || r.PopulationUniques != nil ||
		len(r.Estimates) != 3 || *r.SkinnerElliot != 1 || math.Abs(*r.SamplingFraction-8.0/33) > 1e-15 {
		t.Errorf("%+v", r)
	}
	// Fraction and Poisson: μ_j = 2, ν = 6, P(F=1|f=1) = e^{−6}.
	r = uniqJSON(t, "--keys", "A,B", "--fraction", "0.25", "--estimator", "poisson", s)
	if r.Model != "poisson-loglinear" || math.Abs(*r.PPUGivenSU-math.Exp(-6)) > 1e-15 {
		t.Errorf("%+v", r)
	}
	// Neither: r_i = 1/f_j, the sample taken as the population, so its uniques are the
	// population's (they were null beside su_and_pu = sample uniques).
	r = uniqJSON(t, "--keys", "A,B", s)
	if r.Model != "sample-frequency" || r.ExpectedReidentifications != 4 || r.SamplingFraction != nil ||
		r.PopulationUniques == nil || *r.PopulationUniques != r.SampleUniques || *r.PopulationClasses != r.Classes || r.SUandPU != float64(r.SampleUniques) {
		t.Errorf("%+v", r)
	}
}

func TestUniquenessBins(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	// age cut at 20 and 40: <20 {10,10,10}, [20,40) {20,30,30,20}, >=40 {40}.
	r := uniqJSON(t, "--keys", "age", "--bins", "age:20,40", s)
	if r.Classes != 3 || r.SampleUniques != 1 || r.Keys[0].Categories != 3 || len(r.Keys[0].Cuts) != 2 ||
		keyText(r.KAnonymity.Failing[0]) != ">=40" {
		t.Errorf("%+v", r)
	}
	// Quantile bins: 8 values, q2 cuts at the value of rank 4, 20: <20 and >=20.
	r = uniqJSON(t, "--keys", "age,A", "--bins", "age:q2", s)
	if r.Keys[0].Categories != 2 || r.Keys[0].Cuts[0] != 20 || len(r.Warnings) != 0 {
		t.Errorf("%+v, warnings %q", r.Keys, r.Warnings)
	}
	// Twenty records of 5 and one of 9: every quantile is 5, so q4 gives one bin and
	// the rare 9 joins it; the report says so.
	var nc strings.Builder
	nc.WriteString("x\n")
	for i := range 21 {
		fmt.Fprintf(&nc, "%d\n", map[bool]int{true: 9, false: 5}[i == 20])
	}
	r = uniqJSON(t, "--keys", "x", "--bins", "x:q4", writeCSV(t, dir, "nc.csv", nc.String()))
	if r.Keys[0].Categories != 1 || len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], "--bins x:q4 gave 1 bin(s)") {
		t.Errorf("near-constant x in q4: %+v, warnings %q", r.Keys, r.Warnings)
	}
	out := filepath.Join(dir, "risk.csv")
	if code, _, errOut := runReid(t, "uniqueness", "--keys", "A,B", "--records-out", out, s); code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	tab, err := datasets.Load(out, datasets.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tab.Rows() != 8 || tab.Column("risk").Values[2] != 1 || tab.Column("class").Values[7] != 0 {
		t.Errorf("records-out: %v", tab.Names())
	}
}

func TestUniquenessErrors(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{s}, "--keys is required"},
		{[]string{"--keys", "A"}, "sample file is required"},
		{[]string{"--keys", "A", "--bins", "B", s}, "not NAME:C1,C2"},
		{[]string{"--keys", "A", "--bins", "age:q2", s}, "not a key"},
		{[]string{"--keys", "age", "--bins", "age:3,1", s}, "must increase"},
		{[]string{"--keys", "A", "--weights", "w", "--fraction", "0.1", s}, "not both"},
		// An explicit 0 is out of range, not the flag's "unset".
		{[]string{"--keys", "A", "--fraction", "0", s}, "--fraction must be in (0, 1], got 0"},
		{[]string{"--keys", "A", "--fraction", "1.5", s}, "--fraction must be in (0, 1], got 1.5"},
		{[]string{"--keys", "A", "--list", "-1", s}, "--list must be 0 (all) or a positive number"},
		{[]string{"--keys", "A", "--estimator", "x", s}, "unknown estimator"},
		{[]string{"--keys", "A,Z", s}, `no such column: "Z"`},
		{[]string{"--keys", "A", "--sensitive", "A", s}, "more than one"},
		{[]string{"--keys", "A", "--weights", "S", s}, `column "S"`},
	}
	for _, tc := range tests {
		code, _, errOut := runReid(t, append([]string{"uniqueness"}, tc.args...)...)
		if code != exitInput || !strings.Contains(errOut, tc.want) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, %q (want %q)", tc.args, code, errOut, tc.want)
		}
	}
}

// sdcMicro's measure_risk on its testdata with the key below and w = "sampling_weight"
// (indivRisk, method "approx"): 412 classes, 157 sample uniques, global risk 0.002353,
// 10.78 expected re-identifications, maximum individual risk 0.046517.
func TestUniquenessTestdata(t *testing.T) {
	file := "../../../shared/datasets/testdata/original.csv"
	if _, err := os.Stat(file); err != nil {
		t.Skipf("sdcMicro testdata not available (%s): %v", file, err)
	}
	r := uniqJSON(t, "--keys", "urbrur,roof,walls,water,electcon,relat,sex", "--weights", "sampling_weight",
		"--estimator", "bf-approx", file)
	if r.Classes != 412 || r.SampleUniques != 157 || math.Round(r.ReidentificationRate*1e6) != 2353 ||
		math.Round(r.ExpectedReidentifications*100) != 1078 || math.Round(r.MaxRecordRisk*1e6) != 46517 {
		t.Errorf("classes %d, uniques %d, rate %v, expected %v, max %v", r.Classes, r.SampleUniques,
			r.ReidentificationRate, r.ExpectedReidentifications, r.MaxRecordRisk)
	}
	code, out, _ := runReid(t, "uniqueness", "--keys", "urbrur,roof,walls,water,electcon,relat,sex", file)
	if code != exitOK || !strings.Contains(out, "sample uniques") || !strings.Contains(out, "k-anonymity (k = 3)") {
		t.Errorf("text output: exit %d\n%s", code, out)
	}
}

// A population that does not contain the sample (uniqSample: (x,1) f=3, (x,2) f=1,
// (y,1) f=1, (y,2) f=3) is an input error naming the population file, the first class
// short of records and both counts, and nothing is written.
func TestUniquenessPopulationMustContainSample(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	tests := []struct {
		name, population, want string
	}{
		{"absent class", "A,B\nx,1\nx,1\nx,1\nx,2\ny,2\ny,2\ny,2\n",
			"key A=y, B=1: 1 sample record but 0 in the population (the population must contain the sample)"},
		{"smaller class", "A,B\nx,1\nx,2\ny,1\ny,2\ny,2\ny,2\ny,2\n",
			"key A=x, B=1: 3 sample records but 1 in the population (the population must contain the sample)"},
	}
	for i, tc := range tests {
		p := writeCSV(t, dir, fmt.Sprintf("p%d.csv", i), tc.population)
		out := filepath.Join(dir, fmt.Sprintf("risk%d.csv", i))
		code, _, errOut := runReid(t, "uniqueness", "--keys", "A,B", "--population", p, "--records-out", out, s)
		want := "reid uniqueness: " + p + ": " + tc.want + "\n"
		if code != exitInput || errOut != want {
			t.Errorf("%s: exit %d, %q\nwant exit %d, %q", tc.name, code, errOut, exitInput, want)
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Errorf("%s: --records-out written despite the error (%v)", tc.name, err)
		}
	}
}

// TestUniquenessMissingKeysLine: the text says missing key values are a category of
// their own only under --missing keep (under --missing error a missing key is refused),
// and the JSON says which.
func TestUniquenessMissingKeysLine(t *testing.T) {
	sample := writeCSV(t, t.TempDir(), "s.csv", uniqSample)
	for _, tc := range []struct {
		missing, json string
		says          bool
	}{{"error", "refused", false}, {"keep", "own category", true}} {
		code, out, stderr := runReid(t, "uniqueness", "--keys", "A,B", "--missing", tc.missing, sample)
		if code != exitOK {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if got := strings.Contains(out, "category of their own"); got != tc.says {
			t.Errorf("--missing %s: says missing values are a category: %v, want %v:\n%s", tc.missing, got, tc.says, out)
		}
		if r := uniqJSON(t, "--keys", "A,B", "--missing", tc.missing, sample); r.MissingKeys != tc.json {
			t.Errorf("--missing %s: missing_keys %q, want %q", tc.missing, r.MissingKeys, tc.json)
		}
	}
}

// TestUniquenessMissingSensitive: under --missing keep a missing sensitive value is not a
// value (package uniqueness, TestSensitiveMissingIsNotAValue, derives the figures by
// hand). Classes a = {(5, x), (NA, NA)}, b = {(1, y), (2, z)}, c = {(NA, NA)}: a has
// one present value of v and of s (l = 1, fails l = 2), b two (l = 2), c none (l = 0,
// listed with distinct_l 0 and entropy_l 0, not without them). t-closeness against the
// present values 1, 2, 5 and x, y, z: v (ordered) a ½, b ¼; s (equal) a ⅔, b ⅓; c 0.
func TestUniquenessMissingSensitive(t *testing.T) {
	s := writeCSV(t, t.TempDir(), "lmiss.csv", "k,v,s\na,5,x\na,NA,\nb,1,y\nb,2,z\nc,NA,\n")
	r := uniqJSON(t, "--keys", "k", "--sensitive", "v,s", "--missing", "keep", "--k", "1", s)
	for a, name := range []string{"v", "s"} {
		l := r.LDiversity[a]
		type lClass struct {
			Key      string
			Distinct int
			Entropy  float64
		}
		var got []lClass
		for _, c := range l.Failing {
			if c.Distinct == nil || c.Entropy == nil {
				t.Fatalf("%s: class %v listed without its l: %+v", name, c.Key, c)
			}
			got = append(got, lClass{keyText(c), *c.Distinct, *c.Entropy})
		}
		want := []lClass{{"c", 0, 0}, {"a", 1, 1}}
		if fmt.Sprint(got) != fmt.Sprint(want) || l.MinDistinct != 0 || l.MinEntropy != 0 || l.ClassesFailing != 2 {
			t.Errorf("l-diversity of %s: %+v, failing %v; want %v", name, l, got, want)
		}
	}
	for a, want := range []map[string]float64{{"a": 0.5, "b": 0.25}, {"a": 2.0 / 3, "b": 1.0 / 3}} {
		tc := r.TCloseness[a]
		got := map[string]float64{}
		for _, c := range tc.Failing {
			got[keyText(c)] = c.Distance
		}
		if len(got) != len(want) || math.Abs(got["a"]-want["a"]) > 1e-15 || math.Abs(got["b"]-want["b"]) > 1e-15 {
			t.Errorf("t-closeness of %s: %v, want %v", tc.Attribute, got, want)
		}
	}
}

// TestUniquenessWeightBelowOne: a sampling weight below 1 is an input error naming the
// file, the column and the first such row (exit 2, one line), not a weight clamped into
// a sampling fraction n/sum(w) = 3/1.5 = 2 printed as 1. Weights that are not positive
// keep their own message.
func TestUniquenessWeightBelowOne(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, csv, want string }{
		{"wlow.csv", "a,w\nx,0.5\nx,0.5\ny,1\n",
			`column "w", row 1: sampling weight below 1 (a sampled record stands for at least itself): 0.5`},
		{"wlow3.csv", "a,w\nx,2\nx,1\ny,0.25\n",
			`column "w", row 3: sampling weight below 1 (a sampled record stands for at least itself): 0.25`},
		{"w0.csv", "a,w\nx,0\ny,1\n", `column "w", row 1: sampling weight must be finite and positive: 0`},
		{"wneg.csv", "a,w\nx,-1\ny,1\n", `column "w", row 1: sampling weight must be finite and positive: -1`},
	}
	for _, tc := range tests {
		f := writeCSV(t, dir, tc.name, tc.csv)
		code, out, errOut := runReid(t, "uniqueness", "--keys", "a", "--weights", "w", f)
		if want := "reid uniqueness: " + f + ": " + tc.want + "\n"; code != exitInput || errOut != want || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q\nwant exit %d, %q", tc.name, code, out, errOut, exitInput, want)
		}
	}
	// Weights of at least 1 give n/sum(w) = 3/(1 + 1 + 2) = 0.75.
	r := uniqJSON(t, "--keys", "a", "--weights", "w", writeCSV(t, dir, "wok.csv", "a,w\nx,1\nx,1\ny,2\n"))
	if r.SamplingFraction == nil || *r.SamplingFraction != 0.75 {
		t.Errorf("sampling fraction %v, want 0.75", r.SamplingFraction)
	}
}

// TestUniquenessMissingWeight: a missing sampling weight is an input error naming the
// file, the column and the row under either --missing policy, and says that no policy
// helps, rather than "choose a missing-value policy" (under keep one was chosen).
func TestUniquenessMissingWeight(t *testing.T) {
	f := writeCSV(t, t.TempDir(), "wna.csv", "a,w\nx,\ny,1\n")
	want := "reid uniqueness: " + f + `: column "w", row 1: missing sampling weight (a weight cannot be missing under any missing-value policy)` + "\n"
	for _, missing := range []string{"keep", "error"} {
		code, out, errOut := runReid(t, "uniqueness", "--keys", "a", "--weights", "w", "--missing", missing, f)
		if code != exitInput || errOut != want || out != "" {
			t.Errorf("--missing %s: exit %d, stdout %q, stderr %q\nwant exit %d, %q", missing, code, out, errOut, exitInput, want)
		}
	}
	// Under --missing error a missing key is still the loader's "missing value", in the
	// words of the flag that takes it.
	g := writeCSV(t, t.TempDir(), "kna.csv", "a,w\n,1\ny,1\n")
	if code, _, errOut := runReid(t, "uniqueness", "--keys", "a", "--weights", "w", g); code != exitInput ||
		!strings.Contains(errOut, `column "a", row 1: missing value (--missing keep reads it as missing, where the measure allows)`) {
		t.Errorf("missing key: exit %d, %q", code, errOut)
	}
}

// TestUniquenessEstimatorNeedsPi: the estimators need sampling weights or a sampling
// fraction, so an explicit --estimator without --weights or --fraction (the default
// value included) is a usage error instead of a report of another model: the sample
// frequencies, or with --population alone the count. With --population and a fraction it
// is accepted: the count gives the headline and the estimator comes first among the
// estimates.
func TestUniquenessEstimatorNeedsPi(t *testing.T) {
	dir := t.TempDir()
	s := writeCSV(t, dir, "s.csv", uniqSample)
	p := writeCSV(t, dir, "p.csv", uniqPopulation)
	const need = "--estimator needs sampling weights (--weights) or a sampling fraction (--fraction): "
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--estimator", "poisson", s}, need + "without them, and without --population, the sample is taken as the population"},
		{[]string{"--estimator", "bf", s}, need + "without them, and without --population, the sample is taken as the population"},
		{[]string{"--estimator", "bf-approx", "--population", p, s}, need + "with --population alone F_j is counted and no estimator runs"},
	}
	for _, tc := range tests {
		code, out, errOut := runReid(t, append([]string{"uniqueness", "--keys", "A,B"}, tc.args...)...)
		want := "reid uniqueness: " + tc.want + "; run 'reid help uniqueness'\n"
		if code != exitInput || errOut != want || out != "" {
			t.Errorf("%v: exit %d, stdout %q, stderr %q\nwant exit %d, %q", tc.args, code, out, errOut, exitInput, want)
		}
	}
	r := uniqJSON(t, "--keys", "A,B", "--population", p, "--fraction", "0.25", "--estimator", "poisson", s)
	var models []string
	for _, e := range r.Estimates {
		models = append(models, e.Model)
	}
	if want := "population-count poisson-loglinear benedetti-franconi benedetti-franconi-approx"; r.Model != "population-count" ||
		strings.Join(models, " ") != want {
		t.Errorf("model %s, estimates %v; want population-count, %s", r.Model, models, want)
	}
}

// keyText is a listed class's key values joined by commas, "<nil>" for the missing
// category.
func keyText(c uniqClass) string {
	var vs []string
	for _, v := range c.Key {
		if v == nil {
			vs = append(vs, "<nil>")
		} else {
			vs = append(vs, *v)
		}
	}
	return strings.Join(vs, ",")
}

// A missing key value (--missing keep) is listed as null in JSON and as (missing) in
// text; a label that reads "(missing)" is a string in JSON and quoted in text: the two
// classes were listed alike.
func TestUniquenessMissingKeyListed(t *testing.T) {
	dir := t.TempDir()
	sample := writeCSV(t, dir, "s.csv", "a,b\n(missing),x\n,x\n")
	code, out, stderr := runReid(t, "uniqueness", "--keys", "a", "--missing", "keep", "--format", "json", sample)
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var r struct {
		KAnonymity struct {
			Failing []uniqClass `json:"failing_classes"`
		} `json:"k_anonymity"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range r.KAnonymity.Failing {
		got = append(got, keyText(c))
	}
	if strings.Join(got, "|") != "(missing)|<nil>" {
		t.Errorf("failing classes %q, want the label (missing) then the missing value", got)
	}
	code, out, stderr = runReid(t, "uniqueness", "--keys", "a", "--missing", "keep", sample)
	if code != exitOK {
		t.Fatalf("text: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "  1     \"(missing)\"\n") || !strings.Contains(out, "  1     (missing)\n") {
		t.Errorf("text report:\n%s", out)
	}
	// A label that is itself quoted is quoted again: it printed as the label (missing).
	quoted := writeCSV(t, dir, "q.csv", "a,b\n\"\"\"(missing)\"\"\",x\n(missing),x\n")
	code, out, stderr = runReid(t, "uniqueness", "--keys", "a", quoted)
	if code != exitOK {
		t.Fatalf("quoted: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, `"\"(missing)\""`) || !strings.Contains(out, "  1     \"(missing)\"\n") {
		t.Errorf("text report:\n%s", out)
	}
}
