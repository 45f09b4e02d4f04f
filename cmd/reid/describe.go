package main

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/reid-sdc/reid/datasets"
)

func describeCommand() *command {
	return &command{
		Name:      "describe",
		UsageLine: "reid describe [--format text|json] [--types T] [--missing P] FILE",
		Short:     "show the columns, types and summary statistics of a data file",
		Long: `
Describe loads FILE (CSV, Arrow IPC/Feather or Parquet) exactly as the other commands do
and prints, per column, its type as reid reads it, the number of missing values, and
for numeric columns the mean, sample standard deviation (n-1), minimum and maximum, for
categorical ones the number of categories. Use it to check how a file will be read.

In Arrow and Parquet files the type of a column is the file's: numeric types are numeric
(but integers beyond ±2^53, which a float64 cannot hold, make a column of identifiers
categorical with their exact digits, in every format; a float32 reads as the shortest
decimal that rounds to it), strings, dictionaries and booleans categorical, even when
the labels look like numbers (in Parquet a dictionary is an encoding, not a type: a
column of integers is numeric however it is encoded).
Missing values are an empty field or NA in CSV (blanks around them allowed) and nulls in
Arrow and Parquet, where an empty string is a category; NaN and ±Inf are errors. Column
names are read without the blanks around them, in every format (two that trim to one
name are a duplicate).
In CSV a column is numeric when more than half of the non-missing values of its first
batch are numbers. --types NAME:numeric,OTHER:categorical overrides the type of any
column of the file (numeric parses the labels; one that is not a number is an error
naming its row); a name that is no column of the file is an error.`,
		Flags: func(fs *flag.FlagSet, e *env) func([]string) error {
			format := fs.String("format", "text", "output format: text or json")
			load := addLoadFlags(fs)
			return func(args []string) error {
				if len(args) != 1 {
					return usagef("describe needs exactly one FILE")
				}
				if *format != "text" && *format != "json" {
					return usagef("--format must be text or json")
				}
				opts, err := load.options()
				if err != nil {
					return err
				}
				tab, err := datasets.Load(args[0], opts)
				if err != nil {
					return err
				}
				d := describe(tab)
				if *format == "json" {
					return writeJSON(e.stdout, d)
				}
				fmt.Fprintf(e.stdout, "%s: %d records, %d columns\n", d.File, d.Records, len(d.Columns))
				w := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintln(w, "column\ttype\tmissing\tmean\tsd\tmin\tmax\tcategories\t")
				for _, c := range d.Columns {
					switch {
					case c.Categories != nil:
						fmt.Fprintf(w, "%s\t%s\t%d\t\t\t\t\t%d\t\n", cell(c.Name), c.Type, c.Missing, *c.Categories)
					case c.Mean == nil: // numeric, every value missing
						fmt.Fprintf(w, "%s\t%s\t%d\t-\t-\t-\t-\t\t\n", cell(c.Name), c.Type, c.Missing)
					default:
						sd := "-" // one value: no sample sd
						if c.SD != nil {
							sd = summaryNumber(*c.SD)
						}
						lo, hi := summaryNumber(*c.Min), summaryNumber(*c.Max)
						if lo == hi && *c.Min != *c.Max {
							// 1e15 and 1e15+4 both read 1e+15 at six digits: all of them.
							lo, hi = strconv.FormatFloat(*c.Min, 'g', -1, 64), strconv.FormatFloat(*c.Max, 'g', -1, 64)
						}
						fmt.Fprintf(w, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t\t\n", cell(c.Name), c.Type, c.Missing, summaryNumber(*c.Mean), sd, lo, hi)
					}
				}
				return w.Flush()
			}
		},
	}
}

type columnDescription struct {
	Name    string   `json:"name"`
	Type    string   `json:"type"`
	Missing int      `json:"missing"`
	Mean    *float64 `json:"mean,omitempty"`
	SD      *float64 `json:"sd,omitempty"`
	Min     *float64 `json:"min,omitempty"`
	Max     *float64 `json:"max,omitempty"`
	// Categories is set for categorical columns, 0 included (an all-missing column);
	// Mean, SD, Min and Max for numeric ones with a present value (SD with two).
	Categories *int `json:"categories,omitempty"`
}

type fileDescription struct {
	File    pathText            `json:"file"`
	Records int                 `json:"records"`
	Columns []columnDescription `json:"columns"`
}

// columnMeanSD is the mean and sample sd of a numeric column's present values as
// Standardize computes them (correctly rounded sums); a column of one distinct value has
// that value and sd 0; ok is false when no value is present.
func columnMeanSD(c *datasets.Column) (mean, sd float64, ok bool) {
	first := 0 // the first present value
	if c.Valid != nil {
		first = slices.Index(c.Valid, true)
	}
	if first < 0 || c.Len() == 0 {
		return 0, 0, false
	}
	one := &datasets.Table{Columns: []datasets.Column{*c}}
	if s, err := datasets.Standardize(one, datasets.StandardizeOptions{}); err == nil {
		return s.Mean[0], s.SD[0], true
	}
	return c.Values[first], 0, true // constant (or a single value): no sd to divide by
}

func describe(t *datasets.Table) fileDescription {
	d := fileDescription{File: pathText(t.Source), Records: t.Rows()}
	for j := range t.Columns {
		c := &t.Columns[j]
		cd := columnDescription{Name: c.Name, Type: c.Kind.String()}
		for i := 0; i < c.Len(); i++ {
			if c.Missing(i) {
				cd.Missing++
			}
		}
		if c.Kind == datasets.Numeric {
			lo, hi := 0.0, 0.0
			first := true
			for i, v := range c.Values {
				if c.Missing(i) {
					continue
				}
				if first || v < lo {
					lo = v
				}
				if first || v > hi {
					hi = v
				}
				first = false
			}
			if first {
				d.Columns = append(d.Columns, cd) // no value: no mean, sd, min or max (not 0)
				continue
			}
			mean, sd, _ := columnMeanSD(c)
			mean, lo, hi = mean+0, lo+0, hi+0 // −0 is 0 in JSON too, as in the table
			cd.Mean, cd.Min, cd.Max = &mean, &lo, &hi
			if c.Len()-cd.Missing >= 2 {
				cd.SD = &sd // the sample sd (n − 1) of one value is undefined, not 0
			}
		} else {
			n := len(c.Levels)
			cd.Categories = &n
		}
		d.Columns = append(d.Columns, cd)
	}
	return d
}

// summaryNumber is a figure of describe's table: six significant digits, and 0 for −0
// (a column whose least value is −0 showed "-0").
func summaryNumber(v float64) string { return fmt.Sprintf("%.6g", v+0) }
