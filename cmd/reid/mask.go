package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/datasets/mask"
)

func maskCommand() *command {
	return &command{
		Name:      "mask",
		UsageLine: "reid mask --method mdav|indrank|noise|corrnoise|rankswap|pram [--k K] [--p P] [--seed S] [--attrs A,B] --out FILE INPUT",
		Short:     "make a masked version of a file (benchmark files)",
		Long: `
Mask reads INPUT (CSV, Arrow IPC/Feather or Parquet) and writes a masked version to
--out, in the format of its extension. Columns not in --attrs are copied unchanged: from
CSV to CSV as the same text ("007" stays 007, "1.50" stays 1.50), otherwise as values
(numbers as float64).

Methods (numeric attributes unless said otherwise; --attrs defaults to every numeric
column, or every categorical column for pram):
  mdav       multivariate MDAV microaggregation, groups of k..2k-1 records formed on the
             attributes' z-scores (sample sd), as sdcMicro's, each record replaced by
             its group's mean (--k)
  indrank    individual-ranking microaggregation, per attribute (--k)
  noise      additive noise, sd = p % of each attribute's sd (--p, --seed)
  corrnoise  correlated noise, covariance = p % of the data's covariance (--p, --seed)
  rankswap   rank swapping, window p % of the number of records (--p, --seed)
  pram       PRAM on categorical attributes: each value kept with probability 1-p/100,
             otherwise changed to one of the other categories uniformly (--p, --seed),
             or a transition matrix from --matrix FILE (JSON array of rows, a row and a
             column per category in bytewise sorted order of the labels: 1, 10, 2; row i
             gives the chances of each category for a value of the i-th; a row summing
             to 1 within 1e-6, as one rounded to six decimals does, is divided by its sum)

--k (default 3) must be at least 2. --p has no default: it is required (except for pram
with --matrix) and must be above 0, at most 100 for rankswap and pram. k = 1 or p = 0
would write the input unchanged, as would a rankswap p whose window is under one rank
or an identity --matrix: all are refused. So is a masking that changed no value after all
(noise of a p so small that it is lost in rounding, PRAM whose draws kept every value of
a small file): exit 2, no file. Attributes left unchanged while others changed are named
in the summary's warnings.
--k goes only with mdav and indrank, --p only with the other methods.

With --missing keep, noise, rankswap, indrank and pram mask each attribute's present
values as if the records missing there were absent (sd, ranks, window and groups come
from the present values) and leave missing cells missing; mdav and corrnoise combine
attributes within records and refuse a missing value in the attributes they mask.
--missing applies to the attributes masked: the other columns are copied as they are,
missing cells too, under either policy.

A CSV column whose labels are mostly numbers is read as numeric: after pram on labels
such as 0, 1, x1, read the output with --types COLUMN:categorical.

The same input, method, parameters and seed always give the same output file.
A summary of what was done is printed on stdout (--format text|json).`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			method := fs.String("method", "", "masking `method`: mdav, indrank, noise, corrnoise, rankswap or pram")
			k := fs.Int("k", 3, "group size for mdav and indrank")
			p := fs.Float64("p", 0, "percentage parameter, required for noise, corrnoise, rankswap and pram (no default)")
			seed := fs.Uint64("seed", 1, "random seed (noise, corrnoise, rankswap, pram; mdav and indrank draw nothing)")
			attrs := fs.String("attrs", "", "comma-separated `attributes` to mask (default: see above); a name holding a comma in double quotes")
			out := fs.String("out", "", "output `file` (.csv/.txt, .arrow/.feather/.ipc, .arrows for an IPC stream, .parquet/.pq)")
			matrix := fs.String("matrix", "", "PRAM transition matrix `file` (JSON)")
			format := fs.String("format", "text", "summary format: text or json")
			load := addLoadFlags(fs)
			return func(args []string) error {
				if len(args) != 1 {
					return usagef("mask needs exactly one INPUT file, got %d", len(args))
				}
				if *out == "" {
					return usagef("--out is required")
				}
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				if _, err := datasets.OutputFormatOf(*out); err != nil {
					return err
				}
				if err := checkOutFiles(append(slices.Clone(args), *matrix), outPath{"out", *out}); err != nil {
					return err
				}
				given := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
				attrList, err := splitList("attrs", *attrs)
				if err != nil {
					return err
				}
				m := maskJob{method: *method, k: *k, p: *p, seed: *seed, attrs: attrList, matrixFile: *matrix, given: given}
				if err := m.check(); err != nil {
					return err
				}
				opts, err := load.options()
				if err != nil {
					return err
				}
				// The columns left out of --attrs are copied: the policy is the masked
				// attributes' only, checked once apply knows them.
				m.missingError = opts.Missing == datasets.MissingError
				opts.Missing = datasets.MissingKeep
				tab, err := datasets.Load(args[0], opts)
				if err != nil {
					return err
				}
				if f, _ := datasets.OutputFormatOf(*out); f == datasets.FormatCSV {
					// Before the work: an Arrow or Parquet category "" or NA, which a CSV
					// would read back as missing (the writer refuses it too).
					if err := datasets.CheckCSVLabels(tab, *out); err != nil {
						return err
					}
				}
				summary, err := m.apply(tab)
				if err != nil {
					return err
				}
				if err := finiteMasked(args[0], tab, summary.Attributes); err != nil {
					return err
				}
				if err := writeHeld(e, []string{*out}, func() error { return writeMasked(*out, args[0], tab, summary.Attributes) }); err != nil {
					return err
				}
				summary.Input, summary.Output = pathText(args[0]), pathText(*out)
				if err := printMaskSummary(e, summary, *format); err != nil {
					return fmt.Errorf("%s is written, but its summary could not be printed: %w", *out, err)
				}
				return nil
			}
		},
	}
}

// finiteMasked refuses a masking that made a value that is not finite (noise with --p
// 1e308 wrote a file of ±Inf, which every reader, reid's too, then refuses): an input
// error naming the column and the row (1-based), before anything is written.
func finiteMasked(input string, tab *datasets.Table, masked []string) error {
	for _, name := range masked {
		c := tab.Column(name)
		if c == nil || c.Kind != datasets.Numeric {
			continue
		}
		for i, v := range c.Values {
			if !c.Missing(i) && (math.IsInf(v, 0) || math.IsNaN(v)) {
				return asInput(&datasets.InputError{File: input, Column: name, Row: i + 1,
					Err: fmt.Errorf("the masking made a value that is not finite (%v): its parameters are too large for these values", v)})
			}
		}
	}
	return nil
}

// writeMasked writes the masked table tab to output. From CSV to CSV it copies the input
// with only the masked columns' fields replaced, so that the other columns keep their
// text (the loader keeps numbers as float64, which would write "007" as 7, "1.50" as 1.5
// and a missing "NA" as an empty field); otherwise it writes tab in output's format.
func writeMasked(output, input string, tab *datasets.Table, masked []string) error {
	inFormat, err := datasets.FormatOf(input)
	if err != nil {
		return err
	}
	outFormat, err := datasets.OutputFormatOf(output)
	if err != nil {
		return err
	}
	if inFormat == datasets.FormatCSV && outFormat == datasets.FormatCSV {
		return datasets.ReplaceCSVColumns(output, input, tab, masked)
	}
	return datasets.Write(output, tab, datasets.FormatAuto)
}

// loadFlags are the flags every command that reads data files shares.
type loadFlags struct {
	types   *string
	missing *string
}

func addLoadFlags(fs *flag.FlagSet) *loadFlags {
	return &loadFlags{
		types:   fs.String("types", "", "type overrides, e.g. `age:categorical,code:numeric` (a name holding a comma in double quotes: \"a,b\":numeric)"),
		missing: fs.String("missing", "error", "missing-value `policy`: error or keep"),
	}
}

func (l *loadFlags) options() (datasets.LoadOptions, error) {
	var opts datasets.LoadOptions
	switch *l.missing {
	case "error":
		opts.Missing = datasets.MissingError
	case "keep":
		opts.Missing = datasets.MissingKeep
	default:
		return opts, usagef("--missing must be error or keep, not %q", *l.missing)
	}
	types, err := parseTypes(*l.types)
	opts.Types = types
	return opts, err
}

// parseTypes reads --types: name:type entries, nil for none.
func parseTypes(value string) (map[string]datasets.Kind, error) {
	items, err := splitItems("types", value, true)
	if err != nil {
		return nil, err
	}
	var types map[string]datasets.Kind
	for _, item := range items {
		// At the last colon: a type has none, a column name may (a:b:categorical).
		cut := strings.LastIndex(item, ":")
		if cut < 0 {
			return nil, usagef("--types entry %q is not name:type", item)
		}
		name, kind := strings.TrimSpace(item[:cut]), strings.TrimSpace(item[cut+1:])
		if name == "" {
			return nil, usagef("--types entry %q has an empty name", item)
		}
		k, err := datasets.ParseKind(kind)
		if err != nil {
			return nil, usagef("--types: %v", err)
		}
		if types == nil {
			types = map[string]datasets.Kind{}
		}
		if _, twice := types[name]; twice {
			// The last one won: AGI:categorical,AGI:numeric read AGI as numbers.
			return nil, usagef("--types names %q twice", name)
		}
		types[name] = k
	}
	return types, nil
}

// checkNameList refuses an empty name or a name given twice in the list of --flag, as a
// usage error: "a,b," said "no such column" without a name, and "a,a" blamed the file
// ("column named more than once").
func checkNameList(flag string, names []string) error {
	for i, n := range names {
		if n == "" {
			return usagef("--%s has an empty name", flag)
		}
		if slices.Contains(names[:i], n) {
			return usagef("--%s names %q twice", flag, n)
		}
	}
	return nil
}

// splitList reads the comma-separated list of column names of the flag --flag as the
// loader reads a header: trimmed, and bytes that are not UTF-8 written \xNN, so that a
// Latin-1 name typed as its bytes finds its column. A name holding a comma is quoted as
// in a CSV header ("income, annual"; a quote inside doubled), and after its closing quote
// only blanks or the next comma may follow. An unclosed quote or other text after one is
// a usage error, as a CSV header's would be an input error: repaired, it could name
// another column ("a"b read as ab).
func splitList(flag, s string) ([]string, error) {
	return splitItems(flag, s, false)
}

// splitItems is splitList, for NAME:VALUE items too when withValue: a colon and a value
// may follow a closing quote ("a,b":numeric for --types), and stay with the name.
func splitItems(flag, s string, withValue bool) ([]string, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []string
	for rest, more := s, true; more; {
		var item string
		if t := strings.TrimLeft(rest, " \t"); strings.HasPrefix(t, `"`) {
			name, after, err := unquoteName(flag, t)
			if err != nil {
				return nil, err
			}
			var value string
			value, rest, more = strings.Cut(after, ",")
			switch v := strings.TrimSpace(value); {
			case v == "":
			case withValue && strings.HasPrefix(v, ":"):
				// A NAME:VALUE item's value holds no comma (a type, a bin spec of one item).
				name += v
			default:
				return nil, usagef("--%s: %q follows the quoted name %q (quote a name whole: \"a,b\")", flag, v, name)
			}
			item = name
		} else {
			item, rest, more = strings.Cut(rest, ",")
		}
		out = append(out, datasets.LabelText(strings.TrimSpace(item)))
	}
	return out, nil
}

// unquoteName reads the double-quoted name at the start of s (a quote inside doubled)
// and returns it with the text after its closing quote; an unclosed quote is a usage
// error of the flag --flag.
func unquoteName(flag, s string) (name, after string, err error) {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch {
		case s[i] == '"' && i+1 < len(s) && s[i+1] == '"':
			b.WriteByte('"')
			i++
		case s[i] == '"':
			return b.String(), s[i+1:], nil
		default:
			b.WriteByte(s[i])
		}
	}
	return "", "", usagef("--%s: the quote of %q is not closed (a quote inside a quoted name is doubled: \"say \"\"hi\"\"\")", flag, s)
}

type maskJob struct {
	method     string
	k          int
	p          float64
	seed       uint64
	attrs      []string
	matrixFile string
	// missingError refuses a missing value in the attributes to mask (--missing error);
	// the other columns may hold any.
	missingError bool
	// given holds the names of the flags set on the command line, so that check can tell
	// a required --p left out from one given; nil for jobs built in code (demo, bench).
	given map[string]bool
}

// maskSummary is what `reid mask` reports; its JSON field names are stable.
type maskSummary struct {
	Method string  `json:"method"`
	K      int     `json:"k,omitempty"`
	P      float64 `json:"p,omitempty"`
	Seed   uint64  `json:"seed,omitempty"`
	// Matrix is PRAM's --matrix file, when it replaced --p.
	Matrix     string   `json:"matrix,omitempty"`
	Attributes []string `json:"attributes"`
	Records    int      `json:"records"`
	Input      pathText `json:"input"`
	Output     pathText `json:"output"`
	// Warnings name the attributes of which the masking changed no value (noise whose sd
	// is below the values' precision, PRAM that kept every value by chance).
	Warnings []string `json:"warnings,omitempty"`
}

// check validates the method and its parameters before the input is read. Every masking
// method has a parameter value at which it changes nothing (k = 1, p = 0): those are
// refused, and so is a missing --p, so that a "masked" file is never a copy of the input.
func (m *maskJob) check() error {
	if err := checkNameList("attrs", m.attrs); err != nil {
		return err
	}
	switch m.method {
	case "mdav", "indrank":
		if m.k < 2 {
			return usagef("--k must be at least 2 for %s, got %d (k = 1 puts every record in its own group and changes nothing)", m.method, m.k)
		}
		if m.given["p"] {
			return usagef("--p does not apply to %s, which takes --k", m.method)
		}
	case "noise", "corrnoise", "rankswap", "pram":
		if m.given["k"] {
			return usagef("--k does not apply to %s, which takes --p", m.method)
		}
		if m.method == "pram" && m.matrixFile != "" {
			if m.given["p"] {
				return usagef("--p and --matrix are alternatives for pram: give one")
			}
			break
		}
		if err := m.checkP(); err != nil {
			return err
		}
	case "":
		return usagef("--method is required")
	default:
		return usagef("unknown --method %q (mdav, indrank, noise, corrnoise, rankswap, pram)", m.method)
	}
	if m.matrixFile != "" && m.method != "pram" {
		return usagef("--matrix goes with --method pram")
	}
	return nil
}

// checkP validates --p for the percentage methods, saying which values are valid.
func (m *maskJob) checkP() error {
	upTo100 := m.method == "rankswap" || m.method == "pram"
	want := map[string]string{
		"noise":     "a percentage > 0 of each attribute's sd, e.g. --p 10",
		"corrnoise": "a percentage > 0 of the data's covariance, e.g. --p 10",
		"rankswap":  "a percentage of the number of records, > 0 and ≤ 100, e.g. --p 5",
		"pram":      "the percentage chance that a value is changed, > 0 and ≤ 100, e.g. --p 10 (or --matrix FILE)",
	}[m.method]
	if m.given != nil && !m.given["p"] {
		return usagef("--method %s needs --p: %s", m.method, want)
	}
	if !(m.p > 0) || math.IsInf(m.p, 0) || (upTo100 && m.p > 100) {
		return usagef("--p %v is not valid for %s: want %s (p = 0 changes nothing)", m.p, m.method, want)
	}
	return nil
}

// rng returns the method's generator; the second PCG word is fixed so that --seed alone
// determines the stream.
func (m *maskJob) rng() *rand.Rand { return rand.New(rand.NewPCG(m.seed, 0x726569642d6d61)) }

// apply masks tab in place (its masked columns are replaced by new slices).
func (m *maskJob) apply(tab *datasets.Table) (_ *maskSummary, err error) {
	want := datasets.Numeric
	if m.method == "pram" {
		want = datasets.Categorical
	}
	attrs := m.attrs
	if attrs == nil {
		for _, c := range tab.Columns {
			if c.Kind == want {
				attrs = append(attrs, c.Name)
			}
		}
		if len(attrs) == 0 {
			hint := ""
			if want == datasets.Categorical {
				hint = " (--types NAME:categorical reads a column of codes as categories)"
			}
			return nil, &datasets.InputError{File: tab.Source, Err: fmt.Errorf("no %s column to mask%s", want, hint)}
		}
	}
	sel, err := tab.Select(attrs)
	if err != nil {
		return nil, err
	}
	for _, c := range sel.Columns {
		if c.Kind != want {
			hint := ""
			if want == datasets.Categorical {
				// A CSV column of codes reads as numbers: --types says what it is.
				hint = fmt.Sprintf(" (--types %s:categorical reads it as categories)", c.Name)
			}
			return nil, &datasets.InputError{File: tab.Source, Column: c.Name, Err: fmt.Errorf("%s masks %s columns, this one is %s%s", m.method, want, c.Kind, hint)}
		}
	}
	wholeRecord := m.method == "mdav" || m.method == "corrnoise"
	if i, name, ok := firstMissing(sel, sel.Rows()); ok && m.missingError && !wholeRecord {
		return nil, &datasets.InputError{File: tab.Source, Column: name, Row: i + 1, Err: datasets.ErrMissingValue,
			Detail: "in a column to mask (--missing keep masks the present values)"}
	}
	s := &maskSummary{Method: m.method, Attributes: attrs, Records: tab.Rows()}
	before := snapshot(sel)
	defer func() {
		if err == nil {
			err = m.unchanged(s, tab, before)
		}
	}()
	if m.method == "mdav" || m.method == "indrank" {
		s.K = m.k
	} else {
		s.P, s.Seed = m.p, m.seed
	}
	if m.method == "pram" {
		s.Matrix = m.matrixFile
		return s, m.pram(tab, attrs)
	}
	if m.method == "noise" || m.method == "rankswap" || m.method == "indrank" {
		rng := m.rng()
		for _, name := range attrs {
			if err := m.maskColumn(tab.Source, tab.Column(name), rng); err != nil {
				return nil, err
			}
		}
		return s, nil
	}
	if i, name, ok := firstMissing(sel, sel.Rows()); ok {
		return nil, &datasets.InputError{File: tab.Source, Column: name, Row: i + 1, Err: &wholeRecordError{m.method}}
	}
	data, err := sel.NumericMatrix()
	if err != nil {
		return nil, err
	}
	var masked [][]float64
	switch m.method {
	case "mdav":
		if m.k > tab.Rows() {
			return nil, &datasets.InputError{File: tab.Source, Err: fmt.Errorf(
				"--k %d is more than the file's %d records: mdav makes groups of at least k records", m.k, tab.Rows())}
		}
		masked, _, err = mask.MDAV(data, m.k)
	case "corrnoise":
		masked, err = mask.CorrelatedNoise(data, m.p, m.rng())
	}
	if err != nil {
		return nil, &datasets.InputError{File: tab.Source, Err: err}
	}
	for j, name := range attrs {
		tab.Column(name).Values = masked[j]
	}
	return s, nil
}

// wholeRecordError is the missing value met by a method that combines the attributes of a
// record (MDAV's distances, correlated noise's covariance), for which masking only the
// present values is not defined.
type wholeRecordError struct{ method string }

func (e *wholeRecordError) Error() string {
	return "missing value, which " + e.method + " cannot mask (it combines all the attributes of a record; noise, rankswap, indrank and pram can, or leave the column out of --attrs)"
}

func (e *wholeRecordError) Unwrap() error { return datasets.ErrMissingValue }

// present returns the rows of c that are not missing, or nil when none is missing.
func present(c *datasets.Column) []int {
	if !c.HasMissing() {
		return nil
	}
	var rows []int
	for i := 0; i < c.Len(); i++ {
		if !c.Missing(i) {
			rows = append(rows, i)
		}
	}
	return rows
}

// maskColumn masks one numeric column with a univariate method (noise, rankswap, indrank)
// applied to its present values only, as if the records missing there were absent: the
// noise sd, the ranks and the swap window, and the groups all come from the present
// values, and missing cells stay missing. Without missing values this is the method on the
// whole column, and as the methods draw column after column, masking the columns in turn
// with one rng gives exactly the output of the method on the whole matrix.
func (m *maskJob) maskColumn(file string, c *datasets.Column, rng *rand.Rand) error {
	rows := present(c)
	values := gather(c.Values, rows)
	if len(values) < 2 {
		// One value present (--missing keep): no univariate masking changes it, and the
		// noise has no sd to scale with. unchanged names the column, in a warning or, if
		// nothing else changed, in the error, as for any column of one value.
		return nil
	}
	if m.method == "indrank" && m.k > len(values) {
		what := "values"
		if rows != nil {
			what = "present values (--missing keep masks those only)"
		}
		return &datasets.InputError{File: file, Column: c.Name, Err: fmt.Errorf(
			"--k %d is more than the column's %d %s: indrank makes groups of at least k values", m.k, len(values), what)}
	}
	in := [][]float64{values}
	var out [][]float64
	var err error
	switch m.method {
	case "noise":
		out, err = mask.AdditiveNoise(in, m.p, rng)
	case "indrank":
		out, err = mask.IndividualRanking(in, m.k)
	case "rankswap":
		// A window under one rank swaps nothing: refuse rather than copy the column.
		if n := len(values); n >= 2 && mask.RankSwapWindow(m.p, n) < 1 {
			return &datasets.InputError{File: file, Column: c.Name, Err: fmt.Errorf(
				"rankswap p = %g gives a window of 0 ranks on %d values, which swaps nothing; p must be at least %g here", m.p, n, minRankSwapP(n))}
		}
		out, err = mask.RankSwap(in, m.p, rng)
	default:
		return fmt.Errorf("maskColumn: %s is not a univariate method", m.method)
	}
	if err != nil {
		return &datasets.InputError{File: file, Column: c.Name, Err: err}
	}
	c.Values = scatter(out[0], rows, len(c.Values))
	return nil
}

// gather returns the entries of xs at rows, or xs itself when rows is nil (nothing
// missing).
func gather[T any](xs []T, rows []int) []T {
	if rows == nil {
		return xs
	}
	out := make([]T, len(rows))
	for r, i := range rows {
		out[r] = xs[i]
	}
	return out
}

// scatter is gather's inverse: a column of n entries with the values at rows and zero
// elsewhere (missing cells hold 0, as Column requires).
func scatter[T any](values []T, rows []int, n int) []T {
	if rows == nil {
		return values
	}
	out := make([]T, n)
	for r, i := range rows {
		out[i] = values[r]
	}
	return out
}

// minRankSwapP is the smallest --p, rounded up to hundredths, whose rank-swapping window
// ⌊p·n/100⌋ is at least one rank on n values.
func minRankSwapP(n int) float64 {
	p := math.Ceil(10000/float64(n)) / 100
	for mask.RankSwapWindow(p, n) < 1 { // rounding in p·n/100
		p += 0.01
	}
	return p
}

// unchanged compares each attribute of s with its copy in before, taken before the
// masking: the attributes left equal, value for value (numbers within unchangedTol of
// their column's sd), get a warning in s, and when none
// changed at all the file written would be the input called masked: an error then. A
// deterministic no-op (p = 0, k = 1, an identity PRAM matrix) is refused before the
// work; this is what no parameter check sees: noise of 1e-300 % of the sd, lost in
// rounding, PRAM's draws keeping every value of a small file, microaggregation of
// records already in groups of equal values.
func (m *maskJob) unchanged(s *maskSummary, tab *datasets.Table, before []datasets.Column) error {
	var same []string
	oneValue := true // every unchanged attribute has a single value present
	for x, name := range s.Attributes {
		c, b := tab.Column(name), &before[x]
		// A number counts as changed when it moved by more than unchangedTol of its
		// column's scale: noise of 1e-300 % of the sd left every value but the zeros
		// as it was, and turned the zeros into ±1e-303 (a tester's EIA file passed as
		// masked, re-identified as the original is).
		scale := 0.0
		if c.Kind == datasets.Numeric {
			_, scale, _ = columnMeanSD(b)
		}
		equal := true
		for i := 0; equal && i < tab.Rows(); i++ {
			switch {
			case c.Missing(i): // missing cells stay missing
			case c.Kind == datasets.Numeric:
				equal = math.Abs(c.Values[i]-b.Values[i]) <= unchangedTol*max(scale, math.Abs(b.Values[i]))
			default:
				equal = c.Levels[c.Codes[i]] == b.Levels[b.Codes[i]]
			}
		}
		if equal {
			same = append(same, strconv.Quote(name))
			oneValue = oneValue && (c.Kind == datasets.Numeric && scale == 0 || c.Kind != datasets.Numeric && len(b.Levels) < 2)
		}
	}
	if len(same) == 0 {
		return nil
	}
	advice := "a larger --p"
	switch {
	case oneValue && m.method == "pram":
		advice = "at most one category besides missing values: pram has no other category to change a value to, leave it out of --attrs"
	case oneValue:
		// Under --missing keep a column of one value besides missing ones loads; no
		// parameter changes it (the loader refuses it as constant otherwise).
		advice = "one value besides missing ones: no masking changes it, leave it out of --attrs"
	case m.method == "mdav", m.method == "indrank":
		advice = "a larger --k (the records are in groups of equal values already)"
	case m.method == "pram":
		advice = "a larger --p or another --seed"
	}
	if len(same) == len(s.Attributes) {
		return &datasets.InputError{File: tab.Source, Err: fmt.Errorf("%s changed no value of %s: the output would be the input; %s", m.method, strings.Join(same, ", "), advice)}
	}
	s.Warnings = append(s.Warnings, fmt.Sprintf("%s changed no value of %s: written as they were (%s)", m.method, strings.Join(same, ", "), advice))
	return nil
}

// unchangedTol is the share of a column's scale (its sd, or the value's magnitude when
// larger) below which a masked number counts as the value it was: rounding's order,
// 1e-12, far below any masking that protects.
const unchangedTol = 1e-12

// snapshot copies the values and codes of t's columns (the methods write them in place
// or replace them).
func snapshot(t *datasets.Table) []datasets.Column {
	cols := make([]datasets.Column, len(t.Columns))
	for j, c := range t.Columns {
		cols[j] = datasets.Column{Name: c.Name, Kind: c.Kind, Values: slices.Clone(c.Values),
			Codes: slices.Clone(c.Codes), Levels: slices.Clone(c.Levels), Valid: slices.Clone(c.Valid)}
	}
	return cols
}

// pram masks each categorical attribute's present codes, one draw per present record in
// row order; missing cells stay missing (PRAM changes each value independently, so the
// others are masked as if the missing records were absent).
func (m *maskJob) pram(tab *datasets.Table, attrs []string) error {
	var given *mat.Dense
	if m.matrixFile != "" {
		b, err := os.ReadFile(m.matrixFile)
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			// "nosuch.json: no such file or directory", as the data files' errors read.
			return &datasets.InputError{File: m.matrixFile, Err: pe.Err}
		} else if err != nil {
			return err
		}
		var cells [][]*float64 // pointers: a null entry is an error, not 0
		if err := json.Unmarshal(b, &cells); err != nil {
			return &datasets.InputError{File: m.matrixFile, Err: fmt.Errorf("not a JSON array of rows of numbers, such as [[0.9, 0.1], [0.2, 0.8]]: %v", err)}
		}
		if len(cells) == 0 {
			return &datasets.InputError{File: m.matrixFile, Err: errors.New("the matrix is empty: want a row and a column per category, such as [[0.9, 0.1], [0.2, 0.8]]")}
		}
		// mask.CheckPRAMMatrix's checks, one pass, in the file's rows counted from 1 (it
		// counts from 0) and with nulls refused (json reads them as 0).
		rows := make([][]float64, len(cells))
		for i, r := range cells {
			at := func(err error) error { return &datasets.InputError{File: m.matrixFile, Row: i + 1, Err: err} }
			if len(r) != len(cells[0]) {
				return at(fmt.Errorf("the row has %d entries, the first %d: every row has one per category", len(r), len(cells[0])))
			}
			sum := 0.0
			for j, v := range r {
				switch {
				case v == nil:
					return at(fmt.Errorf("entry %d is null: a probability is a number", j+1))
				case *v < 0:
					return at(fmt.Errorf("entry %d is %v: a probability is at least 0", j+1, *v))
				}
				rows[i] = append(rows[i], *v)
				sum += *v
			}
			if math.Abs(sum-1) > 1e-6 {
				return at(fmt.Errorf("the row sums to %v: a row holds the chances of each category and sums to 1", sum))
			}
			// Rounded to six decimals, [1/3, 1/3, 1/3] sums to 0.999999 (a tester's):
			// within 1e-6 the row is made to sum to 1.
			for j := range rows[i] {
				rows[i][j] /= sum
			}
		}
		if len(rows[0]) != len(rows) {
			return &datasets.InputError{File: m.matrixFile, Err: fmt.Errorf("the matrix is %d×%d: it must be square, a row and a column per category", len(rows), len(rows[0]))}
		}
		given = mat.NewDense(len(rows), len(rows), nil)
		for i, r := range rows {
			given.SetRow(i, r)
		}
		if mat.Equal(given, eye(len(rows))) {
			return &datasets.InputError{File: m.matrixFile, Err: errors.New("the identity matrix keeps every category: the output would be the input")}
		}
	}
	rng := m.rng()
	for _, name := range attrs {
		c := tab.Column(name)
		if len(c.Levels) < 2 {
			// No other category to change a value to, whatever the matrix: left as it
			// is, and named by unchanged (a warning, or the error when nothing else
			// changed), as the numeric methods leave a column of one value.
			continue
		}
		P := given
		if P == nil {
			var err error
			if P, err = mask.UniformPRAMMatrix(len(c.Levels), m.p/100); err != nil {
				return &datasets.InputError{File: tab.Source, Column: name, Err: err}
			}
		} else if r, _ := P.Dims(); r != len(c.Levels) {
			return &datasets.InputError{File: m.matrixFile, Column: name, Err: fmt.Errorf("matrix is %d×%d but the column has %d categories", r, r, len(c.Levels))}
		} else {
			P = byCodes(given, c.Levels)
		}
		rows := present(c)
		out, err := mask.PRAM(gather(c.Codes, rows), P, rng)
		if err != nil {
			return &datasets.InputError{File: tab.Source, Column: name, Err: err}
		}
		c.Codes = scatter(out, rows, len(c.Codes))
	}
	return nil
}

// eye returns the n×n identity matrix.
func eye(n int) *mat.Dense {
	d := mat.NewDense(n, n, nil)
	for i := range n {
		d.Set(i, i, 1)
	}
	return d
}

// byCodes returns the --matrix P, whose rows and columns are the categories in bytewise
// sorted order of their labels (R's order of a text factor's levels in the C locale; codes
// 1, 2, 10 sort as 1, 10, 2), indexed by the
// column's codes instead, which follow the order the categories first appear in the file:
// one matrix meant other transitions in a file with its rows in another order.
func byCodes(P *mat.Dense, levels []string) *mat.Dense {
	rank := make([]int, len(levels)) // rank[code]: the label's place in sorted order
	order := make([]int, len(levels))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(levels[a], levels[b]) })
	for r, code := range order {
		rank[code] = r
	}
	n := len(levels)
	out := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			out.Set(i, j, P.At(rank[i], rank[j]))
		}
	}
	return out
}

func printMaskSummary(e *env, s *maskSummary, format string) error {
	w := e.stdout
	if fd, ok := datasets.Descriptor(string(s.Output)); ok && fd == 1 {
		// The masked file went to standard output: the summary after it would make it a
		// file no reader (reid's included) can read.
		w = e.stderr
	}
	if format == "json" {
		return writeJSON(w, s)
	}
	params := ""
	switch {
	case s.K > 0:
		params = fmt.Sprintf("k=%d", s.K)
	case s.Matrix != "":
		params = fmt.Sprintf("matrix=%s seed=%d", s.Matrix, s.Seed)
	default:
		params = fmt.Sprintf("p=%g seed=%d", s.P, s.Seed)
	}
	fmt.Fprintf(w, "masked %d records of %s with %s (%s) on %s\n",
		s.Records, s.Input, s.Method, params, strings.Join(s.Attributes, ", "))
	for _, warning := range s.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warning)
	}
	_, err := fmt.Fprintf(w, "wrote %s\n", s.Output)
	return err
}
