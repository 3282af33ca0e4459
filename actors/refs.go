package actors

import (
	"slices"
	"strings"

	"github.com/cloudemu/emulator/pmap"
)

// Refs records which owners refer to which targets (a usage plan to an API
// stage, a domain's mapping to an API), lock-free, so that an owner that
// goes away finds the owners to tell without scanning them all.
//
// The protocol that keeps references from dangling, with no lock: a
// referrer Adds its reference, then checks inside its own owner that the
// target still exists; a target that goes away first publishes its new
// state (without the target), then reads Referrers and Tells each. Either
// the referrer's check sees the target gone, or the target's read sees the
// reference.
type Refs struct{ m pmap.Shared[struct{}] }

// refSep separates a target from a referrer in the index's keys; targets
// and referrers never contain it.
const refSep = "\x00"

// Add records that referrer refers to target.
func (r *Refs) Add(target, referrer string) { r.m.Set(target+refSep+referrer, struct{}{}) }

// Remove forgets that referrer refers to target.
func (r *Refs) Remove(target, referrer string) { r.m.Delete(target + refSep + referrer) }

// Referrers returns who refers to target, sorted and each once.
func (r *Refs) Referrers(target string) []string { return r.under(target + refSep) }

// AppendReferrers appends who refers to target to dst, in order, and
// returns it: the data plane's form, which reuses dst.
func (r *Refs) AppendReferrers(dst []string, target string) []string {
	n := len(dst)
	dst = r.m.Load().AppendKeysWithPrefix(dst, target+refSep)
	for i := n; i < len(dst); i++ {
		dst[i] = dst[i][len(target)+len(refSep):]
	}
	return dst
}

// ReferrersUnder returns who refers to any target starting with prefix
// (every stage of an API: "apiID/"), sorted and each once.
func (r *Refs) ReferrersUnder(prefix string) []string { return r.under(prefix) }

func (r *Refs) under(prefix string) []string {
	var out []string
	for k := range r.m.Load().Prefix(prefix) {
		_, who, _ := strings.Cut(k, refSep)
		if len(out) == 0 || out[len(out)-1] != who {
			out = append(out, who)
		}
	}
	// Under a prefix, one referrer may appear for several targets, not in
	// order: keep each once.
	return sortedUnique(out)
}

func sortedUnique(s []string) []string {
	if len(s) < 2 {
		return s
	}
	seen := make(map[string]bool, len(s))
	out := s[:0]
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// Reset forgets every reference.
func (r *Refs) Reset() { r.m.Reset() }
