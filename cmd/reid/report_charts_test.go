package main

import (
	"reflect"
	"testing"

	"gonum.org/v1/plot/plotter"

	"github.com/reid-sdc/reid/linkage"
)

// TestCountBars: one bar per value from the smallest to the largest, the values above
// max pooled in ">max" — also when every value is above max (anonymity sets of about
// 10,000 records on a file of two discrete attributes: the range was empty and the
// audit ended with an internal error, "no data points").
func TestCountBars(t *testing.T) {
	for _, c := range []struct {
		name   string
		counts []linkage.Count
		vals   plotter.Values
		names  []string
	}{
		{"small", []linkage.Count{{Value: 1, Count: 5}, {Value: 3, Count: 2}}, plotter.Values{5, 0, 2}, []string{"1", "2", "3"}},
		{"pooled", []linkage.Count{{Value: 9, Count: 1}, {Value: 10, Count: 2}, {Value: 11, Count: 3}, {Value: 40, Count: 4}}, plotter.Values{1, 2, 7}, []string{"9", "10", ">10"}},
		{"all above", []linkage.Count{{Value: 9817, Count: 9847}, {Value: 10239, Count: 10217}}, plotter.Values{20064}, []string{">10"}},
	} {
		vals, names := countBars(c.counts, 10)
		if !reflect.DeepEqual(vals, c.vals) || !reflect.DeepEqual(names, c.names) {
			t.Errorf("%s: %v %v, want %v %v", c.name, vals, names, c.vals, c.names)
		}
		if _, err := countsChart(c.counts, "x", "y", 10); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
}
