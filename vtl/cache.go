package vtl

import "github.com/puzpuzpuz/xsync/v3"

// cacheMax bounds the compile cache. A deployment holds a few hundred
// templates at most; past the bound the cache starts over rather than
// tracking recency, which keeps every lookup a single lock-free load.
const cacheMax = 4096

type compiled struct {
	t   *Template
	err error
}

var cache = xsync.NewMapOf[string, compiled]()

// CompileCached is Compile with a process-wide cache keyed by the source,
// for callers that see the same templates on every request. Syntax errors
// are cached too.
func CompileCached(src string) (*Template, error) {
	if c, ok := cache.Load(src); ok {
		return c.t, c.err
	}
	t, err := Compile(src)
	if cache.Size() >= cacheMax {
		cache.Clear()
	}
	cache.Store(src, compiled{t, err})
	return t, err
}
