package uniqueness

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/reid-sdc/reid/datasets"
)

// Classes is the partition of a sample into key classes (the cells j of the key's
// cross-classification that occur in the sample) with their sample frequencies f_j and,
// when a population was counted, their population frequencies F_j.
type Classes struct {
	// Keys names the key attributes.
	Keys []string
	// Of[i] is the class of sample record i. Classes are numbered 0, 1, … in order of
	// their first appearance in the sample, so the numbering does not depend on the
	// number of goroutines.
	Of []int32
	// Freq[j] is f_j, the number of sample records in class j.
	Freq []int
	// PopFreq[j] is F_j, the number of population records in class j (0 when the
	// combination does not occur in the population); nil without a population. Count
	// does not require F_j ≥ f_j; CheckPopulation does, and Measure calls it.
	PopFreq []int
	// PopulationClasses and PopulationUniques are the number of key combinations in the
	// population and of those held by exactly one population record (0 without one).
	PopulationClasses, PopulationUniques int

	cols  []keyColumn
	first []int32 // first sample record of each class
}

// Count partitions the sample into key classes and counts them; when population is not
// nil it also counts each class in the population, matching categories by label. Counting
// hashes each record's key combination and runs on workers goroutines (≤ 0: GOMAXPROCS);
// it never sorts the table. Missing key values form a category of their own
// (MissingLabel).
func Count(sample, population *datasets.Table, keys []Key, workers int) (*Classes, error) {
	total := sample.Rows()
	if population != nil {
		total += population.Rows()
	}
	if total > math.MaxInt32 { // rows and classes are numbered with int32
		return nil, ErrTooManyRows
	}
	cols, err := encodeKeys(sample, population, keys)
	if err != nil {
		return nil, err
	}
	cards := make([]int, len(cols))
	segs := []segment{{rows: sample.Rows(), ids: true}}
	for k := range cols {
		cards[k] = max(1, len(cols[k].labels))
		segs[0].cols = append(segs[0].cols, cols[k].sample)
	}
	if population != nil {
		pseg := segment{rows: population.Rows()}
		for k := range cols {
			pseg.cols = append(pseg.cols, cols[k].pop)
		}
		segs = append(segs, pseg)
	}
	t := countSegments(segs, cards, workers)

	c := &Classes{Of: t.ids[0], cols: cols}
	for _, k := range keys {
		c.Keys = append(c.Keys, k.Name)
	}
	// Sample classes come first in the numbering (segment 0 is counted first).
	for _, n := range t.counts[0] {
		if n == 0 {
			break
		}
		c.Freq = append(c.Freq, int(n))
	}
	c.first = make([]int32, len(c.Freq))
	next := int32(0)
	for i, j := range c.Of {
		if j == next {
			c.first[j] = int32(i)
			next++
		}
	}
	if population != nil {
		pop := t.counts[1]
		c.PopFreq = make([]int, len(c.Freq))
		for j := range c.PopFreq {
			c.PopFreq[j] = int(pop[j])
		}
		for _, n := range pop {
			if n > 0 {
				c.PopulationClasses++
			}
			if n == 1 {
				c.PopulationUniques++
			}
		}
	}
	return c, nil
}

// PopulationError is a key class with fewer records in the population than in the
// sample (F_j < f_j, F_j = 0 when the combination is absent from the population). The
// population is meant to contain the sample, so 1/F_j must be at most 1/f_j; a smaller
// population means the wrong file, or keys coded or binned differently in the two files,
// and the risk 1/F_j computed from it would be wrong (0 for an absent combination: no
// risk at all).
type PopulationError struct {
	Keys []string // the key attributes
	Key  []string // the class's key values, one per key attribute
	// Missing[k] is true where Key[k] is the missing category (see Classes.KeyMissing).
	Missing []bool
	Class   int // the class number (see Classes.Of)
	// Sample and Population are f_j and F_j.
	Sample, Population int
}

func (e *PopulationError) Error() string {
	var b strings.Builder
	b.WriteString("key ")
	for k, name := range e.Keys {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(name)
		b.WriteByte('=')
		if k < len(e.Missing) && e.Missing[k] {
			b.WriteString(MissingLabel)
		} else {
			b.WriteString(quoteLabel(e.Key[k]))
		}
	}
	records := "records"
	if e.Sample == 1 {
		records = "record"
	}
	fmt.Fprintf(&b, ": %d sample %s but %d in the population (%v)", e.Sample, records, e.Population, ErrPopulationTooSmall)
	return b.String()
}

func (e *PopulationError) Unwrap() error { return ErrPopulationTooSmall }

// quoteLabel quotes a key value only when it could not be read back from "a=v, b=w", or
// would read as the missing category.
func quoteLabel(v string) string {
	if v == "" || v == MissingLabel || strings.ContainsAny(v, ",= \t\n\r\"") || !strconv.CanBackquote(v) {
		return strconv.Quote(v)
	}
	return v
}

// CheckPopulation returns a *PopulationError for the first class (in class order, that is
// by first appearance in the sample) with F_j < f_j, or nil when every class has at least
// as many population records as sample records or no population was counted.
func (c *Classes) CheckPopulation() error {
	if c.PopFreq == nil {
		return nil
	}
	for j, f := range c.Freq {
		if F := c.PopFreq[j]; F < f {
			return &PopulationError{Keys: c.Keys, Key: c.Label(j), Missing: c.KeyMissing(j), Class: j, Sample: f, Population: F}
		}
	}
	return nil
}

// Len returns the number of classes.
func (c *Classes) Len() int { return len(c.Freq) }

// Label returns the key values of class j, one label per key attribute.
func (c *Classes) Label(j int) []string {
	row := c.first[j]
	out := make([]string, len(c.cols))
	for k := range c.cols {
		out[k] = c.cols[k].labels[c.cols[k].sample[row]]
	}
	return out
}

// KeyMissing reports, for each key attribute, whether class j's value is the missing
// category (whose Label is MissingLabel) rather than a label that reads the same.
func (c *Classes) KeyMissing(j int) []bool {
	row := c.first[j]
	out := make([]bool, len(c.cols))
	for k := range c.cols {
		out[k] = c.cols[k].missing >= 0 && c.cols[k].sample[row] == c.cols[k].missing
	}
	return out
}

// Cuts returns the cut points used for key attribute k (nil for a categorical one).
func (c *Classes) Cuts(k int) []float64 { return c.cols[k].cuts }

// Levels returns the number of categories (bins for a numeric attribute, plus the missing
// category when there is one) of key attribute k.
func (c *Classes) Levels(k int) int { return len(c.cols[k].labels) }

// Uniques returns the number of classes with f_j = 1.
func (c *Classes) Uniques() int {
	n := 0
	for _, f := range c.Freq {
		if f == 1 {
			n++
		}
	}
	return n
}

// members returns the records of each class: class j holds rows[off[j]:off[j+1]], in
// record order (a counting sort by class, linear in the number of records).
func (c *Classes) members() (off []int, rows []int32) {
	off = make([]int, len(c.Freq)+1)
	for j, f := range c.Freq {
		off[j+1] = off[j] + f
	}
	pos := append([]int(nil), off[:len(c.Freq)]...)
	rows = make([]int32, len(c.Of))
	for i, j := range c.Of {
		rows[pos[j]] = int32(i)
		pos[j]++
	}
	return off, rows
}
