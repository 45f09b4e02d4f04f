package optimize

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
)

// mpsRecord is a record of an exported model: its K column and its competitor rows.
type mpsRecord struct {
	name  string
	bigC  float64
	fixed bool // K fixed to 1 (exported restricted model only)
	// rows calls f for each of the record's rows with its name and coefficients a.
	rows func(f func(name string, a []float64))
}

// writeFullMPS writes the full big-C model of the issue for every record with a true
// partner and every competitor j ≠ t(i):
//
//	minimise Σ K_i  s.t.  θ·(φ(i,j) − φ(i,t(i))) + C_i K_i ≥ ε,  Σ θ = 1,  0 ≤ θ ≤ 1,  K ∈ {0,1}
//
// with C_i = max_k φ_k(i, t(i)) + ε. Rows are named R<query>_<reference> (1-based).
func writeFullMPS(path string, p Problem, d *data, eps float64) error {
	m := d.m
	nr := len(p.Refs[0])
	phi := featureMap(p.Family, m)
	q := make([]float64, m)
	refs := make([]float64, nr*m)
	for j := range nr {
		for k := range m {
			refs[j*m+k] = p.Refs[k][j]
		}
	}
	recs := make([]mpsRecord, len(d.recs))
	for x := range d.recs {
		r := &d.recs[x]
		recs[x] = mpsRecord{name: "K" + strconv.Itoa(r.q+1), bigC: r.bigC, rows: func(f func(string, []float64)) {
			ft, fj := make([]float64, m), make([]float64, m)
			for k := range m {
				q[k] = p.Queries[k][r.q]
			}
			phi(ft, q, refs[r.t*m:(r.t+1)*m])
			for j := range nr {
				if j == r.t {
					continue
				}
				phi(fj, q, refs[j*m:(j+1)*m])
				for k := range m {
					fj[k] -= ft[k]
				}
				f("R"+strconv.Itoa(r.q+1)+"_"+strconv.Itoa(j+1), fj)
			}
		}}
	}
	return writeMPS(path, m, recs, eps)
}

// writeRestrictedMPS writes the big-C model restricted to the rows the search generated;
// records that can never be linked (dominance) have K fixed to 1. Its optimum is a lower
// bound on the full model's.
func writeRestrictedMPS(path string, sv *solver, eps float64) error {
	m := sv.d.m
	recs := make([]mpsRecord, len(sv.d.recs))
	for x := range sv.d.recs {
		r := &sv.d.recs[x]
		recs[x] = mpsRecord{name: "K" + strconv.Itoa(r.q+1), bigC: r.bigC, fixed: r.impossible, rows: func(f func(string, []float64)) {
			for c, in := range sv.inLP[x] {
				if in {
					f("R"+strconv.Itoa(r.q+1)+"_"+strconv.Itoa(r.candRef[c]+1), r.cand[c*m:(c+1)*m])
				}
			}
		}}
	}
	return writeMPS(path, m, recs, eps)
}

func writeMPS(path string, m int, recs []mpsRecord, eps float64) (err error) {
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
	fmt.Fprintf(w, "NAME reid FREE\n* free MPS (names without spaces); reid worst-case model: minimise sum K, theta on the simplex, eps = %s\nROWS\n N OBJ\n E SUM\n", num(eps))
	for _, r := range recs {
		r.rows(func(name string, _ []float64) { fmt.Fprintf(w, " G %s\n", name) })
	}
	fmt.Fprintf(w, "COLUMNS\n")
	for k := range m {
		col := "T" + strconv.Itoa(k+1)
		fmt.Fprintf(w, " %s SUM 1\n", col)
		for _, r := range recs {
			r.rows(func(name string, a []float64) {
				if a[k] != 0 {
					fmt.Fprintf(w, " %s %s %s\n", col, name, num(a[k]))
				}
			})
		}
	}
	fmt.Fprintf(w, " MARKER 'MARKER' 'INTORG'\n")
	for _, r := range recs {
		fmt.Fprintf(w, " %s OBJ 1\n", r.name)
		c := num(r.bigC)
		r.rows(func(name string, _ []float64) { fmt.Fprintf(w, " %s %s %s\n", r.name, name, c) })
	}
	fmt.Fprintf(w, " MARKER 'MARKER' 'INTEND'\nRHS\n RHS SUM 1\n")
	e := num(eps)
	for _, r := range recs {
		r.rows(func(name string, _ []float64) { fmt.Fprintf(w, " RHS %s %s\n", name, e) })
	}
	fmt.Fprintf(w, "BOUNDS\n")
	for k := range m {
		fmt.Fprintf(w, " UP BND T%d 1\n", k+1)
	}
	for _, r := range recs {
		if r.fixed {
			fmt.Fprintf(w, " FX BND %s 1\n", r.name)
		} else {
			fmt.Fprintf(w, " UP BND %s 1\n", r.name)
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
