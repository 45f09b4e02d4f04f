package optimize

import (
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/reid-sdc/reid/distances"
)

// TestLearnNotFinite: a NaN or ±Inf in either file is refused before the reductions, for
// every family, with an error wrapping distances.ErrNotFinite that names the side, the
// attribute and the record where the test put it. (A NaN query used to come out as "3 of
// 3 linked, bound 3, optimal": every comparison with NaN is false.)
func TestLearnNotFinite(t *testing.T) {
	cases := []struct {
		name    string
		queries bool
		attr    int
		rec     int
		value   float64
		want    string
	}{
		{"NaN query", true, 1, 2, math.NaN(), "queries: attribute 1 of record 2 (0-based) is NaN"},
		{"+Inf reference", false, 0, 1, math.Inf(1), "references: attribute 0 of record 1 (0-based) is +Inf"},
		{"-Inf query", true, 0, 0, math.Inf(-1), "queries: attribute 0 of record 0 (0-based) is -Inf"},
	}
	for _, fam := range []Family{WM, OWA, Bilinear, Choquet, Choquet2} {
		for _, c := range cases {
			q := [][]float64{{-1, 0, 1}, {1, -1, 0}}
			r := [][]float64{{-1.1, 0.1, 0.9}, {1, -0.9, 0.1}}
			if c.queries {
				q[c.attr][c.rec] = c.value
			} else {
				r[c.attr][c.rec] = c.value
			}
			res, err := Learn(Problem{Queries: q, Refs: r, Truth: identity(3), Family: fam}, Settings{TimeLimit: 20 * time.Second, Threads: 1})
			if !errors.Is(err, distances.ErrNotFinite) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("%v, %s: result %d of %d linked, bound %d, %v; error %v; want distances.ErrNotFinite with %q",
					fam, c.name, res.CorrectLinks, res.N, res.Bound, res.Status, err, c.want)
			}
		}
	}
}
