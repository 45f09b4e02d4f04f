package synth

import (
	"math"
	"math/rand/v2"
	"testing"
)

func closeTo(a, b float64) bool {
	if a == b {
		return true
	}
	return math.Abs(a-b) <= 4e-16*math.Abs(b)
}

func TestDetMath(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		x := 1400*r.Float64() - 700
		if got, want := detExp(x), math.Exp(x); !closeTo(got, want) {
			t.Fatalf("detExp(%v) = %v, want %v", x, got, want)
		}
		y := math.Ldexp(r.Float64()+0.5, r.IntN(200)-100)
		if got, want := detLog(y), math.Log(y); !closeTo(got, want) {
			t.Fatalf("detLog(%v) = %v, want %v", y, got, want)
		}
	}
	if detExp(0) != 1 || detLog(1) != 0 || detExp(1000) != math.Inf(1) || detExp(-1000) != 0 ||
		!math.IsInf(detLog(0), -1) || !math.IsNaN(detLog(-1)) || !math.IsNaN(detExp(math.NaN())) {
		t.Error("special cases")
	}
	if logistic(0) != 0.5 || logistic(40) <= 0.999 || logistic(-40) >= 0.001 {
		t.Error("logistic")
	}
}
