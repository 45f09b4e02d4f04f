package uniqueness

import (
	"reflect"
	"testing"
)

// countReference numbers combinations by first appearance with a Go map of code arrays: an
// implementation independent of the packed keys, the partitions and the chunked merge.
func countReference(segs []segment) (ids [][]int32, counts [][]int64, classes int) {
	index := map[[8]int32]int32{}
	for _, s := range segs {
		id := make([]int32, s.rows)
		for i := 0; i < s.rows; i++ {
			var key [8]int32 // up to 8 columns
			for k, c := range s.cols {
				key[k] = c[i]
			}
			j, ok := index[key]
			if !ok {
				j = int32(len(index))
				index[key] = j
			}
			id[i] = j
		}
		ids = append(ids, id)
	}
	for s := range segs {
		cnt := make([]int64, len(index))
		for _, j := range ids[s] {
			cnt[j]++
		}
		counts = append(counts, cnt)
	}
	return ids, counts, len(index)
}

func genCodes(rows int, cards []int, seed uint64) [][]int32 {
	cols := make([][]int32, len(cards))
	x := seed
	for k := range cols {
		cols[k] = make([]int32, rows)
		for i := range cols[k] {
			x = x*6364136223846793005 + 1442695040888963407
			// Skewed: small codes are more frequent.
			v := (x >> 33) % uint64(min(cards[k], 1<<20))
			v = v * ((x >> 20) & 7) / 8
			cols[k][i] = int32(v)
		}
	}
	return cols
}

func TestCountSegments(t *testing.T) {
	tests := []struct {
		name  string
		rows  [2]int
		cards []int
	}{
		{"small", [2]int{1000, 500}, []int{3, 4, 5}},
		{"many chunks", [2]int{5 * minChunkRows, 3 * minChunkRows}, []int{7, 11, 13, 2}},
		// The product of cardinalities overflows 64 bits: leading columns are compressed
		// first.
		{"compressed", [2]int{3 * minChunkRows, minChunkRows}, []int{1 << 30, 1 << 30, 1 << 30, 5}},
		{"empty population", [2]int{100, 0}, []int{2, 2}},
		// Many distinct combinations: countSegments takes the partitioned path.
		{"spread", [2]int{5 * minChunkRows, 2 * minChunkRows}, []int{1000, 1000, 1000}},
	}
	for _, tc := range tests {
		segs := []segment{
			{cols: genCodes(tc.rows[0], tc.cards, 1), rows: tc.rows[0], ids: true},
			{cols: genCodes(tc.rows[1], tc.cards, 2), rows: tc.rows[1], ids: true},
		}
		wantIDs, wantCounts, wantClasses := countReference(segs)
		// The population's classes are not asked for: countSegments leaves them nil.
		segs[1].ids = false
		wantIDs[1] = nil
		mult := make([]uint64, len(tc.cards))
		for k, c := range tc.cards {
			mult[k] = uint64(c)
		}
		for _, workers := range []int{1, 2, 3} {
			for _, count := range []struct {
				name string
				f    func() tally
			}{
				{"countSegments", func() tally { return countSegments(segs, tc.cards, workers) }},
				{"countDirect", func() tally { return countDirect(segs, mult, workers) }},
				{"countPartitioned", func() tally { return countPartitioned(segs, mult, workers) }},
			} {
				if count.name != "countSegments" && fittingPrefix(tc.cards) < len(tc.cards) {
					continue
				}
				got := count.f()
				if got.classes != wantClasses || !reflect.DeepEqual(got.counts, wantCounts) || !reflect.DeepEqual(got.ids, wantIDs) {
					t.Errorf("%s, %s, %d workers: %d classes, want %d (counts equal: %v, ids equal: %v)", tc.name, count.name, workers,
						got.classes, wantClasses, reflect.DeepEqual(got.counts, wantCounts), reflect.DeepEqual(got.ids, wantIDs))
				}
			}
		}
	}
}

func TestTableGrow(t *testing.T) {
	var tab table
	tab.init(1)
	for i := uint64(0); i < 10000; i++ {
		if v, ins := tab.insert(i*0x100000001, int32(i)); !ins || v != int32(i) {
			t.Fatalf("insert %d: %d %v", i, v, ins)
		}
	}
	for i := uint64(0); i < 10000; i++ {
		if v, ins := tab.insert(i*0x100000001, -1); ins || v != int32(i) {
			t.Fatalf("find %d: %d %v", i, v, ins)
		}
	}
}
