package main

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/reid-sdc/reid/datasets"
	"github.com/reid-sdc/reid/linkage"
)

// policy is the gate of `reid audit --policy FILE`: thresholds on the report. A nil field
// is a rule the policy does not set.
type policy struct {
	MaxReid          *float64 `json:"max_reid"`
	MaxWorstCaseReid *float64 `json:"max_worst_case_reid"`
	WorstCaseBy      *string  `json:"worst_case_by"`
	MaxKReid         *float64 `json:"max_k_reid"`
	MaxPPUGivenSU    *float64 `json:"max_p_pu_given_su"`
	// MinK is a whole number; a float so that 2.0, which JSON writers make of 2, reads.
	MinK *float64 `json:"min_k"`
	// sha256 is the hash of the bytes read (from /dev/stdin too, where reading the path
	// again would hash nothing).
	sha256 string
}

// policyKeys are the policy's keys, exactly as written (encoding/json would also take
// MAX_REID for max_reid, and a rule written twice in two cases would pass unseen).
func policyKeys() []string {
	return []string{"max_reid", "max_worst_case_reid", "worst_case_by", "max_k_reid", "max_p_pu_given_su", "min_k"}
}

// policyResult is the "policy" object of the report.
type policyResult struct {
	File       pathText          `json:"file"`
	SHA256     string            `json:"sha256"`
	Rules      []policyRule      `json:"rules"`
	Pass       bool              `json:"pass"`
	Violations []policyViolation `json:"violations"`
}

// policyRule and policyViolation give a rule's value and whether its measure was taken:
// a rule whose measure was not taken fails with value 0, which alone read as a value
// measured below the threshold. (value stays a number: schema 1.0 promised one.)
type policyRule struct {
	Rule      string  `json:"rule"`
	Threshold float64 `json:"threshold"`
	Measure   string  `json:"measure"`
	Value     float64 `json:"value"`
	Measured  bool    `json:"measured"`
	Pass      bool    `json:"pass"`
}

type policyViolation struct {
	Rule      string  `json:"rule"`
	Measure   string  `json:"measure"`
	Value     float64 `json:"value"`
	Measured  bool    `json:"measured"`
	Threshold float64 `json:"threshold"`
	Message   string  `json:"message"`
}

// policyValue formats a rule's value for the Markdown and HTML reports.
func policyValue(x policyRule) string {
	if !x.Measured {
		return "not measured"
	}
	return beside(x.Value, x.Threshold)
}

// beside formats a rule's value with four significant digits, or as many more as it
// takes not to read as its threshold (printed in full): "0.3157 > threshold 0.3157"
// said a violation of a value that looked equal.
func beside(value, threshold float64) string {
	for prec := 4; prec < 17; prec++ {
		v := strconv.FormatFloat(value, 'g', prec, 64)
		if value == threshold || v != strconv.FormatFloat(threshold, 'g', -1, 64) {
			return v
		}
	}
	return strconv.FormatFloat(value, 'g', -1, 64)
}

// readPolicy reads a JSON policy; unknown keys, bad values and an empty policy are input
// errors (exit 2).
func readPolicy(path string) (*policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, &datasets.InputError{File: path, Err: err}
	}
	p, err := parsePolicy(data)
	if err != nil {
		return nil, &datasets.InputError{File: path, Err: err}
	}
	sum := sha256.Sum256(data)
	p.sha256 = hex.EncodeToString(sum[:])
	return p, nil
}

// badKey returns what is wrong with the keys of the top-level JSON object of data (JSON
// that is not an object, or is malformed, is left to the decoder): a key that is not one of policyKeys exactly, one given twice
// (encoding/json keeps the last: a rule would pass on whichever threshold came last), or
// a null value (a rule that reads as set but is not).
func badKey(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		key, _ := tok.(string)
		switch {
		case !slices.Contains(policyKeys(), key):
			return fmt.Errorf("policy: unknown key %q (known keys, in lower case: %s)", key, strings.Join(policyKeys(), ", "))
		case seen[key]:
			return fmt.Errorf("policy: key %q given twice", key)
		}
		seen[key] = true
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return nil
		}
		if string(value) == "null" {
			return fmt.Errorf("policy: %s is null: give its threshold, or leave the rule out", key)
		}
	}
	return nil
}

func parsePolicy(data []byte) (*policy, error) {
	// A byte-order mark is what Windows editors put first; RFC 8259 §8.1 lets a parser
	// ignore it, and the decoder's "invalid character 'ï'" said nothing useful.
	data = bytes.TrimPrefix(data, []byte("\uFEFF"))
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, fmt.Errorf(`policy: the file is empty (want a JSON object such as {"max_reid": 0.05}; keys: %s)`, strings.Join(policyKeys(), ", "))
	}
	if err := badKey(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var p policy
	if err := dec.Decode(&p); err != nil {
		// In the policy's words, not encoding/json's ("Go struct field policy.max_reid
		// of type float64").
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &te) && te.Field == "":
			return nil, fmt.Errorf(`policy: the file holds a JSON %s, not an object of rules such as {"max_reid": 0.05}`, te.Value)
		case errors.As(err, &te) && strings.HasPrefix(te.Value, "number "):
			return nil, fmt.Errorf("policy: %s is %s, beyond what a number can hold", te.Field, strings.TrimPrefix(te.Value, "number "))
		case errors.As(err, &te):
			want := map[bool]string{true: "a string (bound or incumbent)", false: "a number"}[te.Field == "worst_case_by"]
			return nil, fmt.Errorf("policy: %s must be %s, not a JSON %s", te.Field, want, te.Value)
		}
		return nil, fmt.Errorf("policy: %w (known keys: %s)", err, strings.Join(policyKeys(), ", "))
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("policy: trailing data after the JSON object")
	}

	for name, v := range map[string]*float64{"max_reid": p.MaxReid, "max_worst_case_reid": p.MaxWorstCaseReid,
		"max_k_reid": p.MaxKReid, "max_p_pu_given_su": p.MaxPPUGivenSU} {
		if v != nil && !(*v >= 0 && *v <= 1) {
			return nil, fmt.Errorf("policy: %s must be a share in [0, 1], not %g", name, *v)
		}
	}
	if p.MinK != nil && !(*p.MinK >= 1 && *p.MinK == math.Trunc(*p.MinK)) {
		return nil, fmt.Errorf("policy: min_k must be a whole number at least 1, not %g", *p.MinK)
	}
	if p.WorstCaseBy != nil {
		if *p.WorstCaseBy != "bound" && *p.WorstCaseBy != "incumbent" {
			return nil, fmt.Errorf("policy: worst_case_by must be bound or incumbent, not %q", *p.WorstCaseBy)
		}
		if p.MaxWorstCaseReid == nil {
			return nil, fmt.Errorf("policy: worst_case_by goes with max_worst_case_reid")
		}
	}
	if p.MaxReid == nil && p.MaxWorstCaseReid == nil && p.MaxKReid == nil && p.MaxPPUGivenSU == nil && p.MinK == nil {
		return nil, fmt.Errorf("policy: no rule (set at least one of max_reid, max_worst_case_reid, max_k_reid, max_p_pu_given_su, min_k)")
	}
	return &p, nil
}

// needs refuses a policy whose rules the audit could not measure: a gate must not pass
// because a measure was not taken.
func (p *policy) needs(know linkage.Knowledge, keys bool) error {
	if p.MaxKReid != nil && (know.Method == "" || know.Method == "none") {
		return usagef("the policy sets max_k_reid, but --masking is none (the default or given), so K.Reid is not measured: give the masking the intruder knows, e.g. --masking mdav:k=3, rankswap:p=5 or indrank:k=3")
	}
	if (p.MaxPPUGivenSU != nil || p.MinK != nil) && !keys {
		return usagef("the policy sets max_p_pu_given_su or min_k: give --keys")
	}
	return nil
}

func (p *policy) worstCaseBy() string {
	if p.WorstCaseBy == nil {
		return "bound"
	}
	return *p.WorstCaseBy
}

// check evaluates the policy on a report. Each rule compares the largest (for min_k the
// smallest) value of its measure over every source.
func (p *policy) check(r *auditReport, path string) *policyResult {
	res := &policyResult{File: pathText(path), SHA256: p.sha256, Rules: []policyRule{}, Violations: []policyViolation{}, Pass: true}
	// Why a rule's measure was not taken.
	notMeasured := map[string]string{"max_worst_case_reid": "no worst-case operator ran", "max_reid": "no linkage ran",
		"max_k_reid": cmp.Or(r.Summary.KReidNotMeasured, "no linkage ran")}
	rule := func(name, measure string, threshold, value float64, pass bool, source string) {
		measured := source != ""
		res.Rules = append(res.Rules, policyRule{name, threshold, measure, value, measured, pass})
		if pass {
			return
		}
		res.Pass = false
		op := ">"
		if name == "min_k" {
			op = "<"
		}
		msg := fmt.Sprintf("%s: %s = %s (%s) %s threshold %g", name, measure, beside(value, threshold), source, op, threshold)
		if source == "" {
			msg = fmt.Sprintf("%s: %s not measured (%s), threshold %g", name, measure, cmp.Or(notMeasured[name], "no uniqueness ran"), threshold)
		}
		res.Violations = append(res.Violations, policyViolation{name, measure, value, measured, threshold, msg})
	}
	// max over the measures of those names, a later name only where strictly larger;
	// measure and source name the largest.
	maxOf := func(names ...string) (v float64, measure, src string, found bool) {
		v = math.Inf(-1)
		for _, name := range names {
			for _, m := range r.Measures {
				if m.Name == name && m.Value > v {
					v, measure, src, found = m.Value, name, m.Source, true
				}
			}
		}
		return v, measure, src, found
	}
	// A measure never taken fails its rule (the value would be −∞, and pass a maximum).
	measured := func(name string, threshold float64, pass func(float64) bool, measures ...string) {
		if v, measure, src, found := maxOf(measures...); found {
			rule(name, measure, threshold, v, pass(v), src)
		} else {
			rule(name, measures[0], threshold, 0, false, "")
		}
	}
	if p.MaxReid != nil {
		// Every linkage's Reid, a PRL run's one-to-one assignment's too (the gate read
		// "reid" alone and passed at 0.93 a file the assignment links at 1).
		measured("max_reid", *p.MaxReid, func(v float64) bool { return v <= *p.MaxReid }, "reid", "reid_assignment")
	}
	if p.MaxWorstCaseReid != nil {
		name := "worst_case_reid_" + p.worstCaseBy()
		v, _, src, found := maxOf(name)
		// The bound and the incumbent count links with margin ≥ ε; a distance of the
		// families that re-identifies more by plain DBRL (margins below ε) is a worst case
		// at least that high, and the gate must not pass below it.
		if d, _, dsrc, ok := maxOf("worst_case_reid_dbrl"); found && ok && d > v {
			v, src, name = d, dsrc, "worst_case_reid_dbrl"
		}
		if !found {
			// No operator measured: the gate fails rather than passing blind.
			rule("max_worst_case_reid", name, *p.MaxWorstCaseReid, 0, false, "")
		} else {
			rule("max_worst_case_reid", name, *p.MaxWorstCaseReid, v, v <= *p.MaxWorstCaseReid, src)
		}
	}
	if p.MaxKReid != nil {
		if r.Summary.KReidNotMeasured != "" {
			// The file contradicts --masking: K.Reid's 0 is no measurement, and the gate
			// must not pass on it.
			rule("max_k_reid", "k_reid", *p.MaxKReid, 0, false, "")
		} else {
			measured("max_k_reid", *p.MaxKReid, func(v float64) bool { return v <= *p.MaxKReid }, "k_reid")
		}
	}
	if p.MaxPPUGivenSU != nil {
		measured("max_p_pu_given_su", *p.MaxPPUGivenSU, func(v float64) bool { return v <= *p.MaxPPUGivenSU }, "p_pu_given_su")
	}
	if p.MinK != nil {
		measured("min_k", *p.MinK, func(v float64) bool { return v >= *p.MinK }, "k_min")
	}
	return res
}

// kReidRefuted says why no K.Reid of r is a measurement (masked records that no original
// is consistent with under --masking, or wrong links it made known: the masking was not
// done as stated), or "".
func kReidRefuted(r *auditReport) string {
	for _, l := range r.Linkage {
		if l.maskingRefuted { // whole-file counts: at least those over the records measured
			return fmt.Sprintf("--masking does not describe the masked file (%s: see the warning)", l.ID)
		}
	}
	return ""
}
