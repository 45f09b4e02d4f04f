package optimize

import (
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/reid-sdc/reid/optimize/clp"
)

// TestPackLPAgainstCLP runs the same sequence of covering LPs through packLP and CLP, as
// the search does: rows added in batches, bounds of records fixed to 0 or 1 and freed
// again, rows deleted. Every solve must agree on the status and the optimum; packLP's K
// must satisfy its rows and bounds with Σ K equal to the optimum, and its infeasibility
// certificate must prove what it claims.
func TestPackLPAgainstCLP(t *testing.T) {
	pivotedOut, fullKernel := 0, 0
	for seed := range uint64(48) {
		rng := rand.New(rand.NewPCG(seed, 77))
		n := 5 + rng.IntN(60)
		switch {
		case seed%8 == 7:
			n = 100 + rng.IntN(60) // the sizes it serves in the search
		case seed >= 40:
			n = 2 + rng.IntN(3) // every v_i, z_i can leave: the kernel is the whole basis
		}
		pk := newPackLP(n)
		ref := clp.New()
		lo, up, obj := make([]float64, n), make([]float64, n), make([]float64, n)
		for i := range n {
			up[i], obj[i] = 1, 1
		}
		if err := ref.LoadProblem(0, make([]int, n+1), nil, nil, lo, up, obj, nil, nil); err != nil {
			t.Fatal(err)
		}
		var rows [][]int
		var rhs []float64
		var lastK []float64
		addRow := func() {
			size := 1 + rng.IntN(min(n, 6))
			S := rng.Perm(n)[:size]
			b := 1.0
			if size > 2 && rng.IntN(8) == 0 {
				b = float64(size - 1) // a twin group's row
			}
			ones := make([]float64, size)
			for x := range ones {
				ones[x] = 1
			}
			rows, rhs = append(rows, S), append(rhs, b)
			if err := ref.AddRow(b, math.Inf(1), S, ones); err != nil {
				t.Fatal(err)
			}
			if err := pk.AddRow(b, math.Inf(1), S, ones); err != nil {
				t.Fatal(err)
			}
		}
		for step := range 30 {
			for range rng.IntN(3 * n / 2) {
				addRow()
			}
			for range rng.IntN(4) {
				i := rng.IntN(n)
				switch rng.IntN(3) {
				case 0:
					lo[i], up[i] = 0, 1
				case 1:
					lo[i], up[i] = 1, 1
				case 2:
					lo[i], up[i] = 0, 0
				}
				if rng.IntN(50) == 0 {
					lo[i], up[i] = 1, 0 // crossed: infeasible whatever the rows
				}
				ref.SetColumnBounds(i, lo[i], up[i])
				pk.SetColumnBounds(i, lo[i], up[i])
			}
			var del []int
			switch {
			case step%7 == 6 && len(rows) > 3:
				del = []int{0, len(rows) / 2, len(rows) - 1} // any rows: may cost the warm start
			case step%5 == 4 && lastK != nil:
				// As purgeMaster: the rows slack at the last solution, whose y is zero
				// there, leave without costing the warm start.
				for r, S := range rows {
					if coverage(S, lastK) > rhs[r]+1e-6 {
						del = append(del, r)
					}
				}
			}
			if len(del) > 0 {
				slack := step%7 != 6
				for _, r := range del {
					if q := pk.posY[r]; pk.warm && q >= 0 && pk.xb[q] <= 1e-9 {
						pivotedOut++ // basic at zero: pivotOut's path
					}
				}
				ref.DeleteRows(del)
				pk.DeleteRows(del)
				if slack && !pk.warm {
					t.Fatalf("seed %d step %d: deleting rows slack at the last K lost the warm start", seed, step)
				}
				gone := map[int]bool{}
				for _, r := range del {
					gone[r] = true
				}
				var keptRows [][]int
				var keptRHS []float64
				for r := range rows {
					if !gone[r] {
						keptRows, keptRHS = append(keptRows, rows[r]), append(keptRHS, rhs[r])
					}
				}
				rows, rhs = keptRows, keptRHS
				checkPackBasis(t, pk)
			}
			want := ref.Dual()
			if want != clp.Optimal && want != clp.PrimalInfeasible {
				want = ref.Primal()
			}
			got := pk.Dual()
			if got != clp.Optimal && got != clp.PrimalInfeasible {
				t.Fatalf("seed %d step %d: packLP status %v", seed, step, got)
			}
			if got != want {
				t.Fatalf("seed %d step %d: packLP %v, CLP %v", seed, step, got, want)
			}
			crossed := false
			for i := range n {
				crossed = crossed || lo[i] > up[i]
			}
			lastK = nil
			if got == clp.PrimalInfeasible && crossed {
				continue // infeasible by its bounds alone: there is no row certificate
			}
			if got == clp.PrimalInfeasible {
				y, ok := pk.FarkasCertificate()
				if !ok {
					t.Fatalf("seed %d step %d: no certificate", seed, step)
				}
				// Σ_r b_r y_r > Σ_i up_i (Aᵀy)_i: no K within the bounds covers the rows.
				lhs := 0.0
				for r, v := range y {
					if v < 0 {
						t.Fatalf("seed %d step %d: certificate entry %g < 0", seed, step, v)
					}
					lhs += rhs[r] * v
					for _, i := range rows[r] {
						lhs -= up[i] * v
					}
				}
				if lhs <= 0 {
					t.Fatalf("seed %d step %d: certificate does not prove infeasibility (%g)", seed, step, lhs)
				}
				continue
			}
			if d := math.Abs(pk.ObjectiveValue() - ref.ObjectiveValue()); d > 1e-6*max(1, math.Abs(ref.ObjectiveValue())) {
				t.Fatalf("seed %d step %d: objective %g, CLP %g", seed, step, pk.ObjectiveValue(), ref.ObjectiveValue())
			}
			checkPackBasis(t, pk)
			checkPackPi(t, pk)
			if len(pk.krow) == n {
				fullKernel++
			}
			K := pk.Solution(nil)
			lastK = K
			sum := 0.0
			for i, v := range K {
				if v < lo[i]-1e-9 || v > up[i]+1e-9 {
					t.Fatalf("seed %d step %d: K[%d] = %g outside [%g, %g]", seed, step, i, v, lo[i], up[i])
				}
				sum += v
			}
			for r, S := range rows {
				if c := coverage(S, K); c < rhs[r]-1e-6 {
					t.Fatalf("seed %d step %d: row %d covered %g < %g", seed, step, r, c, rhs[r])
				}
			}
			if math.Abs(sum-ref.ObjectiveValue()) > 1e-6 {
				t.Fatalf("seed %d step %d: Σ K = %g, optimum %g", seed, step, sum, ref.ObjectiveValue())
			}
		}
		ref.Close()
	}
	if pivotedOut == 0 {
		t.Error("no deleted row was basic: pivotOut was not exercised")
	}
	if fullKernel == 0 {
		t.Error("no basis was all cuts (kernel k = n): that case was not exercised")
	}
	t.Logf("%d basic rows pivoted out before deletion; %d optimal bases all cuts", pivotedOut, fullKernel)
}

// The master LP is a packLP up to packMaxN records; solved by CLP instead, the search
// proves the same optimum (twin rows included: mdav_k3).
func TestMasterEngines(t *testing.T) {
	for _, c := range []struct {
		file   string
		n      int
		family Family
	}{{"rankswap_p15", 70, WM}, {"noise_additive_50", 70, OWA}, {"mdav_k3", 150, WM}, {"noise_correlated_50", 60, WM}} {
		t.Run(c.file, func(t *testing.T) {
			p := census(t, c.file, c.n)
			p.Family = c.family
			sameOptimum(t, p, "packLP", Settings{}, "CLP", Settings{clpMaster: true})
		})
	}
}

// failingMaster is a packLP whose Dual fails once, at its failAt-th solve, as packLP does
// when it rejects its own answer.
type failingMaster struct {
	*packLP
	solves, failAt int
	failed         *bool
}

func (f *failingMaster) Dual() clp.Status {
	if f.solves++; f.solves == f.failAt {
		*f.failed = true
		return clp.StoppedOnErrors
	}
	return f.packLP.Dual()
}

// When packLP fails, CLP takes over the master with the same rows and bounds
// (switchMasterToCLP) and the search proves the same optimum.
func TestMasterFallback(t *testing.T) {
	p := census(t, "rankswap_p15", 70)
	p.Family = WM
	failed := false
	wrap := func(m masterLP) masterLP { return &failingMaster{packLP: m.(*packLP), failAt: 40, failed: &failed} }
	sameOptimum(t, p, "packLP", Settings{}, "packLP failing at its 40th solve", Settings{masterWrap: wrap})
	if !failed {
		t.Fatal("the master never reached its 40th solve: the test does not exercise the fallback")
	}
}

// switchMasterToCLP rebuilds the master on CLP with the same rows (twin rows first, then
// the cuts, some dropped by purgeMaster, and a block row) and bounds: both masters have
// the same optimum.
func TestSwitchMasterToCLP(t *testing.T) {
	p := census(t, "mdav_k3", 60)
	p.Family = WM
	sv := testSolver(t, p, 1e-4, 3)
	d := sv.d
	sv.twinCuts()
	if len(sv.twinRows) == 0 {
		t.Fatal("mdav_k3: no twin rows")
	}
	n := len(d.recs)
	rng := rand.New(rand.NewPCG(3, 4))
	sv.masterKeep = 20 // let purgeMaster drop rows
	// Branching decisions as a path of the tree makes them: each record at most once.
	var fix []int
	used := map[int]bool{}
	for step := range 8 {
		for range 15 {
			S := rng.Perm(n)[:2+rng.IntN(4)]
			sort.Ints(S)
			sv.addCut(S)
		}
		// An outsider in conflict with every member of a twin group: a clique.
		row, j := sv.twinRows[rng.IntN(len(sv.twinRows))], rng.IntN(n)
		for _, i := range row.members {
			if i != j {
				sv.addCut([]int{min(i, j), max(i, j)})
			}
		}
		if step == 4 { // a block row among the twin rows and the cuts
			B := rng.Perm(n)[:20]
			sort.Ints(B)
			sv.addBlockRow(B, 12, -1, 0) // binding: the master would cover less
		}
		i := rng.IntN(n)
		if used[i] {
			continue
		}
		used[i] = true
		f := i + 1
		if step%3 == 2 {
			f = -f
		}
		if sv.applyBounds(&node{fix: append(fix, f)}) {
			fix = append(fix, f)
		}
		sv.purgeMaster()
		_, K, st := sv.solveMaster()
		if st == masterSolved && sv.cliqueSeparate(K) {
			_, _, st = sv.solveMaster()
		}
		switch st {
		case masterInfeasible:
			fix = fix[:len(fix)-1] // back to a feasible node
			sv.applyBounds(&node{fix: fix})
		case masterSolved:
		default:
			t.Fatalf("step %d: master state %v", step, st)
		}
	}
	if _, ok := sv.master.(*packLP); !ok {
		t.Fatal("the master of 60 records is not a packLP")
	}
	objPack, _, stPack := sv.solveMaster()
	before := slices.Clone(sv.masterCut)
	sv.switchMasterToCLP()
	if _, ok := sv.master.(*clp.Model); !ok {
		t.Fatal("switchMasterToCLP left a packLP")
	}
	objCLP, K, stCLP := sv.solveMaster()
	if !slices.Equal(sv.masterCut, before) {
		t.Errorf("the master's rows changed in the switch: %v, were %v", sv.masterCut, before)
	}
	if stPack != masterSolved || stCLP != masterSolved || math.Abs(objPack-objCLP) > 1e-6 {
		t.Fatalf("packLP: state %v objective %g; CLP after the switch: state %v objective %g", stPack, objPack, stCLP, objCLP)
	}
	for _, row := range sv.twinRows {
		if c := coverage(row.members, K); c < float64(row.rhs)-1e-6 {
			t.Errorf("twin row covered %g < %d after the switch", c, row.rhs)
		}
	}
	if len(sv.blockRows) != 1 {
		t.Fatalf("%d block rows, want 1", len(sv.blockRows))
	}
	if row := sv.blockRows[0]; coverage(row.members, K) < float64(row.rhs)-1e-6 {
		t.Errorf("block row covered %g < %d after the switch", coverage(row.members, K), row.rhs)
	}
	if len(sv.cliqueRows) == 0 {
		t.Fatal("no clique rows: the test does not exercise them")
	}
	for c, C := range sv.cliqueRows {
		if cov := coverage(C, K); sv.cliqueIn[c] && cov < float64(len(C)-1)-1e-6 {
			t.Errorf("clique row %v covered %g < %d after the switch", C, cov, len(C)-1)
		}
	}
	t.Logf("%d twin rows, %d clique rows, %d master rows, objective %g (%v)", len(sv.twinRows), len(sv.cliqueRows), len(sv.masterCut), objCLP, stCLP)
}

// checkPackBasis checks packLP's basis bookkeeping: positions agree with basic, no record
// has both v_i and z_i basic, column gives B⁻¹ of the basis matrix, and xb = B⁻¹·one ≥ 0.
func checkPackBasis(t *testing.T, p *packLP) {
	t.Helper()
	if !p.warm {
		return // the next solve starts cold
	}
	n := p.n
	for q, id := range p.basic {
		var pos int
		switch {
		case id < n:
			pos = p.posV[id]
		case id < 2*n:
			pos = p.posZ[id-n]
		default:
			pos = p.posY[id-2*n]
		}
		if pos != q {
			t.Fatalf("variable %d at position %d, recorded at %d", id, q, pos)
		}
	}
	count := 0
	for i := range n {
		if p.posV[i] >= 0 && p.posZ[i] >= 0 {
			t.Fatalf("v_%d and z_%d both basic", i, i)
		}
		for _, pos := range []int{p.posV[i], p.posZ[i]} {
			if pos >= 0 {
				count++
			}
		}
	}
	for _, pos := range p.posY {
		if pos >= 0 {
			count++
		}
	}
	if count != n {
		t.Fatalf("%d basic variables recorded, want %d", count, n)
	}
	// B⁻¹·B = I column by column.
	for q, id := range p.basic {
		p.column(id)
		for k, a := range p.alpha {
			want := 0.0
			if k == q {
				want = 1
			}
			if math.Abs(a-want) > 1e-8 {
				t.Fatalf("(B⁻¹B)[%d][%d] = %g", k, q, a)
			}
		}
	}
	// xb = B⁻¹·one, solved afresh from the basis matrix.
	B := packBasisMatrix(p)
	var x mat.VecDense
	if err := x.SolveVec(B, mat.NewVecDense(n, p.one)); err != nil {
		t.Fatalf("basis matrix: %v", err)
	}
	for q := range n {
		if s := x.AtVec(q); math.Abs(s-p.xb[q]) > 1e-7 || p.xb[q] < -1e-9 {
			t.Fatalf("xb[%d] = %g, B⁻¹·one = %g", q, p.xb[q], s)
		}
	}
}

// checkPackPi checks the simplex multipliers after a solve: Bᵀπ = c_B.
func checkPackPi(t *testing.T, p *packLP) {
	t.Helper()
	B := packBasisMatrix(p)
	for q, id := range p.basic {
		s := 0.0
		for i := range p.n {
			s += B.At(i, q) * p.pi[i]
		}
		if c := p.cost(id); math.Abs(s-c) > 1e-7 {
			t.Fatalf("(Bᵀπ)[%d] = %g, cost of variable %d = %g", q, s, id, c)
		}
	}
}

// cost is the dual objective coefficient of variable id.
func (p *packLP) cost(id int) float64 {
	switch {
	case id < p.n:
		return p.lo[id]
	case id < 2*p.n:
		return -p.up[id-p.n]
	}
	return p.rhs[id-2*p.n]
}

// packBasisMatrix is the basis matrix of p, column q the variable at position q.
func packBasisMatrix(p *packLP) *mat.Dense {
	n := p.n
	B := mat.NewDense(n, n, nil)
	for q, id := range p.basic {
		switch {
		case id < n:
			B.Set(id, q, 1)
		case id < 2*n:
			B.Set(id-n, q, -1)
		default:
			for _, i := range p.rows[id-2*n] {
				B.Set(i, q, 1)
			}
		}
	}
	return B
}

// stoppingMaster is a packLP whose Primal stops on CLP's limit, without solving, the
// first stops times it is called.
type stoppingMaster struct {
	*packLP
	stops, primals int
}

func (s *stoppingMaster) Primal() clp.Status {
	if s.primals++; s.primals <= s.stops {
		return clp.StoppedOnLimit
	}
	return s.packLP.Primal()
}

// A solve that CLP stopped on its CPU-time cap while wall time is left is resumed (up to
// maxResumes times) instead of being taken for a failure.
func TestResumeStoppedSolve(t *testing.T) {
	for _, c := range []struct {
		stops, primals int
		want           clp.Status
	}{
		{0, 0, clp.Optimal},
		{3, 4, clp.Optimal},
		{maxResumes + 5, maxResumes, clp.StoppedOnLimit},
	} {
		sv := &solver{}
		m := &stoppingMaster{packLP: newPackLP(2), stops: c.stops}
		if err := m.AddRow(1, math.Inf(1), []int{0, 1}, []float64{1, 1}); err != nil {
			t.Fatal(err)
		}
		st := clp.Optimal
		if c.stops > 0 {
			st = clp.StoppedOnLimit
		}
		if got := sv.resume(m, st); got != c.want || m.primals != c.primals {
			t.Errorf("%d stops: status %v after %d primal solves, want %v after %d", c.stops, got, m.primals, c.want, c.primals)
		}
	}
}

// cliqueSeparate adds the clique rows of the conflict graph (pairs of records that are
// infeasible together) that K violates, extended to maximal cliques without the fixed
// records, each once; a clique left out of the master comes back when violated again.
func TestCliqueSeparate(t *testing.T) {
	const n = 6
	for _, c := range []struct {
		name  string
		pairs [][2]int
		fixed []int
		K     [n]float64
		want  [][]int
	}{
		{"triangle half linked", [][2]int{{0, 1}, {0, 2}, {1, 2}}, nil, [n]float64{0.5, 0.5, 0.5, 1, 1, 1}, [][]int{{0, 1, 2}}},
		{"path is no clique", [][2]int{{0, 1}, {1, 2}}, nil, [n]float64{0.5, 0.5, 0.5, 1, 1, 1}, nil},
		{"triangle covered", [][2]int{{0, 1}, {0, 2}, {1, 2}}, nil, [n]float64{0.5, 0.5, 1, 1, 1, 1}, nil},
		{"extended to maximal", [][2]int{{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}, {3, 4}}, nil, [n]float64{0.4, 0.4, 0.4, 1, 1, 1}, [][]int{{0, 1, 2, 3}}},
		{"fixed left out", [][2]int{{0, 1}, {0, 2}, {1, 2}, {0, 3}, {1, 3}, {2, 3}}, []int{3}, [n]float64{0.4, 0.4, 0.4, 1, 1, 1}, [][]int{{0, 1, 2}}},
		{"two cliques", [][2]int{{0, 1}, {0, 2}, {1, 2}, {3, 4}, {3, 5}, {4, 5}}, nil, [n]float64{0.5, 0.5, 0.5, 0.6, 0.6, 0.6}, [][]int{{0, 1, 2}, {3, 4, 5}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			sv := &solver{d: &data{recs: make([]rec, n)}, fixed: make([]bool, n), cutKeys: map[string]bool{}, cutCount: make([]int, n), cutsOf: make([][]int, n),
				conflict: map[uint64]bool{}, neighbours: make([][]int, n), cliqueKeys: map[string]bool{}, master: newPackLP(n)}
			for _, i := range c.fixed {
				sv.fix(i)
			}
			for _, p := range c.pairs {
				sv.addCut([]int{p[0], p[1]})
			}
			added := sv.cliqueSeparate(c.K[:])
			if added != (len(c.want) > 0) || !slices.EqualFunc(sv.cliqueRows, c.want, slices.Equal) {
				t.Fatalf("added %v, clique rows %v; want %v", added, sv.cliqueRows, c.want)
			}
			if sv.cliqueSeparate(c.K[:]) {
				t.Fatal("a clique added twice")
			}
			// The master's optimum: each clique row lets one member be linked (the
			// cliques of the table are disjoint, the fixed records count 1 each).
			want := float64(len(c.fixed))
			for _, C := range c.want {
				want += float64(len(C) - 1)
			}
			for _, i := range c.fixed {
				sv.master.SetColumnBounds(i, 1, 1)
			}
			if st := sv.master.Dual(); st != clp.Optimal {
				t.Fatalf("master: %v", st)
			}
			// packLP's bound may fall short by its perturbation, Σ δ_i < 2·packPerturb·n.
			tol := 2*packPerturb*n + 1e-12
			if got := sv.master.ObjectiveValue(); len(c.want) > 0 && math.Abs(got-want) > tol {
				t.Fatalf("master optimum %g, want %g", got, want)
			}
			if len(c.want) == 0 {
				return
			}
			// purgeMaster drops every row slack at K = 1 (all of them); the master's
			// optimum falls to the fixed records, and comes back with the rows.
			sv.masterKeep = 0
			sv.lastK = []float64{1, 1, 1, 1, 1, 1}
			sv.purgeMaster()
			if len(sv.masterCut) != 0 || slices.Contains(sv.cliqueIn, true) {
				t.Fatalf("purgeMaster kept rows %v (clique rows in the master: %v)", sv.masterCut, sv.cliqueIn)
			}
			sv.master.Dual()
			if got := sv.master.ObjectiveValue(); math.Abs(got-float64(len(c.fixed))) > 1e-9 {
				t.Fatalf("master optimum %g without rows, want %d", got, len(c.fixed))
			}
			if !sv.cliqueSeparate(c.K[:]) || slices.Contains(sv.cliqueIn, false) || len(sv.cliqueRows) != len(c.want) {
				t.Fatalf("dropped clique rows did not come back: in %v, rows %v", sv.cliqueIn, sv.cliqueRows)
			}
			sv.poolSeparate(c.K[:])
			sv.master.Dual()
			if got := sv.master.ObjectiveValue(); math.Abs(got-want) > tol {
				t.Fatalf("master optimum %g after the rows came back, want %g", got, want)
			}
		})
	}
}
