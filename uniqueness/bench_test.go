package uniqueness

import (
	"fmt"
	"math"
	"testing"

	"github.com/reid-sdc/reid/datasets"
)

// benchTable generates rows × 8 categorical keys with the cardinalities of a household
// survey key and Zipf(s) category frequencies (as bench/uniqueness does at 10,000,000
// rows, where it is compared with pandas).
func benchTable(rows int, s float64) (*datasets.Table, []Key) {
	cards := []int{2, 18, 50, 6, 12, 40, 9, 4}
	tab := &datasets.Table{Source: "generated"}
	var keys []Key
	x := uint64(12345)
	for k, c := range cards {
		cdf := make([]float64, c)
		sum := 0.0
		for i := range cdf {
			sum += math.Pow(float64(i+1), -s)
			cdf[i] = sum
		}
		codes := make([]int32, rows)
		for i := range codes {
			x = x*6364136223846793005 + 1442695040888963407
			u := float64(x>>11) / (1 << 53) * sum
			j := 0
			for j < c-1 && cdf[j] <= u {
				j++
			}
			codes[i] = int32(j)
		}
		levels := make([]string, c)
		for i := range levels {
			levels[i] = fmt.Sprint(i)
		}
		name := fmt.Sprintf("k%d", k)
		tab.Columns = append(tab.Columns, datasets.Column{Name: name, Kind: datasets.Categorical, Codes: codes, Levels: levels})
		keys = append(keys, Key{Name: name})
	}
	return tab, keys
}

func BenchmarkCount(b *testing.B) {
	for _, bc := range []struct {
		rows int
		s    float64
	}{{1_000_000, 0.8}, {1_000_000, 2}} {
		tab, keys := benchTable(bc.rows, bc.s)
		b.Run(fmt.Sprintf("rows=%d/zipf=%v", bc.rows, bc.s), func(b *testing.B) {
			b.SetBytes(int64(bc.rows))
			for b.Loop() {
				if _, err := Count(tab, nil, keys, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
