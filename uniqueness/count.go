package uniqueness

import (
	"math/bits"
	"runtime"

	"github.com/reid-sdc/reid/internal/workers"
)

// This file holds the hashed, parallel counter of key combinations. Each key column is a
// code in [0, card); a row's combination is the mixed-radix number Σ code_k·Π_{l>k} card_l,
// a uint64 whenever the product of the cardinalities fits (otherwise the columns are first
// compressed, see countSegments). Rows are split into contiguous chunks counted in
// parallel, either each into its own open-addressing table that numbers its combinations
// by first appearance, the chunk tables being merged in chunk order (countDirect), or
// through hash partitions when most combinations are rare (countPartitioned, in
// partition.go). Either way classes are numbered by their first appearance in the data,
// whatever the number of goroutines, and the table is never sorted.

// segment is a set of rows to count: one code column per key (all of the same length).
type segment struct {
	cols [][]int32
	rows int
	ids  bool // whether the class of each row is wanted
}

// tally is the result of countSegments over segments counted together: the classes are
// numbered by first appearance over segment 0, then segment 1, and so on.
type tally struct {
	classes int
	counts  [][]int64 // counts[s][j]: rows of segment s in class j
	ids     [][]int32 // ids[s][i]: class of row i of segment s (nil unless asked)
}

// minChunkRows keeps chunks large enough that the per-chunk tables pay off.
const minChunkRows = 1 << 15

// blockRows is the number of rows whose keys are built at once (column by column).
const blockRows = 2048

// countSegments counts the key combinations of the segments with the given number of
// goroutines (≤ 0: GOMAXPROCS). cards[k] is the number of codes of key k.
func countSegments(segs []segment, cards []int, workers int) tally {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	segs = append([]segment(nil), segs...)
	cards = append([]int(nil), cards...)
	if len(cards) == 0 {
		// No key: one class holding everything.
		t := tally{classes: 1}
		for _, s := range segs {
			t.counts = append(t.counts, []int64{int64(s.rows)})
			var ids []int32
			if s.ids {
				ids = make([]int32, s.rows)
			}
			t.ids = append(t.ids, ids)
		}
		return t
	}
	// Compress leading columns until the mixed-radix key fits in 64 bits: a group of
	// columns whose cardinalities fit is counted on its own and replaced by its class
	// numbers (at most the number of rows, so any two such columns fit together).
	for {
		n := fittingPrefix(cards)
		if n == len(cards) {
			break
		}
		sub := make([]segment, len(segs))
		for s := range segs {
			sub[s] = segment{cols: segs[s].cols[:n], rows: segs[s].rows, ids: true}
		}
		t := countPacked(sub, cards[:n], workers)
		for s := range segs {
			segs[s].cols = append([][]int32{t.ids[s]}, segs[s].cols[n:]...)
		}
		cards = append([]int{t.classes}, cards[n:]...)
	}
	return countPacked(segs, cards, workers)
}

// fittingPrefix returns the length of the longest prefix of cards whose product fits in
// a uint64 (at least 2 when there are 2 columns or more: cards are below 2^32).
func fittingPrefix(cards []int) int {
	prod := uint64(1)
	for k, c := range cards {
		hi, lo := bits.Mul64(prod, uint64(c))
		if hi != 0 {
			return k
		}
		prod = lo
	}
	return len(cards)
}

// chunk is a contiguous range of rows of one segment and its local table.
type chunk struct {
	seg, lo, hi int
	tab         table
	keys        []uint64 // keys of the local classes, by local number
	counts      []int64
	remap       []int32
	touch       int32 // keeps the prefetching loads alive
}

// prefetchAhead is how many rows ahead countChunk touches the table.
const prefetchAhead = 16

// Below directMaxRows rows, or when the first probeRows rows repeat combinations often
// (fewer than half are distinct), each goroutine counts its chunk into one table, whose
// frequent entries stay in cache, and the tables are merged (countDirect). Otherwise most
// combinations are rare, a single table would miss the cache on almost every row, and the
// rows are first scattered into hash partitions small enough for their tables to stay in
// cache (countPartitioned). On 10,000,000 rows × 8 keys (bench/uniqueness), partitioning
// takes 0.65× the time of the direct count when 99 % of the probe is distinct, 0.95× at
// 34 %, and 2.5× at 6 %.
const (
	directMaxRows = 1 << 17
	probeRows     = 1 << 16
)

func countPacked(segs []segment, cards []int, workers int) tally {
	mult := make([]uint64, len(cards))
	for k := range cards {
		mult[k] = uint64(cards[k])
	}
	total := 0
	for _, s := range segs {
		total += s.rows
	}
	if total <= directMaxRows || fewClasses(segs, mult) {
		return countDirect(segs, mult, workers)
	}
	return countPartitioned(segs, mult, workers)
}

// fewClasses reports whether fewer than half of the first rows are distinct.
func fewClasses(segs []segment, mult []uint64) bool {
	ch := &chunk{hi: min(segs[0].rows, probeRows)}
	if ch.hi < probeRows {
		return false
	}
	countChunk(ch, segs[0].cols, mult, nil)
	return 2*len(ch.keys) < probeRows
}

// chunksOf splits the segments into contiguous chunks, about per chunks per worker.
func chunksOf(segs []segment, workers, per, minRows int) []*chunk {
	var chunks []*chunk
	for s, seg := range segs {
		nc := max(1, min(workers*per, seg.rows/minRows))
		for c := 0; c < nc; c++ {
			lo, hi := seg.rows*c/nc, seg.rows*(c+1)/nc
			if hi > lo {
				chunks = append(chunks, &chunk{seg: s, lo: lo, hi: hi})
			}
		}
	}
	return chunks
}

func newTally(segs []segment) tally {
	out := tally{counts: make([][]int64, len(segs)), ids: make([][]int32, len(segs))}
	for s, seg := range segs {
		if seg.ids {
			out.ids[s] = make([]int32, seg.rows)
		}
	}
	return out
}

// countDirect counts each chunk into its own table and merges the tables in chunk order.
func countDirect(segs []segment, mult []uint64, workers int) tally {
	chunks := chunksOf(segs, workers, 1, minChunkRows)
	out := newTally(segs)
	parallel(len(chunks), workers, func(c int) {
		ch := chunks[c]
		countChunk(ch, segs[ch.seg].cols, mult, out.ids[ch.seg])
	})
	// Merge in chunk order: the first chunk's table becomes the global one (its local
	// numbers already are first-appearance numbers).
	var global *chunk
	for _, ch := range chunks {
		if global == nil {
			global = ch
			ch.remap = nil
			continue
		}
		ch.remap = make([]int32, len(ch.keys))
		for l, key := range ch.keys {
			id, inserted := global.tab.insert(key, int32(len(global.keys)))
			if inserted {
				global.keys = append(global.keys, key)
			}
			ch.remap[l] = id
		}
	}
	if global != nil {
		out.classes = len(global.keys)
	}
	for s := range segs {
		out.counts[s] = make([]int64, out.classes)
	}
	for i, ch := range chunks {
		cnt := out.counts[ch.seg]
		if i == 0 {
			for l, n := range ch.counts {
				cnt[l] += n
			}
			continue
		}
		for l, n := range ch.counts {
			cnt[ch.remap[l]] += n
		}
	}
	// Renumber the rows of every chunk but the first, in pieces shared by all goroutines.
	type piece struct {
		ch     *chunk
		lo, hi int
	}
	var pieces []piece
	for _, ch := range chunks {
		if ch.remap == nil || out.ids[ch.seg] == nil {
			continue
		}
		for lo := ch.lo; lo < ch.hi; lo += minChunkRows {
			pieces = append(pieces, piece{ch, lo, min(lo+minChunkRows, ch.hi)})
		}
	}
	parallel(len(pieces), workers, func(k int) {
		pc := pieces[k]
		part := out.ids[pc.ch.seg][pc.lo:pc.hi]
		for i, l := range part {
			part[i] = pc.ch.remap[l]
		}
	})
	return out
}

// countChunk counts the rows [lo, hi) of one segment into the chunk's own table, writing
// each row's local class number into ids when ids is not nil.
func countChunk(ch *chunk, cols [][]int32, mult []uint64, ids []int32) {
	ch.tab.init(1 << 10)
	var buf, hashes [blockRows]uint64
	var local [blockRows]int32
	var touch int32
	for lo := ch.lo; lo < ch.hi; lo += blockRows {
		hi := min(lo+blockRows, ch.hi)
		keys := blockKeys(buf[:hi-lo], cols, mult, lo)
		out := local[:hi-lo]
		if ids != nil {
			out = ids[lo:hi]
		}
		hs := hashes[:len(keys)]
		for i, key := range keys {
			hs[i] = hash64(key)
		}
		for i, key := range keys {
			// Touch the slot of a row further on, so that its cache miss overlaps with
			// this row's work (Go has no prefetch instruction).
			if i+prefetchAhead < len(hs) {
				touch += ch.tab.slots[hs[i+prefetchAhead]&ch.tab.mask].cnt
			}
			id, inserted := ch.tab.addHashed(key, hs[i], int32(len(ch.keys)))
			if inserted {
				ch.keys = append(ch.keys, key)
			}
			out[i] = id
		}
	}
	ch.touch = touch
	ch.counts = make([]int64, len(ch.keys))
	for _, s := range ch.tab.slots {
		if s.val != 0 {
			ch.counts[s.val-1] = int64(s.cnt)
		}
	}
}

// parallel is workers.ForEach under a name the callers can use: their parameter
// "workers" (the number of goroutines) hides the package.
func parallel(n, threads int, f func(int)) { workers.ForEach(n, threads, f) }

// table is an open-addressing hash table (linear probing) from uint64 keys to int32
// values, kept at most three quarters full (faster than half full on 10,000,000 rows with
// 600,000 combinations: fewer grows, a smaller table in cache). Slots hold the value plus one, so 0 marks an empty slot.
type table struct {
	slots []slot
	mask  uint64
	used  int
}

type slot struct {
	key uint64
	val int32 // value + 1; 0 = empty
	cnt int32 // a count kept beside the value (countChunk's rows of the key)
}

func (t *table) init(capacity int) {
	t.slots = nil
	t.reset(capacity)
}

// reset empties the table for about capacity keys, reusing its memory when it can.
func (t *table) reset(capacity int) {
	n := 1
	for n < 2*capacity {
		n <<= 1
	}
	if cap(t.slots) >= n {
		t.slots = t.slots[:n]
		clear(t.slots)
	} else {
		t.slots = make([]slot, n)
	}
	t.mask = uint64(n - 1)
	t.used = 0
}

// hash64 is the MurmurHash3 finaliser: mixed-radix keys of structured data are far from
// random, and linear probing needs every bit mixed.
func hash64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb9fe1a85ec53
	k ^= k >> 33
	return k
}

// add counts one more row of key, giving it the value val if it is absent, and returns its
// value.
func (t *table) add(key uint64, val int32) (int32, bool) {
	return t.addHashed(key, hash64(key), val)
}

// addHashed is add with the key's hash64 already computed.
func (t *table) addHashed(key, h uint64, val int32) (int32, bool) {
	i := h & t.mask
	for {
		s := &t.slots[i]
		if s.val == 0 {
			break
		}
		if s.key == key {
			s.cnt++
			return s.val - 1, false
		}
		i = (i + 1) & t.mask
	}
	if 4*(t.used+1) > 3*len(t.slots) {
		t.grow()
		return t.addHashed(key, h, val)
	}
	t.slots[i] = slot{key: key, val: val + 1, cnt: 1}
	t.used++
	return val, true
}

// insert returns the value of key, storing val for it first if it is absent.
func (t *table) insert(key uint64, val int32) (int32, bool) {
	i := hash64(key) & t.mask
	for {
		s := &t.slots[i]
		if s.val == 0 {
			break
		}
		if s.key == key {
			return s.val - 1, false
		}
		i = (i + 1) & t.mask
	}
	if 4*(t.used+1) > 3*len(t.slots) {
		t.grow()
		return t.insert(key, val)
	}
	t.slots[i] = slot{key: key, val: val + 1}
	t.used++
	return val, true
}

func (t *table) grow() {
	old := t.slots
	t.slots = make([]slot, 2*len(old))
	t.mask = uint64(len(t.slots) - 1)
	for _, s := range old {
		if s.val == 0 {
			continue
		}
		i := hash64(s.key) & t.mask
		for t.slots[i].val != 0 {
			i = (i + 1) & t.mask
		}
		t.slots[i] = s
	}
}
