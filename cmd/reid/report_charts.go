package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/reid-sdc/reid/linkage"
)

var (
	chartBlue   = color.RGBA{R: 31, G: 119, B: 180, A: 255}
	chartOrange = color.RGBA{R: 255, G: 127, B: 14, A: 255}
	chartRed    = color.RGBA{R: 200, G: 30, B: 30, A: 255}
)

const chartW, chartH = 520, 320 // points

// reportCharts draws the charts of report.html as inline SVG, in a fixed order. A chart
// whose data the audit did not produce (e.g. per-record risk without --keys) is left out.
func reportCharts(r *auditReport) ([]chartSVG, error) {
	var out []chartSVG
	add := func(id, title string, p *plot.Plot, err error) error {
		if err != nil {
			return fmt.Errorf("chart %s: %w", id, err)
		}
		if p == nil {
			return nil
		}
		p.Title.Text = title
		c := vgsvg.New(chartW, chartH)
		p.Draw(draw.New(c))
		var buf bytes.Buffer
		if _, err := c.WriteTo(&buf); err != nil {
			return fmt.Errorf("chart %s: %w", id, err)
		}
		svg := buf.String()
		if i := strings.Index(svg, "<svg"); i > 0 { // drop the XML prolog: the SVG is inline
			svg = svg[i:]
		}
		out = append(out, chartSVG{id: id, title: title, svg: svg})
		return nil
	}
	var dbrl *auditLinkage
	for i := range r.Linkage {
		if r.Linkage[i].Method == "dbrl" && dbrl == nil {
			dbrl = &r.Linkage[i]
		}
	}
	if dbrl != nil {
		p, err := countsChart(dbrl.RankCounts, "rank of the true partner (candidates strictly closer)", "records", 10)
		if err := add("rank", "True partner's rank, "+dbrl.ID, p, err); err != nil {
			return nil, err
		}
	}
	p, err := reidChart(r)
	if err := add("reid", "Reid per method (worst case: incumbent, bar to bound)", p, err); err != nil {
		return nil, err
	}
	p, err = prlWeightChart(r.charts.prlTrue, r.charts.prlOther)
	if err := add("prl-weights", "PRL (EM) weights: true pairs vs other pairs", p, err); err != nil {
		return nil, err
	}
	if dbrl != nil {
		p, err := countsChart(dbrl.SetSizes, "anonymity-set size |A| (candidates tied at the best distance)", "records", 10)
		if err := add("anonymity-sets", "Anonymity-set sizes, "+dbrl.ID, p, err); err != nil {
			return nil, err
		}
	}
	if r.charts.recordRisk != nil {
		p, err := riskChart(r.charts.recordRisk)
		if err := add("record-risk", "Per-record re-identification risk (uniqueness)", p, err); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// countsChart draws a distribution of counts as bars, values above most pooled in
// ">most".
func countsChart(counts []linkage.Count, xlabel, ylabel string, most int) (*plot.Plot, error) {
	if len(counts) == 0 {
		return nil, nil
	}
	vals, names := countBars(counts, most)
	return barPlot(vals, names, vg.Points(barWidth(len(vals))), xlabel, ylabel)
}

// barPlot is one series of blue bars named by names, from 0 up.
func barPlot(vals plotter.Values, names []string, width vg.Length, xlabel, ylabel string) (*plot.Plot, error) {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xlabel, ylabel
	bars, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return nil, err
	}
	bars.Color = chartBlue
	p.Add(bars)
	p.NominalX(names...)
	padX(p, len(names))
	p.Y.Min = 0
	return p, nil
}

// countBars bins counts by value for countsChart: one bar per value from the smallest to
// the largest, values above most pooled in a last bar named ">most".
func countBars(counts []linkage.Count, most int) (plotter.Values, []string) {
	byValue := map[int]float64{}
	// The range drawn runs over the pooled values: when every value passes most
	// (anonymity sets of thousands on a file of a few discrete attributes) the one bar
	// is ">most", not an empty range (an internal error: "no data points").
	lo, top := most+1, 0
	for _, c := range counts {
		v := min(c.Value, most+1)
		byValue[v] += float64(c.Count)
		lo, top = min(lo, v), max(top, v)
	}
	var vals plotter.Values
	var names []string
	for v := lo; v <= top; v++ {
		vals = append(vals, byValue[v])
		name := strconv.Itoa(v)
		if v == most+1 {
			name = ">" + strconv.Itoa(most)
		}
		names = append(names, name)
	}
	return vals, names
}

// padX keeps the first and last bars (and their offsets) inside the axes.
func padX(p *plot.Plot, n int) { p.X.Min, p.X.Max = -0.7, float64(n)-0.3 }

func barWidth(n int) float64 { return math.Max(4, math.Min(40, 400/float64(n+1))) }

// reidChart draws Reid of each linkage and the worst-case incumbent of each learned
// operator, with an error bar from the incumbent up to the proven bound.
func reidChart(r *auditReport) (*plot.Plot, error) {
	var vals plotter.Values
	var names []string
	for _, row := range linkageRows(r) {
		vals = append(vals, row.reid)
		names = append(names, shortID(row.id))
	}
	var errs plotter.XYs
	var yerr plotter.YErrors
	for _, c := range r.WorstCase {
		if !c.Available {
			continue
		}
		errs = append(errs, plotter.XY{X: float64(len(vals)), Y: c.IncumbentReid})
		yerr = append(yerr, struct{ Low, High float64 }{0, c.BoundReid - c.IncumbentReid})
		vals = append(vals, c.IncumbentReid)
		names = append(names, "worst "+c.Operator)
	}
	if len(vals) == 0 { // an audit interrupted before any measure
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = "Reid"
	bars, err := plotter.NewBarChart(vals, vg.Points(barWidth(len(vals))))
	if err != nil {
		return nil, err
	}
	bars.Color = chartBlue
	p.Add(bars)
	if len(errs) > 0 {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{errs, yerr})
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = chartRed
		eb.LineStyle.Width = vg.Points(2)
		eb.CapWidth = vg.Points(10)
		p.Add(eb)
	}
	p.NominalX(names...)
	if len(names) > 6 {
		// Eight methods and operators: slanted labels do not run into each other.
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
		p.X.Tick.Label.YAlign = draw.YCenter
	}
	padX(p, len(names))
	p.Y.Min, p.Y.Max = 0, 1
	return p, nil
}

func shortID(id string) string {
	id = strings.ReplaceAll(id, "masked-to-original", "m→o")
	id = strings.ReplaceAll(id, "original-to-masked", "o→m")
	id = strings.ReplaceAll(id, "/euclidean", "")
	id = strings.ReplaceAll(id, "supervised", "sup")   // 14 bars under one chart
	id = strings.ReplaceAll(id, "-assignment", " 1:1") // the one-to-one assignment
	return id
}

// prlWeightChart draws, over common weight bins, the share of true pairs and the share of
// other pairs in each bin.
func prlWeightChart(trueW, otherW []weightCount) (*plot.Plot, error) {
	if len(trueW) == 0 && len(otherW) == 0 {
		return nil, nil
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, ws := range [][]weightCount{trueW, otherW} {
		for _, w := range ws {
			if math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) {
				continue
			}
			lo, hi = math.Min(lo, w.Weight), math.Max(hi, w.Weight)
		}
	}
	if math.IsInf(lo, 0) {
		return nil, nil
	}
	const nb = 12
	if hi <= lo {
		hi = lo + 1
	}
	width := (hi - lo) / nb
	shares := func(ws []weightCount) plotter.Values {
		v := make(plotter.Values, nb)
		total := 0.0
		for _, w := range ws {
			if math.IsNaN(w.Weight) || math.IsInf(w.Weight, 0) {
				continue
			}
			b := min(int((w.Weight-lo)/width), nb-1)
			v[b] += float64(w.Count)
			total += float64(w.Count)
		}
		for i := range v {
			if total > 0 {
				v[i] /= total
			}
		}
		return v
	}
	names := make([]string, nb)
	for i := range names {
		names[i] = strconv.FormatFloat(lo+(float64(i)+0.5)*width, 'f', 1, 64)
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = "weight log2(m/u), bin centre", "share of pairs"
	w := vg.Points(14)
	tb, err := plotter.NewBarChart(shares(trueW), w)
	if err != nil {
		return nil, err
	}
	tb.Color, tb.Offset = chartOrange, w/2
	ob, err := plotter.NewBarChart(shares(otherW), w)
	if err != nil {
		return nil, err
	}
	ob.Color, ob.Offset = chartBlue, -w/2
	p.Add(ob, tb)
	p.Legend.Add("other pairs", ob)
	p.Legend.Add("true pairs", tb)
	p.Legend.Top = true
	p.NominalX(names...)
	padX(p, len(names))
	p.Y.Min, p.Y.Max = 0, 1 // room for the legend above the bars
	return p, nil
}

// riskChart draws the distribution of the per-record risk in ten bins of [0, 1].
func riskChart(risk []float64) (*plot.Plot, error) {
	if len(risk) == 0 {
		return nil, nil
	}
	const nb = 10
	vals := make(plotter.Values, nb)
	for _, r := range risk {
		if math.IsNaN(r) {
			continue
		}
		vals[min(max(int(r*nb), 0), nb-1)]++
	}
	names := make([]string, nb)
	for i := range names {
		names[i] = fmt.Sprintf("%.1f-%.1f", float64(i)/nb, float64(i+1)/nb)
	}
	sorted := append([]float64(nil), risk...)
	sort.Float64s(sorted)
	return barPlot(vals, names, vg.Points(30),
		fmt.Sprintf("record risk E[1/F | f] (median %.3g, max %.3g)", sorted[len(sorted)/2], sorted[len(sorted)-1]), "records")
}
