package main

import (
	"reflect"
	"strings"
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

// TestReportAssignmentRows: a PRL run's assignment is a row of the Markdown and HTML
// tables after its run, with its own Reid and no sets, Reid@5 or K.Reid of its own (an
// entry of its own once printed Reid@5 0.0000 beside Reid 0.0130).
func TestReportAssignmentRows(t *testing.T) {
	r := &auditReport{Linkage: []auditLinkage{{
		ID: "prl/em/masked-to-original", Method: "prl", Direction: "masked-to-original", N: 10,
		Reid: 0.3, ReidSets: 0.35, ReidAtK: map[string]float64{"5": 0.6}, KReid: 0.1,
		Assignment: &auditAssignment{Correct: 4, Reid: 0.4, Status: "optimal"},
	}}}
	var md, html strings.Builder
	if err := writeReportMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := writeReportHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| prl/em/masked-to-original | 10 | 0.3000 | 0.3500 | 0.6000 | 0.1000 |\n| prl/em-assignment/masked-to-original | 10 | 0.4000 | - | - | - |\n",
	} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	if want := "<tr><td>prl/em-assignment/masked-to-original</td><td>10</td><td>0.4000</td><td>-</td><td>-</td><td>-</td></tr>"; !strings.Contains(html.String(), want) {
		t.Errorf("HTML lacks %q", want)
	}
}
