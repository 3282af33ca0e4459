package httpevent

import (
	"strings"
	"unicode/utf8"

	"github.com/cloudemu/emulator/execute"
)

// Headers and query parameters are written grouped by name, each name at
// its first place with every value in order. groups links a list's
// entries of the same name: lead[i] tells whether entry i is its name's
// first, next[i] is the index of the name's next entry (-1: none). A
// short list is linked by comparing entries pairwise in the caller's
// stack arrays, without allocating; a long one (a client may send
// thousands of parameters) through a map, so that the work stays linear.
type groups struct {
	lead []bool
	next []int32
}

// shortList is the longest list linked pairwise.
const shortList = 32

// link links n entries: same compares two entries' names (short lists),
// key gives an entry's name as compared (long lists). lead and next are
// the caller's (stack) room.
func link(n int, lead []bool, next []int32, same func(i, j int) bool, key func(i int) string) groups {
	g := groups{lead: lead[:0], next: next[:0]}
	for range n {
		g.lead = append(g.lead, true)
		g.next = append(g.next, -1)
	}
	if n <= shortList {
		for i := range n {
			if !g.lead[i] {
				continue
			}
			prev := i
			for j := i + 1; j < n; j++ {
				if g.lead[j] && same(i, j) {
					g.lead[j] = false
					g.next[prev] = int32(j)
					prev = j
				}
			}
		}
		return g
	}
	last := make(map[string]int32, n)
	for i := range n {
		k := key(i)
		if p, ok := last[k]; ok {
			g.lead[i] = false
			g.next[p] = int32(i)
		}
		last[k] = int32(i)
	}
	return g
}

// linkHeaders links h's fields by name, case-insensitively.
func linkHeaders(h execute.Headers, lead []bool, next []int32) groups {
	return link(len(h), lead, next,
		func(i, j int) bool { return sameFold(h[i].Name, h[j].Name) },
		func(i int) string { return strings.ToLower(h[i].Name) })
}

// pair is one raw name=value pair of a query string.
type pair struct{ name, value string }

// splitQuery appends raw's non-empty pairs to dst.
func splitQuery(dst []pair, raw string) []pair {
	for {
		name, value, rest, ok := nextPair(raw)
		if !ok {
			return dst
		}
		dst = append(dst, pair{name, value})
		raw = rest
	}
}

// linkQuery links query pairs by form-decoded name.
func linkQuery(ps []pair, lead []bool, next []int32) groups {
	return link(len(ps), lead, next,
		func(i, j int) bool { return sameName(ps[i].name, ps[j].name) },
		func(i int) string { return decodedName(ps[i].name) })
}

// sameFold is strings.EqualFold, quicker on ASCII names (header names
// are tokens): it walks the ASCII prefix both share, and leaves the rest
// to strings.EqualFold at the first non-ASCII byte.
func sameFold(a, b string) bool {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x|y >= utf8.RuneSelf {
			return strings.EqualFold(a[i:], b[i:])
		}
		if x == y {
			continue
		}
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return len(a) == len(b)
}
