package main

import (
	"cmp"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/reid-sdc/reid/datasets"
)

// writeReportMarkdown writes report.md: the summary tables of the audit.
func writeReportMarkdown(w io.Writer, r *auditReport) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# reid audit report\n\n")
	fmt.Fprintf(&b, "- engine: %s, schema %s, seed %d\n", r.Engine, r.SchemaVersion, r.Seed)
	fmt.Fprintf(&b, "- original: %s (%d records, sha256 `%s`)\n", mdList([]string{string(r.Inputs.Original.File)}), r.Inputs.Original.Records, r.Inputs.Original.SHA256)
	fmt.Fprintf(&b, "- masked: %s (%d records, sha256 `%s`)\n", mdList([]string{string(r.Inputs.Masked.File)}), r.Inputs.Masked.Records, r.Inputs.Masked.SHA256)
	if p := r.Inputs.Population; p != nil {
		fmt.Fprintf(&b, "- population: %s (%d records, sha256 `%s`)\n", mdList([]string{string(p.File)}), p.Records, p.SHA256)
	}
	fmt.Fprintf(&b, "- attributes: %s\n", mdList(r.Options.Attributes))
	if _, ok := distanceAttributes(r.Options); ok {
		fmt.Fprintf(&b, "- numeric attributes (DBRL and the worst case; PRL compares all): %s\n", cmp.Or(mdList(r.Options.DistanceAttributes), "none"))
	}
	fmt.Fprintf(&b, "- masking known to the intruder: %s\n- worst-case %s\n\n", r.Options.Masking, searchLimit(r))
	b.WriteString("## Verdict\n\n")
	b.WriteString(mdCode(ciLine(r)) + "\n\n")
	if p := r.Policy; p != nil {
		b.WriteString("| rule | measure | value | threshold | result |\n|---|---|---:|---:|---|\n")
		for _, x := range p.Rules {
			fmt.Fprintf(&b, "| %s | %s | %s | %g | %s |\n", x.Rule, x.Measure, policyValue(x), x.Threshold, map[bool]string{true: "pass", false: "**violated**"}[x.Pass])
		}
		b.WriteString("\n")
	}
	// The warnings next to the verdict: they say how to read the numbers below (e.g.
	// plain DBRL above a proven bound), and report.json was the only place they were.
	if len(r.Warnings) > 0 {
		b.WriteString("## Warnings\n\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "- %s\n", mdText(w))
		}
		b.WriteString("\n")
	}
	b.WriteString("## Record linkage\n\n| linkage | n | Reid | Reid (sets) | Reid@5 | K.Reid |\n|---|---:|---:|---:|---:|---:|\n")
	for _, row := range linkageRows(r) {
		fmt.Fprintf(&b, "| %s | %d | %.4f | %s | %s | %s |\n", row.id, row.n, row.reid, optF(row.reidSets), optF(row.reidAt5), optF(row.kReid))
	}
	b.WriteString("\n## Worst case (learned distances)\n\n| operator | status | incumbent (Reid) | bound (Reid) | gap | DBRL links (Reid) |\n|---|---|---:|---:|---:|---:|\n")
	for _, c := range r.WorstCase {
		if !c.Available {
			fmt.Fprintf(&b, "| %s | %s | - | - | - | - |\n", c.Operator, c.unavailable())
			continue
		}
		fmt.Fprintf(&b, "| %s | %s | %d (%.4f) | %d (%.4f) | %.1f%% | %d (%.4f) |\n", c.Operator, c.Status, c.Incumbent, c.IncumbentReid, c.Bound, c.BoundReid, 100*c.Gap, c.DBRLLinks, share(c.DBRLLinks, c.N))
	}
	b.WriteString("\nIncumbent and bound count links with margin ≥ ε; DBRL links are the learned parameters' plain DBRL links (any margin), as the Reid of record linkage counts them.\n")
	for _, c := range r.WorstCase {
		if !c.Available {
			fmt.Fprintf(&b, "\n%s: %s.", c.Operator, c.Reason)
		}
	}
	b.WriteString("\n")
	if u := r.Uniqueness; u != nil {
		b.WriteString("\n## Uniqueness\n\n")
		fmt.Fprintf(&b, "Keys %s; model %s (%s).\n\n", mdList(r.Options.Keys), u.Model, u.ModelDefinition)
		b.WriteString("| measure | value |\n|---|---:|\n")
		fmt.Fprintf(&b, "| key classes | %d |\n| sample uniques | %d |\n| P(PU\\|SU) | %s |\n| expected re-identifications | %.4g |\n| re-identification rate | %.4f |\n| max record risk | %.4f |\n| k_min | %d |\n",
			u.Classes, u.SampleUniques, optF(u.PPUGivenSU), u.ExpectedReidentifications, u.ReidentificationRate, u.MaxRecordRisk, u.KMin)
	}
	b.WriteString("\n## Definitions\n\n")
	seen := map[string]bool{}
	for _, m := range r.Measures {
		def := m.Definition
		if i := strings.Index(def, " ("); m.Name == "k_reid" && i > 0 {
			def = def[:i]
		}
		if !seen[m.Name] {
			seen[m.Name] = true
			fmt.Fprintf(&b, "- %s\n", def)
		}
	}
	fmt.Fprintf(&b, "\nTotal time %.2fs.\n", r.Timings.TotalSeconds)
	_, err := io.WriteString(w, b.String())
	return err
}

// cells is each of ss as cell shows it.
func cells(ss []string) []string {
	shown := make([]string, len(ss))
	for i, s := range ss {
		shown[i] = cell(s)
	}
	return shown
}

// cellList is names joined by commas, each as cell shows it.
func cellList(names []string) string { return strings.Join(cells(names), ", ") }

// mdList is cellList for Markdown: a column named <img src=x onerror=…> was written raw
// into report.md, where a viewer would render it as HTML. Each name's Markdown and HTML
// characters are escaped with backslashes (CommonMark §2.4: any ASCII punctuation).
func mdList(names []string) string {
	shown := cells(names)
	for i, s := range shown {
		shown[i] = mdText(s)
	}
	return strings.Join(shown, ", ")
}

// mdText backslash-escapes the characters of s that Markdown or HTML would read
// (CommonMark §2.4: any ASCII punctuation may be escaped): names, and warnings, which
// quote names ("the categorical ones (*cat*)" was emphasis).
func mdText(s string) string {
	s = datasets.LabelText(s) // UTF-8: a Latin-1 file name's bytes as \xNN
	return strings.NewReplacer(`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
		"<", `\<`, ">", `\>`, "&", `\&`, "|", `\|`, "~", `\~`).Replace(s)
}

// mdCode is s as a code span: its fence is one backtick longer than the longest run in s
// (CommonMark §6.1), with spaces inside when s begins or ends with one (a file name with a
// backtick ended a one-backtick span).
func mdCode(s string) string {
	s = datasets.LabelText(s)
	run, longest := 0, 0
	for _, c := range s {
		if c == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// searchLimit says what bounded the worst-case searches and whether their figures repeat.
func searchLimit(r *auditReport) string {
	o := r.Options
	switch {
	case o.WorkLimit > 0:
		return fmt.Sprintf("work limit: %g work seconds (the figures repeat run after run)", o.WorkLimit)
	case o.TimeLimit == "0s" && r.Interrupted:
		return "time limit: none (the searches were interrupted)"
	case o.TimeLimit == "0s":
		return "time limit: none (every search ran to its proof)"
	}
	return "time limit: " + o.TimeLimit + " (a search stopped by it may end elsewhere on another run or machine; --work-limit makes the figures repeat)"
}

const reportCSS = `body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;color:#222}
table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:4px 8px;text-align:right}
td:first-child,th:first-child{text-align:left}.fail{color:#b00;font-weight:bold}.pass{color:#070}
.chart{display:inline-block;margin:8px;border:1px solid #eee}code{background:#f4f4f4}
body:has(.chart:target)>:not(.chart:target){display:none}`

// The last rule shows one chart alone when the page is opened at #chart-ID (used by
// scripts/screenshot.sh to check each chart).

// writeReportHTML writes report.html: one self-contained page (inline CSS and SVG).
func writeReportHTML(w io.Writer, r *auditReport) error {
	var b strings.Builder
	// UTF-8 throughout: a Latin-1 file name's bytes as \xNN, as in report.json.
	esc := func(s string) string { return html.EscapeString(datasets.LabelText(s)) }
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>reid audit report</title><style>" + reportCSS + "</style></head><body>\n")
	attrs := strings.Join(r.Options.Attributes, ", ")
	if d, ok := distanceAttributes(r.Options); ok {
		attrs += " (numeric, for DBRL and the worst case: " + d + "; PRL compares all)"
	}
	fmt.Fprintf(&b, "<h1>reid audit report</h1>\n<p>%s, schema %s. Masked <code>%s</code> (%d records) against original <code>%s</code> (%d records); attributes %s; masking known to the intruder: %s; worst-case %s.</p>\n",
		esc(r.Engine), esc(r.SchemaVersion), esc(string(r.Inputs.Masked.File)), r.Inputs.Masked.Records, esc(string(r.Inputs.Original.File)), r.Inputs.Original.Records,
		esc(attrs), esc(r.Options.Masking), esc(searchLimit(r)))
	fmt.Fprintf(&b, "<p><code>%s</code></p>\n", esc(ciLine(r)))
	if p := r.Policy; p != nil {
		b.WriteString("<h2>Policy</h2><table><tr><th>rule</th><th>measure</th><th>value</th><th>threshold</th><th>result</th></tr>\n")
		for _, x := range p.Rules {
			cls, txt := "pass", "pass"
			if !x.Pass {
				cls, txt = "fail", "violated"
			}
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%s</td><td>%g</td><td class=\"%s\">%s</td></tr>\n", x.Rule, x.Measure, policyValue(x), x.Threshold, cls, txt)
		}
		b.WriteString("</table>\n")
	}
	if len(r.Warnings) > 0 {
		b.WriteString("<h2>Warnings</h2><ul class=\"warnings\">\n")
		for _, w := range r.Warnings {
			fmt.Fprintf(&b, "<li>%s</li>\n", esc(w))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<h2>Record linkage</h2><table><tr><th>linkage</th><th>n</th><th>Reid</th><th>Reid (sets)</th><th>Reid@5</th><th>K.Reid</th></tr>\n")
	for _, row := range linkageRows(r) {
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%.4f</td><td>%s</td><td>%s</td><td>%s</td></tr>\n", esc(row.id), row.n, row.reid, optF(row.reidSets), optF(row.reidAt5), optF(row.kReid))
	}
	b.WriteString("</table>\n<h2>Worst case</h2><table><tr><th>operator</th><th>status</th><th>incumbent</th><th>bound</th><th>gap</th><th title=\"the learned parameters' plain DBRL links, any margin (incumbent and bound: margin ≥ ε)\">DBRL links</th></tr>\n")
	for _, c := range r.WorstCase {
		if !c.Available {
			fmt.Fprintf(&b, "<tr><td>%s</td><td title=\"%s\">%s</td><td>-</td><td>-</td><td>-</td><td>-</td></tr>\n", c.Operator, esc(c.Reason), c.unavailable())
			continue
		}
		fmt.Fprintf(&b, "<tr><td>%s</td><td>%s</td><td>%d (%.4f)</td><td>%d (%.4f)</td><td>%.1f%%</td><td>%d (%.4f)</td></tr>\n", c.Operator, c.Status, c.Incumbent, c.IncumbentReid, c.Bound, c.BoundReid, 100*c.Gap, c.DBRLLinks, share(c.DBRLLinks, c.N))
	}
	b.WriteString("</table>\n")
	if u := r.Uniqueness; u != nil {
		fmt.Fprintf(&b, "<h2>Uniqueness</h2><p>Keys %s; model %s: %d classes, %d sample uniques, P(PU|SU) %s, re-identification rate %.4f, k_min %d.</p>\n",
			esc(strings.Join(r.Options.Keys, ", ")), esc(u.Model), u.Classes, u.SampleUniques, optF(u.PPUGivenSU), u.ReidentificationRate, u.KMin)
	}
	b.WriteString("<h2>Charts</h2>\n")
	charts, err := reportCharts(r)
	if err != nil {
		return err
	}
	for _, c := range charts {
		fmt.Fprintf(&b, "<div class=\"chart\" id=\"chart-%s\">%s</div>\n", c.id, c.svg)
	}
	b.WriteString("</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

type chartSVG struct {
	id, title string
	svg       string
}

// share is k over n (0 when n is 0).
func share(k, n int) float64 {
	if n == 0 {
		return 0
	}
	return float64(k) / float64(n)
}

// distanceAttributes lists the numeric attributes the distances linked on ("none"), and
// reports whether they are fewer than the attributes PRL compared.
func distanceAttributes(o auditOptions) (string, bool) {
	return cmp.Or(cellList(o.DistanceAttributes), "none"), len(o.DistanceAttributes) != len(o.Attributes)
}
