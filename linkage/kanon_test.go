package linkage

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// TestKAnonymityBoundsKRReid: k-anonymity implies KR.Reid ≤ (0, 1/k) (design note §3).
// Each group of k identical masked records links, in either direction, in a way that can
// be right for at most one of its k members, and the microaggregation attack can never
// single a record out of a group of k. Checked on sdcMicro's MDAV files of CENSUS and EIA.
func TestKAnonymityBoundsKRReid(t *testing.T) {
	dir := sharedDatasets(t)
	for _, set := range []string{"census", "eia"} {
		for _, k := range []int{3, 5, 10} {
			orig := filepath.Join(dir, set, "original.csv")
			p := loadPair(t, orig, filepath.Join(dir, set, "masked", fmt.Sprintf("mdav_k%d.csv", k)))
			for _, d := range []Direction{MaskedToOriginal, OriginalToMasked} {
				p.Direction = d
				res, err := DBRL(p, Settings{})
				if err != nil {
					t.Fatal(err)
				}
				if r := res.Measures.Reid; r > 1/float64(k) {
					t.Errorf("%s mdav k=%d %v: Reid %.4f > 1/k", set, k, d, r)
				}
				if d == OriginalToMasked && res.Measures.Reid != 0 {
					// Each original faces ≥ k identical masked records: never a unique link.
					t.Errorf("%s mdav k=%d %v: Reid %.4f, want 0 (ties of ≥ k)", set, k, d, res.Measures.Reid)
				}
			}
			raw := loadRaw(t, orig, filepath.Join(dir, set, "masked", fmt.Sprintf("mdav_k%d.csv", k)))
			kr, err := KnownLinks(raw[0], raw[1], Knowledge{Method: MaskMDAV, K: k})
			if err != nil {
				t.Fatal(err)
			}
			if kr.KReid() != 0 {
				t.Errorf("%s mdav k=%d: K.Reid %v, want 0", set, k, kr.KReid())
			}
		}
	}
}

// loadRaw returns the unstandardised values of an original and a masked file.
func loadRaw(t *testing.T, original, masked string) [2][][]float64 {
	t.Helper()
	var out [2][][]float64
	for i, f := range []string{original, masked} {
		tab, err := datasets.Load(f, datasets.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = tab.NumericMatrix(); err != nil {
			t.Fatal(err)
		}
	}
	return out
}
