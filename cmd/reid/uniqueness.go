package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/uniqueness"
)

func uniquenessCommand() *command {
	return &command{
		Name:      "uniqueness",
		UsageLine: "reid uniqueness --keys A,B [--bins A:C1,C2 | --bins A:qN] [--population FILE] [--weights COL | --fraction F] [--estimator bf|bf-approx|poisson] [--sensitive S,T] [--k K] [--l L] [--t T] [--format text|json] SAMPLE",
		Short:     "count key combinations: sample and population uniques, record risk, k-anonymity, l-diversity, t-closeness",
		Long: `
Uniqueness measures the re-identification risk that comes from rare combinations of key
attributes (quasi-identifiers). It counts each combination of the --keys in the SAMPLE
(f_j, hashed and parallel) and reports:

  classes                     key combinations in the sample
  sample_uniques              combinations held by one sample record (f_j = 1)
  population_uniques          combinations held by one population record (F_j = 1),
                              with --population; the sample uniques when the sample
                              is taken as the population; null when F_j is estimated
  su_and_pu, p_pu_given_su    sample uniques that are population uniques, and their
                              share P(PU|SU); expected values when F_j is estimated
  expected_reidentifications  sum over records of the record risk r_i = E[1/F_j | f_j]
  reidentification_rate       the same divided by the number of records
  k_min                       the smallest class (the file is k_min-anonymous)

F_j, the class's size in the population, is counted in --population FILE when given
(r_i = 1/F_j; categories matched by label, decimal numbers by value: 1.0 there is 1 here,
unless a file has two labels of the value; a code with a leading zero, 007, or of more
than 15 significant digits is matched by label only). The population must contain the
sample: a key combination with fewer records in FILE than in the SAMPLE (F_j < f_j, as
when it is absent) is an error naming the combination, since 1/F_j would then be wrong.
Otherwise it is estimated from sampling weights (--weights COL: the number of population
records each sample record stands for, so at least 1, and never missing, whatever
--missing says; n/sum(w) is the sampling fraction) or a sampling fraction (--fraction F)
by --estimator:

  bf          Benedetti-Franconi negative binomial, exact series (default)
  bf-approx   the same with the mu-Argus approximation for f_j >= 3 (sdcMicro's
              measure_risk)
  poisson     Poisson log-linear model with main effects (Skinner-Holmes)

and every estimator is reported under "estimates", with the Skinner-Elliot estimate of
P(correct match | unique match). --estimator needs --weights or --fraction (without
them it is an error, since no estimator runs); with --population as well, the count
gives the headline figures and the estimators, the chosen one first, follow it under
"estimates". With none of the three the sample is taken as the population
(r_i = 1/f_j). The report names the model used.

Keys are read as categorical (numeric codes are categories). A numeric key is cut into
left-closed bins with --bins, repeated once per key: --bins age:18,30,50 gives <18,
[18,30), [30,50), >=50; --bins income:q4 gives 4 bins at sample quantiles (the same cut
points are used for the population). With --missing keep, a missing key value is a
category of its own.

Privacy models on the same keys: k-anonymity (--k, default 3: classes with fewer
records), and for each --sensitive attribute l-diversity (--l, default 2: distinct and
entropy l) and t-closeness (--t, default 0.2: earth mover's distance to the whole sample,
ordered for a numeric attribute, equal for a categorical one). A missing sensitive
value (--missing keep) is not a value: l counts the class's present values (a class
with none has l = 0 and fails), and t-closeness compares the distribution of the
class's present values with that of the whole sample's (a class with none is at
distance 0). The verdicts allow rounding (entropy l within 1e-12 relative below l, a
distance within 1e-12 above t pass: m equally frequent values have entropy l = m,
computed as m − 4e-16). The failing classes are listed, worst first (at most --list, default 20;
0 lists all), each by its key values (JSON "key"; a missing value, under --missing keep, is
null there and (missing) in text, where a label reading (missing) is quoted).

--records-out FILE (.csv, .parquet, .arrow) writes one row per sample record: record
(1-based), class, f, F (with --population) and risk.`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			sample := fs.String("sample", "", "the sample `file` (or give it as the argument)")
			population := fs.String("population", "", "population `file` (F_j counted in it; must contain the sample)")
			keys := fs.String("keys", "", "comma-separated key `attributes`; a name holding a comma in double quotes")
			var bins binsFlag
			fs.Var(&bins, "bins", "discretise a numeric key: `NAME:C1,C2,...` (cut points) or NAME:qN (N quantile bins); repeat per key")
			weights := fs.String("weights", "", "sampling-weight `column` of the sample (every weight at least 1)")
			fraction := fs.Float64("fraction", 0, "sampling `fraction` in (0, 1]")
			estimator := fs.String("estimator", "bf", "population `model` from --weights or --fraction (needs one): bf, bf-approx or poisson")
			sensitive := fs.String("sensitive", "", "comma-separated sensitive `attributes` for l-diversity and t-closeness; a name holding a comma in double quotes")
			k := fs.Int("k", uniqueness.DefaultK, "k of k-anonymity")
			l := fs.Float64("l", uniqueness.DefaultL, "l of l-diversity (distinct and entropy)")
			t := fs.Float64("t", uniqueness.DefaultT, "t of t-closeness")
			list := fs.Int("list", uniqueness.DefaultList, "failing classes listed per check (0: all)")
			format := fs.String("format", "text", "output format: text or json")
			recordsOut := fs.String("records-out", "", "write per-record risk to this `file`")
			threads := threadsFlag(fs)
			load := addLoadFlags(fs)
			return func(args []string) error {
				switch {
				case len(args) == 1 && *sample == "":
					*sample = args[0]
				case len(args) > 0:
					return usagef("give the sample as --sample or as one argument")
				}
				if *sample == "" {
					return usagef("a sample file is required")
				}
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				est, err := uniqueness.ParseEstimator(*estimator)
				if err != nil {
					return usagef("--estimator: %v", err)
				}
				// Given, not non-zero: an explicit --fraction 0 is out of range, not "unset".
				fractionGiven := flagGiven(fs, "fraction")
				if *weights != "" && fractionGiven {
					return usagef("give --weights or --fraction, not both")
				}
				if fractionGiven && !(*fraction > 0 && *fraction <= 1) {
					return usagef("--fraction must be in (0, 1], got %g", *fraction)
				}
				// Without a sampling fraction no estimator runs: an --estimator asked for
				// would be silently replaced by another model.
				if flagGiven(fs, "estimator") && *weights == "" && !fractionGiven {
					const need = "--estimator needs sampling weights (--weights) or a sampling fraction (--fraction): "
					if *population != "" {
						return usagef(need + "with --population alone F_j is counted and no estimator runs")
					}
					return usagef(need + "without them, and without --population, the sample is taken as the population")
				}
				if *list < 0 {
					return usagef("--list must be 0 (all) or a positive number of classes, got %d", *list)
				}
				if *k < 1 || !(*l >= 1) || !(*t > 0 && *t <= 1) {
					return usagef("--k and --l must be at least 1, --t in (0, 1]")
				}
				if *recordsOut != "" {
					if _, err := datasets.OutputFormatOf(*recordsOut); err != nil {
						return err
					}
					if err := checkOutFiles(append(slices.Clone(args), *population, *sample), outPath{"records-out", *recordsOut}); err != nil {
						return err
					}
				}
				keyList, err := splitList("keys", *keys)
				if err != nil {
					return err
				}
				sensitiveList, err := splitList("sensitive", *sensitive)
				if err != nil {
					return err
				}
				job, err := newUniquenessJob(keyList, bins, sensitiveList)
				if err != nil {
					return err
				}
				*weights = datasets.LabelText(*weights) // as the header is read (see splitList)
				opts := uniqueness.Options{Keys: job.keys, Weights: *weights, Fraction: *fraction, Estimator: est,
					Sensitive: job.sensitive, K: *k, L: *l, T: *t, List: *list, Workers: *threads}
				if *list == 0 {
					opts.List = -1
				}
				lo, err := load.options()
				if err != nil {
					return err
				}
				rep, res, err := job.run(*sample, *population, *weights, lo, opts)
				if err != nil {
					return err
				}
				if *recordsOut != "" {
					write := func() error { return datasets.Write(*recordsOut, recordRisks(res), datasets.FormatAuto) }
					if err := writeHeld(e, []string{*recordsOut}, write); err != nil {
						return err
					}
				}
				if *format == "json" {
					return writeJSON(e.stdout, rep)
				}
				return printUniqueness(e.stdout, rep)
			}
		},
	}
}

// binsFlag collects the repeated --bins NAME:SPEC flags.
type binsFlag []string

func (b *binsFlag) String() string     { return strings.Join(*b, " ") }
func (b *binsFlag) Set(s string) error { *b = append(*b, s); return nil }

type uniquenessJob struct {
	keys      []uniqueness.Key
	sensitive []string
}

func newUniquenessJob(keyNames []string, bins binsFlag, sensitive []string) (*uniquenessJob, error) {
	if len(keyNames) == 0 {
		return nil, usagef("--keys is required")
	}
	if err := checkNameList("sensitive", sensitive); err != nil {
		return nil, err
	}
	j := &uniquenessJob{sensitive: sensitive}
	index := map[string]int{}
	for _, name := range keyNames {
		if name == "" {
			return nil, usagef("--keys has an empty name")
		}
		if _, dup := index[name]; dup {
			return nil, usagef("--keys names %q twice", name)
		}
		index[name] = len(j.keys)
		j.keys = append(j.keys, uniqueness.Key{Name: name})
	}
	for _, b := range bins {
		name, spec, ok, err := cutBin(b)
		if err != nil {
			return nil, err
		}
		name = datasets.LabelText(name) // as the header is read (see splitList)
		k, isKey := index[name]
		switch {
		case !ok || spec == "":
			return nil, usagef("--bins %q is not NAME:C1,C2,... or NAME:qN", b)
		case !isKey:
			return nil, usagef("--bins %q: %q is not a key (list it in --keys)", b, name)
		case j.keys[k].Cuts != nil || j.keys[k].Quantiles != 0:
			return nil, usagef("--bins given twice for %q", name)
		}
		if q, found := strings.CutPrefix(spec, "q"); found {
			n, err := strconv.Atoi(q)
			if err != nil || n < 2 {
				return nil, usagef("--bins %q: qN needs a number of bins N >= 2", b)
			}
			j.keys[k].Quantiles = n
			continue
		}
		for _, c := range strings.Split(spec, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(c), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, usagef("--bins %q: %q is not a number", b, c)
			}
			j.keys[k].Cuts = append(j.keys[k].Cuts, v)
		}
		for i := 1; i < len(j.keys[k].Cuts); i++ {
			if j.keys[k].Cuts[i] <= j.keys[k].Cuts[i-1] {
				return nil, usagef("--bins %q: cut points must increase", b)
			}
		}
	}
	return j, nil
}

// run loads the files (only the columns needed; keys as categorical unless binned) and
// measures.
func (j *uniquenessJob) run(samplePath, popPath, weights string, lo datasets.LoadOptions, opts uniqueness.Options) (*uniquenessReport, *uniqueness.Result, error) {
	types := map[string]datasets.Kind{}
	for name, kind := range lo.Types {
		types[name] = kind
	}
	var keyCols []string
	for _, k := range j.keys {
		keyCols = append(keyCols, k.Name)
		if _, set := lo.Types[k.Name]; set {
			continue
		}
		if k.Cuts != nil || k.Quantiles != 0 {
			types[k.Name] = datasets.Numeric
		} else {
			types[k.Name] = datasets.Categorical
		}
	}
	lo.Types = types
	sampleOpts := lo
	sampleOpts.Columns = append(append([]string(nil), keyCols...), j.sensitive...)
	if weights != "" {
		sampleOpts.Columns = append(sampleOpts.Columns, weights)
	}
	seen := map[string]bool{}
	for _, c := range sampleOpts.Columns {
		if seen[c] {
			return nil, nil, usagef("%q is named as more than one of key, sensitive attribute and weight", c)
		}
		seen[c] = true
	}
	sample, err := datasets.Load(samplePath, sampleOpts)
	if err != nil {
		// Under --missing error the loader meets a missing weight first; as under keep
		// (uniqueness.Measure), say that no policy helps.
		return nil, nil, rewordMissing(err, weights, uniqueness.ErrMissingWeight)
	}
	rep := &uniquenessReport{Engine: "reid " + version, MissingKeys: "refused", Weights: weights}
	if lo.Missing == datasets.MissingKeep {
		rep.MissingKeys = "own category"
	}
	rep.Sample.File, rep.Sample.Records = pathText(samplePath), sample.Rows()
	if rep.Sample.SHA256, err = fileSHA256(samplePath); err != nil {
		return nil, nil, err
	}
	if popPath != "" {
		// The overrides the sample has taken may name columns the population lacks (a
		// sensitive attribute, the weight): only the keys are read from it.
		popOpts, err := ownTypes(lo, popPath)
		if err != nil {
			return nil, nil, err
		}
		popOpts.Columns = keyCols
		if opts.Population, err = datasets.Load(popPath, popOpts); err != nil {
			return nil, nil, err
		}
		rep.Population = &uniqInput{File: pathText(popPath), Records: opts.Population.Rows()}
		if rep.Population.SHA256, err = fileSHA256(popPath); err != nil {
			return nil, nil, err
		}
	}
	res, err := uniqueness.Measure(sample, opts)
	if err != nil {
		return nil, nil, asInput(err)
	}
	rep.fill(res)
	for k, key := range j.keys {
		// Quantiles that coincide (a column of mostly one value) leave fewer bins than
		// asked, and a rare value, the very record at risk, disappears into a wide bin.
		if got := len(rep.Keys[k].Cuts) + 1; key.Quantiles > 0 && got < key.Quantiles {
			rep.Warnings = append(rep.Warnings, fmt.Sprintf("--bins %s:q%d gave %d bin(s): the sample's quantiles of %s coincide (values concentrated on a few); give cut points (--bins %s:C1,C2,...) to keep rare values apart",
				key.Name, key.Quantiles, got, key.Name, key.Name))
		}
	}
	return rep, res, nil
}

type uniqInput struct {
	File    pathText `json:"file"`
	SHA256  string   `json:"sha256"`
	Records int      `json:"records"`
}

type uniqKey struct {
	Name       string    `json:"name"`
	Categories int       `json:"categories"`
	Cuts       []float64 `json:"cuts,omitempty"`
}

type uniqEstimate struct {
	Model                     string   `json:"model"`
	Definition                string   `json:"definition"`
	ExpectedReidentifications float64  `json:"expected_reidentifications"`
	ReidentificationRate      float64  `json:"reidentification_rate"`
	MaxRecordRisk             float64  `json:"max_record_risk"`
	SUandPU                   float64  `json:"su_and_pu"`
	PPUGivenSU                *float64 `json:"p_pu_given_su"`
	SUMatches                 float64  `json:"su_expected_matches"`
}

type uniqClass struct {
	Class int `json:"class"`
	// Key holds the class's key values, null for the missing category (--missing keep),
	// which a label "(missing)" could not be told from.
	Key  []*string `json:"key"`
	Size int       `json:"size"`
	// Distinct and Entropy are set for the l-diversity list only, where 0 (a class with
	// no present sensitive value) is a value to print, not an absent field.
	Distinct *int     `json:"distinct_l,omitempty"`
	Entropy  *float64 `json:"entropy_l,omitempty"`
	Distance float64  `json:"distance,omitempty"`
}

type uniqK struct {
	K            int         `json:"k"`
	KMin         int         `json:"k_min"`
	ClassesBelow int         `json:"classes_below_k"`
	RecordsBelow int         `json:"records_below_k"`
	Failing      []uniqClass `json:"failing_classes"`
}

type uniqL struct {
	Attribute       string      `json:"attribute"`
	L               float64     `json:"l"`
	MinDistinct     int         `json:"min_distinct_l"`
	MinEntropy      float64     `json:"min_entropy_l"`
	FailingDistinct int         `json:"classes_failing_distinct"`
	FailingEntropy  int         `json:"classes_failing_entropy"`
	ClassesFailing  int         `json:"classes_failing"`
	Failing         []uniqClass `json:"failing_classes"`
}

type uniqT struct {
	Attribute    string      `json:"attribute"`
	T            float64     `json:"t"`
	Distance     string      `json:"distance"`
	MaxDistance  float64     `json:"max_distance"`
	ClassesAbove int         `json:"classes_above_t"`
	Failing      []uniqClass `json:"failing_classes"`
}

// uniquenessReport is the JSON document of `reid uniqueness`. Field names are a contract
// with users' scripts: add fields, never rename.
type uniquenessReport struct {
	Engine                    string         `json:"engine"`
	Sample                    uniqInput      `json:"sample"`
	Population                *uniqInput     `json:"population"`
	Keys                      []uniqKey      `json:"keys"`
	MissingKeys               string         `json:"missing_keys"` // "own category" (--missing keep) or "refused" (--missing error)
	Weights                   string         `json:"weights,omitempty"`
	SamplingFraction          *float64       `json:"sampling_fraction"`
	Model                     string         `json:"model"`
	ModelDefinition           string         `json:"model_definition"`
	Estimated                 bool           `json:"estimated"`
	Records                   int            `json:"records"`
	Classes                   int            `json:"classes"`
	SampleUniques             int            `json:"sample_uniques"`
	PopulationClasses         *int           `json:"population_classes"`
	PopulationUniques         *int           `json:"population_uniques"`
	SUandPU                   float64        `json:"su_and_pu"`
	PPUGivenSU                *float64       `json:"p_pu_given_su"`
	ExpectedReidentifications float64        `json:"expected_reidentifications"`
	ReidentificationRate      float64        `json:"reidentification_rate"`
	MaxRecordRisk             float64        `json:"max_record_risk"`
	KMin                      int            `json:"k_min"`
	SkinnerElliot             *float64       `json:"skinner_elliot_theta"`
	Estimates                 []uniqEstimate `json:"estimates"`
	KAnonymity                uniqK          `json:"k_anonymity"`
	LDiversity                []uniqL        `json:"l_diversity"`
	TCloseness                []uniqT        `json:"t_closeness"`
	Warnings                  []string       `json:"warnings,omitempty"`
}

func finiteOrNil(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}

func uniqClasses(fs []uniqueness.FailingClass, what string) []uniqClass {
	out := make([]uniqClass, 0, len(fs))
	for _, f := range fs {
		c := uniqClass{Class: f.Class, Key: make([]*string, len(f.Key)), Size: f.Size}
		for k := range f.Key {
			if !f.Missing[k] {
				c.Key[k] = &f.Key[k]
			}
		}
		switch what {
		case "l":
			c.Distinct, c.Entropy = &f.Distinct, &f.Entropy
		case "t":
			c.Distance = f.Distance
		}
		out = append(out, c)
	}
	return out
}

func (r *uniquenessReport) fill(res *uniqueness.Result) {
	c := res.Classes
	for k, name := range c.Keys {
		r.Keys = append(r.Keys, uniqKey{Name: name, Categories: c.Levels(k), Cuts: c.Cuts(k)})
	}
	if res.Pi > 0 {
		r.SamplingFraction = &res.Pi
	}
	p := res.Primary
	r.Model, r.ModelDefinition = p.Model, uniqueness.ModelDefinition(p.Model)
	r.Estimated = p.Model != uniqueness.ModelPopulation && p.Model != uniqueness.ModelSample
	r.Records, r.Classes, r.SampleUniques = res.Records, c.Len(), res.SampleUniques
	switch {
	case res.PopulationUniques >= 0:
		pc, pu := c.PopulationClasses, res.PopulationUniques
		r.PopulationClasses, r.PopulationUniques = &pc, &pu
	case p.Model == uniqueness.ModelSample:
		// The sample taken as the population: its uniques are the population's, as
		// su_and_pu and P(PU|SU) = 1 already say.
		pc, pu := c.Len(), res.SampleUniques
		r.PopulationClasses, r.PopulationUniques = &pc, &pu
	}
	r.SUandPU, r.PPUGivenSU = p.SUandPU, finiteOrNil(p.PPUgivenSU)
	r.ExpectedReidentifications, r.ReidentificationRate, r.MaxRecordRisk = p.ExpectedReidentifications, p.ReidentificationRate, p.MaxRisk
	r.KMin = res.KAnonymity.KMin
	r.SkinnerElliot = finiteOrNil(res.SkinnerElliot)
	for _, e := range res.Estimates {
		r.Estimates = append(r.Estimates, uniqEstimate{Model: e.Model, Definition: uniqueness.ModelDefinition(e.Model),
			ExpectedReidentifications: e.ExpectedReidentifications, ReidentificationRate: e.ReidentificationRate,
			MaxRecordRisk: e.MaxRisk, SUandPU: e.SUandPU, PPUGivenSU: finiteOrNil(e.PPUgivenSU), SUMatches: e.SUMatches})
	}
	ka := res.KAnonymity
	r.KAnonymity = uniqK{K: ka.K, KMin: ka.KMin, ClassesBelow: ka.ClassesBelow, RecordsBelow: ka.RecordsBelow,
		Failing: uniqClasses(ka.Failing, "k")}
	r.LDiversity, r.TCloseness = []uniqL{}, []uniqT{}
	for _, l := range res.LDiversity {
		r.LDiversity = append(r.LDiversity, uniqL{Attribute: l.Attribute, L: l.L, MinDistinct: l.MinDistinct, MinEntropy: l.MinEntropy,
			FailingDistinct: l.FailingDistinct, FailingEntropy: l.FailingEntropy, ClassesFailing: l.ClassesFailing, Failing: uniqClasses(l.Failing, "l")})
	}
	for _, t := range res.TCloseness {
		r.TCloseness = append(r.TCloseness, uniqT{Attribute: t.Attribute, T: t.T, Distance: t.Distance, MaxDistance: t.MaxDistance,
			ClassesAbove: t.ClassesAbove, Failing: uniqClasses(t.Failing, "t")})
	}
}

// recordRisks is the per-record table of --records-out.
func recordRisks(res *uniqueness.Result) *datasets.Table {
	c := res.Classes
	n := len(c.Of)
	rec, cls, f, risk := make([]float64, n), make([]float64, n), make([]float64, n), res.Primary.Risk
	var pop []float64
	if c.PopFreq != nil {
		pop = make([]float64, n)
	}
	for i, j := range c.Of {
		rec[i], cls[i], f[i] = float64(i+1), float64(j), float64(c.Freq[j])
		if pop != nil {
			pop[i] = float64(c.PopFreq[j])
		}
	}
	t := &datasets.Table{Source: "records", Columns: []datasets.Column{
		{Name: "record", Kind: datasets.Numeric, Values: rec},
		{Name: "class", Kind: datasets.Numeric, Values: cls},
		{Name: "f", Kind: datasets.Numeric, Values: f},
	}}
	if pop != nil {
		t.Columns = append(t.Columns, datasets.Column{Name: "F", Kind: datasets.Numeric, Values: pop})
	}
	t.Columns = append(t.Columns, datasets.Column{Name: "risk", Kind: datasets.Numeric, Values: risk})
	return t
}

func fmtOpt(v *float64, format string) string {
	if v == nil {
		return "-"
	}
	return fmt.Sprintf(format, *v)
}

func printUniqueness(w io.Writer, r *uniquenessReport) error {
	fmt.Fprintf(w, "sample      %s: %d records\n", r.Sample.File, r.Sample.Records)
	if r.Population != nil {
		fmt.Fprintf(w, "population  %s: %d records\n", r.Population.File, r.Population.Records)
	}
	var keys []string
	for _, k := range r.Keys {
		keys = append(keys, fmt.Sprintf("%s (%d)", k.Name, k.Categories))
	}
	fmt.Fprintf(w, "keys        %s", strings.Join(keys, ", "))
	if r.MissingKeys == "own category" { // under --missing error there are none
		fmt.Fprint(w, "; missing values are a category of their own")
	}
	for _, warning := range r.Warnings {
		fmt.Fprintf(w, "\nwarning: %s", warning)
	}
	fmt.Fprintln(w)
	switch {
	case r.Weights != "":
		fmt.Fprintf(w, "weights     %s (sampling fraction n/sum(w) = %.6g)\n", r.Weights, *r.SamplingFraction)
	case r.SamplingFraction != nil:
		fmt.Fprintf(w, "fraction    %.6g\n", *r.SamplingFraction)
	}
	fmt.Fprintf(w, "model       %s: %s\n\n", r.Model, r.ModelDefinition)

	est := ""
	if r.Estimated {
		est = " (expected)"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "key classes\t%d\n", r.Classes)
	fmt.Fprintf(tw, "sample uniques\t%d\n", r.SampleUniques)
	if r.PopulationUniques != nil {
		fmt.Fprintf(tw, "population uniques\t%d (of %d population classes)\n", *r.PopulationUniques, *r.PopulationClasses)
	} else {
		fmt.Fprintf(tw, "population uniques\t- (no population file)\n")
	}
	fmt.Fprintf(tw, "sample uniques that are population uniques\t%.6g%s\n", r.SUandPU, est)
	fmt.Fprintf(tw, "P(PU|SU)\t%s%s\n", fmtOpt(r.PPUGivenSU, "%.6g"), est)
	fmt.Fprintf(tw, "expected re-identifications\t%.6g\n", r.ExpectedReidentifications)
	fmt.Fprintf(tw, "re-identification rate\t%.6g (%.4f %%)\n", r.ReidentificationRate, 100*r.ReidentificationRate)
	fmt.Fprintf(tw, "max record risk\t%.6g\n", r.MaxRecordRisk)
	if r.SamplingFraction != nil {
		fmt.Fprintf(tw, "Skinner-Elliot P(correct match | unique match)\t%s\n", fmtOpt(r.SkinnerElliot, "%.6g"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Estimates) > 1 {
		fmt.Fprintln(w, "\nall estimates:")
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "  model\texpected re-identifications\trate\tmax risk\tSU that are PU\tP(PU|SU)")
		for _, e := range r.Estimates {
			fmt.Fprintf(tw, "  %s\t%.6g\t%.6g\t%.6g\t%.6g\t%s\n", e.Model, e.ExpectedReidentifications, e.ReidentificationRate,
				e.MaxRecordRisk, e.SUandPU, fmtOpt(e.PPUGivenSU, "%.6g"))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}

	var names []string
	for _, k := range r.Keys {
		names = append(names, cell(k.Name))
	}
	header := strings.Join(names, "\t")
	row := func(c uniqClass) string {
		shown := make([]string, len(c.Key))
		for k, v := range c.Key {
			switch {
			case v == nil:
				shown[k] = uniqueness.MissingLabel
			case *v == uniqueness.MissingLabel || *v == "" || strings.HasPrefix(*v, `"`):
				// A label, quoted where it could read as the missing category, an empty
				// cell, or another quoted label.
				shown[k] = strconv.Quote(*v)
			default:
				shown[k] = cell(*v)
			}
		}
		return strings.Join(shown, "\t")
	}
	ka := r.KAnonymity
	fmt.Fprintf(w, "\nk-anonymity (k = %d): smallest class %d; %s (%s) below k\n", ka.K, ka.KMin, counted(ka.ClassesBelow, "class"), counted(ka.RecordsBelow, "record"))
	if len(ka.Failing) > 0 {
		tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "  size\t%s\n", header)
		for _, c := range ka.Failing {
			fmt.Fprintf(tw, "  %d\t%s\n", c.Size, row(c))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		more(w, len(ka.Failing), ka.ClassesBelow)
	}
	for _, l := range r.LDiversity {
		fmt.Fprintf(w, "\nl-diversity of %s (l = %g): smallest distinct l %d, smallest entropy l %.4g; %s distinct, %d entropy\n",
			cell(l.Attribute), l.L, l.MinDistinct, l.MinEntropy, counted(l.FailingDistinct, "class")+plural(l.FailingDistinct, " fails", " fail"), l.FailingEntropy)
		if len(l.Failing) > 0 {
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  distinct\tentropy\tsize\t%s\n", header)
			for _, c := range l.Failing {
				fmt.Fprintf(tw, "  %d\t%.4g\t%d\t%s\n", *c.Distinct, *c.Entropy, c.Size, row(c))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			more(w, len(l.Failing), l.ClassesFailing)
		}
	}
	for _, t := range r.TCloseness {
		fmt.Fprintf(w, "\nt-closeness of %s (t = %g, %s distance): largest distance %.4g; %s above t\n",
			cell(t.Attribute), t.T, t.Distance, t.MaxDistance, counted(t.ClassesAbove, "class"))
		if len(t.Failing) > 0 {
			tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  distance\tsize\t%s\n", header)
			for _, c := range t.Failing {
				fmt.Fprintf(tw, "  %.4g\t%d\t%s\n", c.Distance, c.Size, row(c))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			more(w, len(t.Failing), t.ClassesAbove)
		}
	}
	return nil
}

func more(w io.Writer, listed, total int) {
	if total > listed {
		fmt.Fprintf(w, "  ... %d more (--list 0 lists all)\n", total-listed)
	}
}

// cutBin splits a --bins item NAME:SPEC: after a name quoted as in splitList (a name
// holding a comma or a colon), else at the last colon (a spec holds none, a name may:
// t:1:q2 bins the key "t:1"); the name is trimmed as a header's. ok is false without a
// colon.
func cutBin(b string) (name, spec string, ok bool, err error) {
	t := strings.TrimSpace(b)
	if strings.HasPrefix(t, `"`) {
		name, after, err := unquoteName("bins", t)
		if err != nil {
			return "", "", false, err
		}
		spec, ok := strings.CutPrefix(strings.TrimSpace(after), ":")
		if !ok {
			return "", "", false, usagef("--bins %q: the quoted name %q is not followed by :C1,C2,... or :qN", b, name)
		}
		return strings.TrimSpace(name), strings.TrimSpace(spec), true, nil
	}
	cut := strings.LastIndex(t, ":")
	if cut < 0 {
		return t, "", false, nil
	}
	return strings.TrimSpace(t[:cut]), strings.TrimSpace(t[cut+1:]), true, nil
}
