package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
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
--out, in the format of its extension. Columns not in --attrs are copied unchanged.

Methods (numeric attributes unless said otherwise; --attrs defaults to every numeric
column, or every categorical column for pram):
  mdav       multivariate MDAV microaggregation, groups of k..2k-1 records (--k)
  indrank    individual-ranking microaggregation, per attribute (--k)
  noise      additive noise, sd = p % of each attribute's sd (--p, --seed)
  corrnoise  correlated noise, covariance = p % of the data's covariance (--p, --seed)
  rankswap   rank swapping, window p % of the number of records (--p, --seed)
  pram       PRAM on categorical attributes: each value kept with probability 1-p/100,
             otherwise changed to one of the other categories uniformly (--p, --seed),
             or a transition matrix from --matrix FILE (JSON array of rows)

The same input, method, parameters and seed always give the same output file.
A summary of what was done is printed on stdout (--format text|json).`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			method := fs.String("method", "", "masking `method`: mdav, indrank, noise, corrnoise, rankswap or pram")
			k := fs.Int("k", 3, "group size for mdav and indrank")
			p := fs.Float64("p", 0, "percentage parameter for noise, corrnoise, rankswap and pram")
			seed := fs.Uint64("seed", 1, "random seed")
			attrs := fs.String("attrs", "", "comma-separated `attributes` to mask (default: see above)")
			out := fs.String("out", "", "output `file` (.csv, .arrow/.feather, .parquet)")
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
				if _, err := datasets.FormatOf(*out); err != nil {
					return err
				}
				m := maskJob{method: *method, k: *k, p: *p, seed: *seed, attrs: splitList(*attrs), matrixFile: *matrix}
				if err := m.check(); err != nil {
					return err
				}
				opts, err := load.options()
				if err != nil {
					return err
				}
				tab, err := datasets.Load(args[0], opts)
				if err != nil {
					return err
				}
				summary, err := m.apply(tab)
				if err != nil {
					return err
				}
				if err := datasets.Write(*out, tab, datasets.FormatAuto); err != nil {
					return err
				}
				summary.Input, summary.Output = args[0], *out
				return printMaskSummary(e, summary, *format)
			}
		},
	}
}

// loadFlags are the flags every command that reads data files shares.
type loadFlags struct {
	types   *string
	missing *string
}

func addLoadFlags(fs *flag.FlagSet) *loadFlags {
	return &loadFlags{
		types:   fs.String("types", "", "type overrides, e.g. `age:categorical,code:numeric`"),
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
	for _, item := range splitList(*l.types) {
		name, kind, ok := strings.Cut(item, ":")
		if !ok {
			return opts, usagef("--types entry %q is not name:type", item)
		}
		k, err := datasets.ParseKind(kind)
		if err != nil {
			return opts, usagef("--types: %v", err)
		}
		if opts.Types == nil {
			opts.Types = map[string]datasets.Kind{}
		}
		opts.Types[name] = k
	}
	return opts, nil
}

func splitList(s string) []string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(f))
	}
	return out
}

type maskJob struct {
	method     string
	k          int
	p          float64
	seed       uint64
	attrs      []string
	matrixFile string
}

// maskSummary is what `reid mask` reports; its JSON field names are stable.
type maskSummary struct {
	Method     string   `json:"method"`
	K          int      `json:"k,omitempty"`
	P          float64  `json:"p,omitempty"`
	Seed       uint64   `json:"seed,omitempty"`
	Attributes []string `json:"attributes"`
	Records    int      `json:"records"`
	Input      string   `json:"input"`
	Output     string   `json:"output"`
}

func (m *maskJob) check() error {
	switch m.method {
	case "mdav", "indrank":
		if m.k < 1 {
			return usagef("--k must be at least 1, got %d", m.k)
		}
	case "noise", "corrnoise", "rankswap", "pram":
		if m.p < 0 || (m.method == "pram" && m.p > 100) {
			return usagef("--p %v is out of range", m.p)
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

// rng returns the method's generator; the second PCG word is fixed so that --seed alone
// determines the stream.
func (m *maskJob) rng() *rand.Rand { return rand.New(rand.NewPCG(m.seed, 0x726569642d6d61)) }

// apply masks tab in place (its masked columns are replaced by new slices).
func (m *maskJob) apply(tab *datasets.Table) (*maskSummary, error) {
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
			return nil, &datasets.InputError{File: tab.Source, Err: fmt.Errorf("no %s column to mask", want)}
		}
	}
	sel, err := tab.Select(attrs)
	if err != nil {
		return nil, err
	}
	for _, c := range sel.Columns {
		if c.Kind != want {
			return nil, &datasets.InputError{File: tab.Source, Column: c.Name, Err: fmt.Errorf("%s masks %s columns, this one is %s", m.method, want, c.Kind)}
		}
	}
	s := &maskSummary{Method: m.method, Attributes: attrs, Records: tab.Rows()}
	if m.method == "pram" {
		s.P, s.Seed = m.p, m.seed
		return s, m.pram(tab, attrs)
	}
	data, err := sel.NumericMatrix()
	if err != nil {
		return nil, err
	}
	var masked [][]float64
	switch m.method {
	case "mdav":
		s.K = m.k
		masked, _, err = mask.MDAV(data, m.k)
	case "indrank":
		s.K = m.k
		masked, err = mask.IndividualRanking(data, m.k)
	case "noise":
		s.P, s.Seed = m.p, m.seed
		masked, err = mask.AdditiveNoise(data, m.p, m.rng())
	case "corrnoise":
		s.P, s.Seed = m.p, m.seed
		masked, err = mask.CorrelatedNoise(data, m.p, m.rng())
	case "rankswap":
		s.P, s.Seed = m.p, m.seed
		masked, err = mask.RankSwap(data, m.p, m.rng())
	}
	if err != nil {
		return nil, &datasets.InputError{File: tab.Source, Err: err}
	}
	for j, name := range attrs {
		tab.Column(name).Values = masked[j]
	}
	return s, nil
}

func (m *maskJob) pram(tab *datasets.Table, attrs []string) error {
	var given *mat.Dense
	if m.matrixFile != "" {
		b, err := os.ReadFile(m.matrixFile)
		if err != nil {
			return err
		}
		var rows [][]float64
		if err := json.Unmarshal(b, &rows); err != nil || len(rows) == 0 {
			return &datasets.InputError{File: m.matrixFile, Err: fmt.Errorf("not a JSON array of matrix rows: %v", err)}
		}
		given = mat.NewDense(len(rows), len(rows), nil)
		for i, r := range rows {
			if len(r) != len(rows) {
				return &datasets.InputError{File: m.matrixFile, Row: i + 1, Err: fmt.Errorf("matrix row has %d entries, want %d", len(r), len(rows))}
			}
			given.SetRow(i, r)
		}
	}
	rng := m.rng()
	for _, name := range attrs {
		c := tab.Column(name)
		if c.HasMissing() {
			return &datasets.InputError{File: tab.Source, Column: name, Err: datasets.ErrMissingValue, Detail: "PRAM needs every value"}
		}
		P := given
		if P == nil {
			var err error
			if P, err = mask.UniformPRAMMatrix(len(c.Levels), m.p/100); err != nil {
				return &datasets.InputError{File: tab.Source, Column: name, Err: err}
			}
		} else if r, _ := P.Dims(); r != len(c.Levels) {
			return &datasets.InputError{File: m.matrixFile, Column: name, Err: fmt.Errorf("matrix is %d×%d but the column has %d categories", r, r, len(c.Levels))}
		}
		codes, err := mask.PRAM(c.Codes, P, rng)
		if err != nil {
			return &datasets.InputError{File: tab.Source, Column: name, Err: err}
		}
		c.Codes = codes
	}
	return nil
}

func printMaskSummary(e *env, s *maskSummary, format string) error {
	if format == "json" {
		return writeJSON(e.stdout, s)
	}
	params := ""
	switch {
	case s.K > 0:
		params = fmt.Sprintf("k=%d", s.K)
	default:
		params = fmt.Sprintf("p=%g seed=%d", s.P, s.Seed)
	}
	fmt.Fprintf(e.stdout, "masked %d records of %s with %s (%s) on %s\nwrote %s\n",
		s.Records, s.Input, s.Method, params, strings.Join(s.Attributes, ", "), s.Output)
	return nil
}
