package mask

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// Transition frequencies: with n_c records of code c, the count of c → d is
// Binomial(n_c, P[c][d]); allowed 5 binomial sds, and exactly 0 where P[c][d] = 0.
func TestPRAMFrequencies(t *testing.T) {
	P := mat.NewDense(4, 4, []float64{
		0.7, 0.1, 0.2, 0,
		0, 1, 0, 0,
		0.25, 0.25, 0.25, 0.25,
		0.05, 0, 0.15, 0.8,
	})
	const per = 50_000
	codes := make([]int32, 4*per)
	for i := range codes {
		codes[i] = int32(i % 4)
	}
	out, err := PRAM(codes, P, rand.New(rand.NewPCG(41, 42)))
	if err != nil {
		t.Fatal(err)
	}
	var count [4][4]int
	for i, c := range codes {
		count[c][out[i]]++
	}
	for c := 0; c < 4; c++ {
		for d := 0; d < 4; d++ {
			p := P.At(c, d)
			want := per * p
			tol := 5 * math.Sqrt(per*p*(1-p))
			if math.Abs(float64(count[c][d])-want) > tol || (p == 0 && count[c][d] != 0) {
				t.Errorf("%d → %d: %d times, want %v ± %v", c, d, count[c][d], want, tol)
			}
		}
	}
}

func TestPRAMIdentityAndUniform(t *testing.T) {
	codes := []int32{0, 2, 1, 2, 0, 1, 1}
	I, err := UniformPRAMMatrix(3, 0)
	if err != nil {
		t.Fatal(err)
	}
	out, err := PRAM(codes, I, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out, codes) {
		t.Errorf("identity matrix changed %v to %v", codes, out)
	}
	U, err := UniformPRAMMatrix(5, 0.2)
	if err != nil {
		t.Fatal(err)
	}
	for c := 0; c < 5; c++ {
		for d := 0; d < 5; d++ {
			want := 0.05 // 0.2 spread over the 4 other levels
			if c == d {
				want = 0.8
			}
			if math.Abs(U.At(c, d)-want) > 1e-15 {
				t.Errorf("U[%d][%d] = %v, want %v", c, d, U.At(c, d), want)
			}
		}
	}
	// Same seed, same output; the input is not modified.
	in := []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}
	a, _ := PRAM(in, U, rand.New(rand.NewPCG(3, 3)))
	b, _ := PRAM(in, U, rand.New(rand.NewPCG(3, 3)))
	if !slices.Equal(a, b) || !slices.Equal(in, []int32{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}) {
		t.Error("not deterministic, or input modified")
	}
	if one, err := UniformPRAMMatrix(1, 0); err != nil || one.At(0, 0) != 1 {
		t.Errorf("single level: %v, %v", one, err)
	}
}

func TestPRAMInvalid(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	cases := []struct {
		name  string
		P     *mat.Dense
		codes []int32
		want  error
	}{
		{"nil matrix", nil, []int32{0}, ErrInvalidMatrix},
		{"not square", mat.NewDense(2, 3, []float64{1, 0, 0, 0, 1, 0}), []int32{0}, ErrInvalidMatrix},
		{"negative entry", mat.NewDense(2, 2, []float64{1.5, -0.5, 0, 1}), []int32{0}, ErrInvalidMatrix},
		{"row sum ≠ 1", mat.NewDense(2, 2, []float64{0.5, 0.4, 0, 1}), []int32{0}, ErrInvalidMatrix},
		{"NaN entry", mat.NewDense(2, 2, []float64{math.NaN(), 1, 0, 1}), []int32{0}, ErrInvalidMatrix},
		{"code too large", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []int32{0, 2}, ErrInvalidCode},
		{"negative code", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), []int32{-1}, ErrInvalidCode},
		{"no records", mat.NewDense(2, 2, []float64{1, 0, 0, 1}), nil, ErrNoRecords},
	}
	for _, c := range cases {
		if _, err := PRAM(c.codes, c.P, rng); !errors.Is(err, c.want) {
			t.Errorf("%s: error %v, want %v", c.name, err, c.want)
		}
	}
	if _, err := PRAM([]int32{0}, mat.NewDense(1, 1, []float64{1}), nil); !errors.Is(err, ErrNilRNG) {
		t.Errorf("nil rng: %v", err)
	}
	for _, a := range []struct {
		levels int
		p      float64
	}{{0, 0}, {3, -0.1}, {3, 1.5}, {3, math.NaN()}, {1, 0.5}} {
		if _, err := UniformPRAMMatrix(a.levels, a.p); !errors.Is(err, ErrInvalidArgument) {
			t.Errorf("UniformPRAMMatrix(%d, %v): %v", a.levels, a.p, err)
		}
	}
}
