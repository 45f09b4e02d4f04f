package linkage

import (
	"context"
	"errors"
	"fmt"
	"slices"

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

// String returns the name ParseDirection reads, or "Direction(n)" for a value that is
// neither direction.
func (d Direction) String() string {
	switch d {
	case MaskedToOriginal:
		return "masked-to-original"
	case OriginalToMasked:
		return "original-to-masked"
	}
	return fmt.Sprintf("Direction(%d)", int(d))
}

// check returns an error wrapping ErrDirection unless d is one of the two directions.
func (d Direction) check() error {
	if d != MaskedToOriginal && d != OriginalToMasked {
		return fmt.Errorf("%w: %v", ErrDirection, d)
	}
	return nil
}

// Errors of DBRL and PRL a caller may branch on with errors.Is.
var (
	// ErrDirection is a Direction that is neither MaskedToOriginal nor OriginalToMasked.
	ErrDirection = errors.New("linkage: unknown direction (masked-to-original or original-to-masked)")
	// ErrNoTruth: no query record has a true partner, so there is no Reid to measure; a
	// result of N = 0 and Reid 0 would read as no risk.
	ErrNoTruth = errors.New("linkage: no query record has a true partner")
)

// ParseDirection reads "masked-to-original" or "original-to-masked".
func ParseDirection(s string) (Direction, error) {
	switch s {
	case "masked-to-original":
		return MaskedToOriginal, nil
	case "original-to-masked":
		return OriginalToMasked, nil
	}
	return 0, fmt.Errorf("%w: %q", ErrDirection, s)
}

// Problem is a distance-based record linkage: an original file and its masked version,
// standardised, column-major (x[k][i] is attribute k of record i), on the same attributes,
// with the true link.
type Problem struct {
	// Original and Masked are the two files' standardised values, column-major.
	Original, Masked [][]float64
	// TrueMasked[i] is the masked record of original record i; TrueOriginal[j] the original
	// record of masked record j, or −1 (see datasets.Pairing). DBRL reads only the truth
	// of its query file: TrueOriginal for MaskedToOriginal, TrueMasked for
	// OriginalToMasked; the other may be nil.
	TrueMasked, TrueOriginal []int
	// Operator is the distance the records are linked by.
	Operator distances.Operator
	// Direction says which file's records are linked (an unknown value is an error
	// wrapping ErrDirection).
	Direction Direction
}

// Settings tunes DBRL.
type Settings struct {
	// Threads is the number of goroutines (≤ 0: GOMAXPROCS); the results do not depend on it.
	Threads int
	// Generic forces the portable kernel of distances.Search (same results; for tests).
	Generic bool
	// Progress, when set, is called with numbers of query records done, possibly from
	// several goroutines at once; the calls add up to the number of query records.
	Progress func(records int)
}

// Result is the outcome of a distance-based record linkage.
type Result struct {
	// Direction and Operator (its Name) are the problem's.
	Direction Direction
	Operator  string
	// Records holds one result per linked (query) record, in the query file's order:
	// masked records for MaskedToOriginal, original records for OriginalToMasked.
	Records []distances.QueryResult
	// Measures is the Reid family over the records with a true partner.
	Measures Measures
}

// DBRL links every record of the query file to its nearest record of the other file
// under p.Operator (distance-based record linkage, Pagliuca & Seri 1999; Domingo-Ferrer &
// Torra 2001) and computes the Reid family of measures.
//
// Errors wrap ErrDirection (an unknown p.Direction), ErrNoTruth (the query file's truth,
// see Problem, is nil or all −1), distances.ErrShape or distances.ErrNotFinite (a NaN or
// ±Inf in a file).
func DBRL(p Problem, s Settings) (*Result, error) {
	return DBRLContext(context.Background(), p, s)
}

// DBRLContext is DBRL that stops when ctx is done (see distances.SearchContext),
// returning an error that wraps ctx's.
func DBRLContext(ctx context.Context, p Problem, s Settings) (*Result, error) {
	if err := p.Direction.check(); err != nil {
		return nil, err
	}
	if p.Operator == nil {
		return nil, errors.New("linkage: DBRL needs an operator")
	}
	queries, refs, truth, truthName, files := p.Masked, p.Original, p.TrueOriginal, "TrueOriginal", "queries: masked, references: original"
	if p.Direction == OriginalToMasked {
		queries, refs, truth, truthName, files = p.Original, p.Masked, p.TrueMasked, "TrueMasked", "queries: original, references: masked"
	}
	if !slices.ContainsFunc(truth, func(t int) bool { return t >= 0 }) {
		return nil, fmt.Errorf("%w: %v reads %s, which is nil or all −1", ErrNoTruth, p.Direction, truthName)
	}
	recs, err := distances.SearchContext(ctx, queries, refs, truth, p.Operator, distances.Settings{
		Threads: s.Threads, Generic: s.Generic, Progress: s.Progress, TopK: 0,
	})
	if err != nil {
		return nil, fmt.Errorf("linkage: DBRL %v (%s): %w", p.Direction, files, err)
	}
	return &Result{Direction: p.Direction, Operator: p.Operator.Name(), Records: recs, Measures: Measure(recs)}, nil
}
