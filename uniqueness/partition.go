package uniqueness

import (
	"math/bits"
	"sync"
)

// partitionRows is the target number of rows per hash partition: a partition's table
// (16 bytes a slot, at most half full) then stays in a core's L2 cache.
const partitionRows = 1 << 15

// bucket is what one chunk scattered into one partition: keys and global row numbers in
// row order, and then the class of each.
type bucket struct {
	keys []uint64
	rows []int32
	cls  []int32
}

// countPartitioned counts with hash partitioning, in four parallel passes (rows are
// numbered over the concatenated segments):
//
//  1. per chunk: build each row's key and append (key, row) to the bucket of its
//     partition (the top bits of its hash), noting the partition of the row;
//  2. per partition: count its buckets, in chunk order, in a table that stays in cache,
//     noting each local class's first row;
//  3. per partition: number the classes by first appearance, the rank of their first row
//     among all first rows (a bitmap of first rows and its prefix popcounts);
//  4. per chunk: gather each row's class from the chunk's buckets, read in the order they
//     were written.
//
// Each chunk reads the key columns once. Nothing is sorted, and the numbering is that of
// countDirect. Memory: about 18 bytes per row besides the classes.
func countPartitioned(segs []segment, mult []uint64, workers int) tally {
	out := newTally(segs)
	base := make([]int, len(segs)+1)
	for s, seg := range segs {
		base[s+1] = base[s] + seg.rows
	}
	n := base[len(segs)]
	pbits := min(uint(bits.Len(uint(max(1, n/partitionRows-1)))), 12)
	np := 1 << pbits
	shift := 64 - pbits

	chunks := chunksOf(segs, workers, 1, minChunkRows)
	part := make([]uint16, n)
	buckets := make([][]bucket, len(chunks)) // buckets[c][p]

	// 1. Scatter.
	parallel(len(chunks), workers, func(c int) {
		ch := chunks[c]
		bs := make([]bucket, np)
		guess := (ch.hi-ch.lo)/np + (ch.hi-ch.lo)/np/8 + 16
		for p := range bs {
			bs[p].keys = make([]uint64, 0, guess)
			bs[p].rows = make([]int32, 0, guess)
		}
		off := base[ch.seg]
		var buf [blockRows]uint64
		for b := ch.lo; b < ch.hi; b += blockRows {
			e := min(b+blockRows, ch.hi)
			keys := blockKeys(buf[:e-b], segs[ch.seg].cols, mult, b)
			dst := part[off+b : off+e]
			for i, key := range keys {
				p := uint16(0)
				if pbits > 0 {
					p = uint16(hash64(key) >> shift)
				}
				dst[i] = p
				bk := &bs[p]
				bk.keys = append(bk.keys, key)
				bk.rows = append(bk.rows, int32(off+b+i))
			}
		}
		buckets[c] = bs
	})

	// 2. Count each partition.
	type partClasses struct {
		first  []int32   // global first row of each local class
		counts [][]int64 // per segment
	}
	parts := make([]partClasses, np)
	tables := sync.Pool{New: func() any { return new(table) }}
	parallel(np, workers, func(p int) {
		size := 0
		for c := range chunks {
			size += len(buckets[c][p].keys)
		}
		if size == 0 {
			return
		}
		t := tables.Get().(*table)
		t.reset(size)
		pc := partClasses{counts: make([][]int64, len(segs))}
		for s := range segs {
			pc.counts[s] = make([]int64, 0, size)
		}
		for c, ch := range chunks {
			bk := &buckets[c][p]
			bk.cls = make([]int32, len(bk.keys))
			cnt := pc.counts[ch.seg]
			for q, key := range bk.keys {
				id, inserted := t.insert(key, int32(len(pc.first)))
				if inserted {
					pc.first = append(pc.first, bk.rows[q])
				}
				bk.cls[q] = id
			}
			cnt = cnt[:len(pc.first)]
			for _, id := range bk.cls {
				cnt[id]++
			}
			pc.counts[ch.seg] = cnt
			bk.keys, bk.rows = nil, nil
		}
		tables.Put(t)
		for s := range segs {
			pc.counts[s] = pc.counts[s][:len(pc.first)]
		}
		parts[p] = pc
	})

	// 3. Number the classes by first appearance.
	words := make([]uint64, (n+63)/64)
	for _, pc := range parts {
		for _, r := range pc.first {
			words[r>>6] |= 1 << (uint(r) & 63)
		}
	}
	rank := make([]int32, len(words)+1)
	for w, x := range words {
		rank[w+1] = rank[w] + int32(bits.OnesCount64(x))
	}
	out.classes = int(rank[len(words)])
	for s := range segs {
		out.counts[s] = make([]int64, out.classes)
	}
	parallel(np, workers, func(p int) {
		pc := parts[p]
		if len(pc.first) == 0 {
			return
		}
		newID := make([]int32, len(pc.first))
		for l, r := range pc.first {
			w := r >> 6
			id := rank[w] + int32(bits.OnesCount64(words[w]&(1<<(uint(r)&63)-1)))
			newID[l] = id
			for s := range segs {
				out.counts[s][id] = pc.counts[s][l]
			}
		}
		for c := range chunks {
			cls := buckets[c][p].cls
			for q, l := range cls {
				cls[q] = newID[l]
			}
		}
	})

	// 4. Gather the rows' classes.
	parallel(len(chunks), workers, func(c int) {
		ch := chunks[c]
		ids := out.ids[ch.seg]
		if ids == nil {
			return
		}
		bs := buckets[c]
		cur := make([]int32, np)
		src := part[base[ch.seg]+ch.lo : base[ch.seg]+ch.hi]
		dst := ids[ch.lo:ch.hi]
		for i, p := range src {
			dst[i] = bs[p].cls[cur[p]]
			cur[p]++
		}
	})
	return out
}

// blockKeys fills keys with the mixed-radix keys of the rows from lo on, column by column.
func blockKeys(keys []uint64, cols [][]int32, mult []uint64, lo int) []uint64 {
	first := cols[0][lo : lo+len(keys)]
	for i := range keys {
		keys[i] = uint64(first[i])
	}
	for k := 1; k < len(cols); k++ {
		col, m := cols[k][lo:lo+len(keys)], mult[k]
		for i := range keys {
			keys[i] = keys[i]*m + uint64(col[i])
		}
	}
	return keys
}
