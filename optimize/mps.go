package optimize

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// mpsRow is a row of an exported model: a family row (rec −1, lo ≤ θ·a ≤ up) or a
// competitor row θ·a + C_i K_i ≥ ε of record rec.
type mpsRow struct {
	name   string
	rec    int
	idx    []int
	val    []float64
	lo, up float64
}

// mpsModel is an exported big-C model.
type mpsModel struct {
	sp   space
	eps  float64
	recs []rec
	rows []mpsRow
}

// writeFullMPS writes the full big-C model of the design note §4 for every record with a
// true partner and every competitor j ≠ t(i):
//
//	minimise Σ K_i  s.t.  θ·(φ(i,j) − φ(i,t(i))) + C_i K_i ≥ ε,  θ in the family,  K ∈ {0,1}
//
// with the family's C_i (rec.bigC) and constraints (space.exportRows: the simplex; all
// monotonicity rows of a fuzzy measure; the trace, the 2×2 minors and the eigenvector
// cuts found for the PSD cone, if any: an outer approximation of it). Rows are named R<query>_<reference> (1-based), family
// rows F<k>. The model is built in memory, column by column: keep it to a few hundred
// records.
func writeFullMPS(path string, sv *solver) error {
	d := sv.d
	op, err := d.sp.operator(d.sp.euclidean())
	if err != nil {
		return fmt.Errorf("optimize: export MPS: %w", err)
	}
	features := op.Features
	if c2, ok := d.sp.(*choquet2Space); ok {
		features = c2.features // the operator is the full measure's; θ is the Möbius form
	}
	md := mpsModel{sp: d.sp, eps: sv.eps, recs: d.recs}
	md.family(sv)
	n := d.sp.dim()
	ft, fj := make([]float64, n), make([]float64, n)
	for x := range d.recs {
		r := &d.recs[x]
		q := d.query(r.q)
		features(ft, q, d.ref(r.t))
		for j := range d.nr {
			if j == r.t {
				continue
			}
			features(fj, q, d.ref(j))
			row := mpsRow{name: "R" + strconv.Itoa(r.q+1) + "_" + strconv.Itoa(j+1), rec: x}
			for k := range n {
				if v := fj[k] - ft[k]; v != 0 {
					row.idx = append(row.idx, k)
					row.val = append(row.val, v)
				}
			}
			md.rows = append(md.rows, row)
		}
	}
	return md.write(path, nil)
}

// family adds the family's rows to the model.
func (md *mpsModel) family(sv *solver) {
	// The aux columns are exported with the rows that use them (a bilinear cut's depth
	// t ≥ 0 may be 0, so the cuts keep their meaning; the 2-additive measure's s_ij).
	for k, r := range sv.d.sp.exportRows(sv.famCuts) {
		md.rows = append(md.rows, mpsRow{name: "F" + strconv.Itoa(k+1), rec: -1, idx: r.idx, val: r.val, lo: r.lo, up: r.up})
	}
}

// writeRestrictedMPS writes the big-C model restricted to the rows the search generated;
// records that can never be linked (dominance) have K fixed to 1. Its optimum is a lower
// bound on the full model's.
func writeRestrictedMPS(path string, sv *solver) error {
	d := sv.d
	md := mpsModel{sp: d.sp, eps: sv.eps, recs: d.recs}
	md.family(sv)
	fixed := make([]bool, len(d.recs))
	for x := range d.recs {
		r := &d.recs[x]
		fixed[x] = r.impossible
		for c, in := range sv.inLP[x] {
			if in {
				row := mpsRow{name: "R" + strconv.Itoa(r.q+1) + "_" + strconv.Itoa(int(r.candRef[c])+1), rec: x}
				row.idx, row.val = d.sp.row(d, r, c, nil, nil)
				md.rows = append(md.rows, row)
			}
		}
	}
	return md.write(path, fixed)
}

func (md *mpsModel) write(path string, fixed []bool) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".reid-mps-*")
	if err != nil {
		return fmt.Errorf("optimize: export MPS: %w", err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	w := bufio.NewWriterSize(tmp, 1<<20)
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	lo, up := md.sp.bounds() // every column of the θ-LP, aux included
	n := len(lo)
	type entry struct {
		row int
		v   float64
	}
	cols := make([][]entry, n)
	recRows := make([][]int, len(md.recs))
	for x, r := range md.rows {
		for e, k := range r.idx {
			cols[k] = append(cols[k], entry{x, r.val[e]})
		}
		if r.rec >= 0 {
			recRows[r.rec] = append(recRows[r.rec], x)
		}
	}
	fmt.Fprintf(w, "NAME reid FREE\n* free MPS (names without spaces); reid worst-case model: minimise sum K, eps = %s\nROWS\n N OBJ\n", num(md.eps))
	for _, r := range md.rows {
		kind := "G"
		switch {
		case r.rec < 0 && r.lo == r.up:
			kind = "E"
		case r.rec < 0 && math.IsInf(r.lo, -1):
			kind = "L"
		}
		fmt.Fprintf(w, " %s %s\n", kind, r.name)
	}
	fmt.Fprintf(w, "COLUMNS\n")
	// An aux column no exported row uses (a bilinear u_kl: its rows steer the LP only) is
	// left out.
	unused := func(k int) bool { return k >= md.sp.dim() && len(cols[k]) == 0 }
	for k := range n {
		if unused(k) {
			continue
		}
		col := "T" + strconv.Itoa(k+1)
		if len(cols[k]) == 0 {
			fmt.Fprintf(w, " %s OBJ 0\n", col)
		}
		for _, e := range cols[k] {
			fmt.Fprintf(w, " %s %s %s\n", col, md.rows[e.row].name, num(e.v))
		}
	}
	fmt.Fprintf(w, " MARKER 'MARKER' 'INTORG'\n")
	for x, r := range md.recs {
		name := "K" + strconv.Itoa(r.q+1)
		fmt.Fprintf(w, " %s OBJ 1\n", name)
		c := num(r.bigC)
		for _, row := range recRows[x] {
			fmt.Fprintf(w, " %s %s %s\n", name, md.rows[row].name, c)
		}
	}
	fmt.Fprintf(w, " MARKER 'MARKER' 'INTEND'\nRHS\n")
	e := num(md.eps)
	for _, r := range md.rows {
		switch {
		case r.rec >= 0:
			fmt.Fprintf(w, " RHS %s %s\n", r.name, e)
		case math.IsInf(r.lo, -1):
			if r.up != 0 {
				fmt.Fprintf(w, " RHS %s %s\n", r.name, num(r.up))
			}
		case r.lo != 0:
			fmt.Fprintf(w, " RHS %s %s\n", r.name, num(r.lo))
		}
	}
	fmt.Fprintf(w, "BOUNDS\n")
	for k := range n {
		if unused(k) {
			continue
		}
		col := "T" + strconv.Itoa(k+1)
		if lo[k] == up[k] {
			fmt.Fprintf(w, " FX BND %s %s\n", col, num(lo[k]))
			continue
		}
		if lo[k] != 0 {
			fmt.Fprintf(w, " LO BND %s %s\n", col, num(lo[k]))
		}
		fmt.Fprintf(w, " UP BND %s %s\n", col, num(up[k]))
	}
	for x, r := range md.recs {
		name := "K" + strconv.Itoa(r.q+1)
		if fixed != nil && fixed[x] {
			fmt.Fprintf(w, " FX BND %s 1\n", name)
		} else {
			fmt.Fprintf(w, " UP BND %s 1\n", name)
		}
	}
	fmt.Fprintf(w, "ENDATA\n")
	if err = w.Flush(); err != nil {
		return fmt.Errorf("optimize: export MPS: %w", err)
	}
	if err = tmp.Close(); err != nil {
		return fmt.Errorf("optimize: export MPS: %w", err)
	}
	if err = os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("optimize: export MPS: %w", err)
	}
	return nil
}
