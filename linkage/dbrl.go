package linkage

import (
	"fmt"

	"github.com/reid-sdc/reid/distances"
)

// Direction says which file's records are linked to which.
type Direction int

const (
	// MaskedToOriginal links each masked record to its nearest original record.
	MaskedToOriginal Direction = iota
	// OriginalToMasked links each original (intruder) record to its nearest masked record.
	OriginalToMasked
)

func (d Direction) String() string {
	if d == OriginalToMasked {
		return "original-to-masked"
	}
	return "masked-to-original"
}

// ParseDirection reads "masked-to-original" or "original-to-masked".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "masked-to-original":
		return MaskedToOriginal, nil
	case "original-to-masked":
		return OriginalToMasked, nil
	}
	return 0, fmt.Errorf("unknown direction %q (masked-to-original or original-to-masked)", s)
}

// Problem is a distance-based record linkage: an original file and its masked version,
// standardised, column-major (x[k][i] is attribute k of record i), on the same attributes,
// with the true link.
type Problem struct {
	Original, Masked [][]float64
	// TrueMasked[i] is the masked record of original record i; TrueOriginal[j] the original
	// record of masked record j, or −1 (see datasets.Pairing).
	TrueMasked, TrueOriginal []int
	Operator                 distances.Operator
	Direction                Direction
}

// Settings tunes DBRL.
type Settings struct {
	Threads  int
	Generic  bool
	Progress func(records int)
}

// Result is the outcome of a distance-based record linkage.
type Result struct {
	Direction Direction
	Operator  string
	// Records holds one result per linked (query) record, in the query file's order:
	// masked records for MaskedToOriginal, original records for OriginalToMasked.
	Records  []distances.QueryResult
	Measures Measures
}

// DBRL links every record of the query file to its nearest record of the other file
// under p.Operator (distance-based record linkage, Pagliuca & Seri 1999; Domingo-Ferrer &
// Torra 2001) and computes the Reid family of measures.
func DBRL(p Problem, s Settings) (*Result, error) {
	queries, refs, truth := p.Masked, p.Original, p.TrueOriginal
	if p.Direction == OriginalToMasked {
		queries, refs, truth = p.Original, p.Masked, p.TrueMasked
	}
	recs, err := distances.Search(queries, refs, truth, p.Operator, distances.Settings{
		Threads: s.Threads, Generic: s.Generic, Progress: s.Progress, TopK: 0,
	})
	if err != nil {
		return nil, err
	}
	return &Result{Direction: p.Direction, Operator: p.Operator.Name(), Records: recs, Measures: Measure(recs)}, nil
}
