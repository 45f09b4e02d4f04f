package optimize

import "slices"

// poolScan keeps each pooled cut's coverage Σ_{i∈S} K_i at the K of the last scan, so
// that a scan updates only the cuts of the records whose K changed (a master solve moves
// a few K; the full scan of 20,000 cuts was 9–13 % of the searches' CPU). After a scan
// every cut outside the master was covered; a cut leaves the master (purgeMaster) on
// another K, so it is rechecked at the next scan, as are new cuts.
type poolScan struct {
	k       []float64 // K of the last scan
	cov     []float64 // cov[c]: coverage of cut c at k, updated incrementally
	recheck []int     // cuts to check whatever their coverage
	scans   int
	mark    []bool
}

// poolRescan is how often (in scans) the coverages are recomputed from scratch, so that
// the increments' rounding never accumulates; poolNear is the tracked coverage below
// which a cut is checked exactly: the violation threshold 1 − intTol plus a margin of
// 1e-9 for that rounding.
const (
	poolRescan = 256
	poolNear   = 1 - intTol + 1e-9
)

// candidates returns, sorted, the cuts that K may leave uncovered: those whose tracked
// coverage fell below poolNear, the new ones and those to recheck; the
// caller checks each exactly.
func (p *poolScan) candidates(cuts [][]int, cutsOf [][]int, K []float64) []int {
	var out []int
	if p.scans%poolRescan == 0 || len(p.k) != len(K) {
		p.k = append(p.k[:0], K...)
		p.cov = p.cov[:0]
		for _, S := range cuts {
			p.cov = append(p.cov, coverage(S, K))
		}
		p.recheck = p.recheck[:0]
		p.scans++
		for c, v := range p.cov {
			if v < poolNear {
				out = append(out, c)
			}
		}
		return out
	}
	p.scans++
	for c := len(p.cov); c < len(cuts); c++ { // new cuts, at the last scan's K
		p.cov = append(p.cov, coverage(cuts[c], p.k))
		p.recheck = append(p.recheck, c)
	}
	if len(p.mark) < len(cuts) {
		p.mark = append(p.mark, make([]bool, len(cuts)-len(p.mark))...)
	}
	for i, v := range K {
		d := v - p.k[i]
		if d == 0 {
			continue
		}
		p.k[i] = v
		for _, c := range cutsOf[i] {
			p.cov[c] += d
			if d < 0 && p.cov[c] < poolNear && !p.mark[c] {
				p.mark[c] = true
				out = append(out, c)
			}
		}
	}
	for _, c := range p.recheck {
		if !p.mark[c] {
			p.mark[c] = true
			out = append(out, c)
		}
	}
	p.recheck = p.recheck[:0]
	for _, c := range out {
		p.mark[c] = false
	}
	slices.Sort(out)
	return out
}
