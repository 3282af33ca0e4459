package jsonpath

import (
	"errors"
	"testing"
)

// FuzzCompileEval checks that no path panics or hangs, at compile time or
// on a document that has every kind of node.
func FuzzCompileEval(f *testing.F) {
	for _, seed := range []string{
		"$", "$.store.book[0].title", "$['store']['book'][-1]", `$["a b"]`,
		"$.store.book[*].author", "$..price", "$.store.*", "$..[0]", "$..*",
		"$.store.book[1:3]", "$.store.book[:2]", "$.store.book[-2:]",
		"$.store.book[0,1]", "$.store.bicycle['color','price']",
		"$.store.book[?(@.price < 10 && @.isbn)].title",
		"$..[?(@.price > $.expensive || !(@.category == 'fiction'))]",
		`$['it\'s'][?(@ != "x")]`, "items", "$[?(@.a == true)]", "$[?(@.a == null)]",
		"$.a.length()", "$[", "$..", "$[?(", "$['\\u0041']", "$[1:2:3]",
	} {
		f.Add(seed)
	}
	doc := decode(f, store)
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Compile(src)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Compile(%q) error %T, want *SyntaxError", src, err)
			}
			return
		}
		v, ok, err := p.Eval(doc)
		if err != nil {
			if !errors.Is(err, ErrTooComplex) {
				t.Fatalf("Eval(%q): unexpected error %v", src, err)
			}
			return
		}
		if !p.Definite() && (!ok || v == nil) {
			t.Fatalf("indefinite %q returned no list", src)
		}
	})
}
