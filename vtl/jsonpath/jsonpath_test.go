package jsonpath

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/vtl"
)

// decode turns JSON into vtl values keeping key order, so that the tests
// do not depend on the engine's ParseJSON.
func decode(t testing.TB, src string) vtl.Value {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(src))
	d.UseNumber()
	v, err := decodeValue(d)
	if err != nil {
		t.Fatalf("decode %s: %v", src, err)
	}
	return v
}

func decodeValue(d *json.Decoder) (vtl.Value, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		switch x {
		case '{':
			m := vtl.NewMap(4)
			m.JSON = true
			for d.More() {
				k, err := d.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				m.Put(k.(string), v)
			}
			_, err := d.Token()
			return m, err
		case '[':
			l := &vtl.List{JSON: true, Items: []vtl.Value{}}
			for d.More() {
				v, err := decodeValue(d)
				if err != nil {
					return nil, err
				}
				l.Items = append(l.Items, v)
			}
			_, err := d.Token()
			return l, err
		}
	case json.Number:
		if n, err := strconv.ParseInt(string(x), 10, 64); err == nil {
			return n, nil
		}
		return strconv.ParseFloat(string(x), 64)
	}
	return tok, nil
}

// encode writes compact JSON of a vtl value, for comparing results.
func encode(v vtl.Value) string {
	var b bytes.Buffer
	encodeTo(&b, v)
	return b.String()
}

func encodeTo(w io.Writer, v vtl.Value) {
	switch x := v.(type) {
	case nil:
		io.WriteString(w, "null")
	case string:
		s, _ := json.Marshal(x)
		w.Write(s)
	case *vtl.Map:
		io.WriteString(w, "{")
		first := true
		x.Range(func(k string, v vtl.Value) bool {
			if !first {
				io.WriteString(w, ",")
			}
			first = false
			s, _ := json.Marshal(k)
			w.Write(s)
			io.WriteString(w, ":")
			encodeTo(w, v)
			return true
		})
		io.WriteString(w, "}")
	case *vtl.List:
		io.WriteString(w, "[")
		for i, e := range x.Items {
			if i > 0 {
				io.WriteString(w, ",")
			}
			encodeTo(w, e)
		}
		io.WriteString(w, "]")
	default:
		fmt.Fprint(w, x)
	}
}

// store is the document of Goessner's article, the usual JSONPath fixture.
const store = `{"store":{"book":[
 {"category":"reference","author":"Nigel Rees","title":"Sayings of the Century","price":8.95},
 {"category":"fiction","author":"Evelyn Waugh","title":"Sword of Honour","price":12.99},
 {"category":"fiction","author":"Herman Melville","title":"Moby Dick","isbn":"0-553-21311-3","price":8.99},
 {"category":"fiction","author":"J. R. R. Tolkien","title":"The Lord of the Rings","isbn":"0-395-19395-8","price":22.99}],
 "bicycle":{"color":"red","price":19.95}},
 "expensive":10,
 "my key":{"it's":1},
 "arr":[[1,2],[3,4]]}`

func TestEval(t *testing.T) {
	doc := decode(t, store)
	tests := []struct {
		name, path string
		want       string // compact JSON; "-" when nothing matches
	}{
		{"root", "$", encode(doc)},
		{"root=blank", "  $  ", encode(doc)},
		{"dot", "$.expensive", "10"},
		{"dot=nested", "$.store.bicycle.color", `"red"`},
		{"noRoot", "store.bicycle.color", `"red"`},
		{"bracket=single", "$['store']['bicycle']['price']", "19.95"},
		{"bracket=double", `$["store"]["bicycle"]`, `{"color":"red","price":19.95}`},
		{"bracket=blank", "$['my key']", `{"it's":1}`},
		{"bracket=escapedQuote", `$['my key']['it\'s']`, "1"},
		{"index", "$.store.book[2].isbn", `"0-553-21311-3"`},
		{"index=negative", "$.store.book[-1].author", `"J. R. R. Tolkien"`},
		{"index=nested", "$.arr[1][0]", "3"},
		{"index=outOfRange", "$.store.book[9]", "-"},
		{"index=negativeOutOfRange", "$.store.book[-9]", "-"},
		{"index=onMap", "$.store[0]", "-"},
		{"missing=leaf", "$.store.nothing", "-"},
		{"missing=inner", "$.nothing.at.all", "-"},
		{"missing=onScalar", "$.expensive.foo", "-"},
		{"multiIndex", "$.store.book[0,2].price", "[8.95,8.99]"},
		{"wildcard=list", "$.store.book[*].author", `["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]`},
		{"wildcard=map", "$.store.bicycle.*", `["red",19.95]`},
		{"wildcard=bracketMap", "$.store.bicycle[*]", `["red",19.95]`},
		{"wildcard=noMatch", "$.store.book[*].nothing", "[]"},
		{"wildcard=onScalar", "$.expensive[*]", "[]"},
		{"scan", "$..author", `["Nigel Rees","Evelyn Waugh","Herman Melville","J. R. R. Tolkien"]`},
		{"scan=preOrder", "$..price", "[8.95,12.99,8.99,22.99,19.95]"},
		{"scan=index", "$..book[2].title", `["Moby Dick"]`},
		{"scan=bracketIndex", "$.store..[0].title", `["Sayings of the Century"]`},
		{"scan=noMatch", "$..nothing", "[]"},
		{"scan=wildcard", "$.store.bicycle..*", `["red",19.95]`},
		{"slice=between", "$.store.book[1:3].price", "[12.99,8.99]"},
		{"slice=from", "$.store.book[2:].price", "[8.99,22.99]"},
		{"slice=fromNegative", "$.store.book[-1:].price", "[22.99]"},
		{"slice=to", "$.store.book[:2].price", "[8.95,12.99]"},
		{"slice=toNegative", "$.store.book[:-3].price", "[8.95]"},
		{"slice=past", "$.store.book[3:10].price", "[22.99]"},
		{"slice=empty", "$.store.book[3:1]", "[]"},
		{"union=leafMerge", "$.store.bicycle['color','price']", `{"color":"red","price":19.95}`},
		{"union=leafMergePartial", "$.store.bicycle['color','nothing']", `{"color":"red"}`},
		{"union=inner", "$['store','expensive'].bicycle.color", `["red"]`},
		{"filter=lt", "$.store.book[?(@.price < 10)].title", `["Sayings of the Century","Moby Dick"]`},
		{"filter=eqString", "$.store.book[?(@.category == 'reference')].author", `["Nigel Rees"]`},
		{"filter=doubleQuote", `$.store.book[?(@.category == "reference")].price`, `[8.95]`},
		{"filter=exists", "$.store.book[?(@.isbn)].title", `["Moby Dick","The Lord of the Rings"]`},
		{"filter=not", "$.store.book[?(!@.isbn)].price", `[8.95,12.99]`},
		{"filter=and", "$.store.book[?(@.price > 9 && @.category == 'fiction')].price", `[12.99,22.99]`},
		{"filter=or", "$.store.book[?(@.price < 9 || @.price > 20)].price", `[8.95,8.99,22.99]`},
		{"filter=parens", "$.store.book[?((@.price < 9) && !(@.isbn))].price", `[8.95]`},
		{"filter=root", "$.store.book[?(@.price > $.expensive)].price", `[12.99,22.99]`},
		{"filter=ne", "$.store.book[?(@.category != 'fiction')].price", `[8.95]`},
		{"filter=ge", "$.store.book[?(@.price >= 12.99)].price", `[12.99,22.99]`},
		{"filter=le", "$.store.book[?(@.price <= 8.99)].price", `[8.95,8.99]`},
		{"filter=onMap", "$.store.bicycle[?(@.color == 'red')].price", `[19.95]`},
		{"filter=scan", "$..[?(@.price > 19)].price", `[22.99,19.95]`},
		{"filter=noTarget", `$.flags[?(@.on == true)].n`, "[]"}, // indefinite: always a list
	}
	for _, tc := range tests {
		t.Run("path="+tc.name, func(t *testing.T) {
			p, err := Compile(tc.path)
			if err != nil {
				t.Fatalf("Compile(%q): %v", tc.path, err)
			}
			v, ok, err := p.Eval(doc)
			if err != nil {
				t.Fatal(err)
			}
			got := "-"
			if ok {
				got = encode(v)
			}
			if got != tc.want {
				t.Errorf("%s = %s, want %s", tc.path, got, tc.want)
			}
		})
	}
}

func TestEvalScalars(t *testing.T) {
	doc := decode(t, `{"items":[{"n":1,"on":true,"s":"10"},{"n":2,"on":false,"s":"2"},{"n":3,"on":null}]}`)
	tests := []struct{ name, path, want string }{
		{"bool", "$.items[?(@.on == true)].n", "[1]"},
		{"null", "$.items[?(@.on == null)].n", "[3]"},
		{"intEqualsFloat", "$.items[?(@.n == 2.0)].n", "[2]"},
		{"numericStringEqualsNumber", "$.items[?(@.s == 10)].n", "[1]"},
		{"stringsCompareAsStrings", "$.items[?(@.s < '3')].n", "[1,2]"},
		{"stringNotLessThanNumber", "$.items[?(@.s < 3)].n", "[]"},
		{"missingComparesFalse", "$.items[?(@.x == 1)].n", "[]"},
		{"negativeLiteral", "$.items[?(@.n > -1)].n", "[1,2,3]"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			p, err := Compile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			v, _, err := p.Eval(doc)
			if err != nil {
				t.Fatal(err)
			}
			if got := encode(v); got != tc.want {
				t.Errorf("%s = %s, want %s", tc.path, got, tc.want)
			}
		})
	}
}

func TestEvalOnScalarRoot(t *testing.T) {
	tests := []struct {
		name string
		root vtl.Value
		path string
		want string
	}{
		{"string", "hello", "$", `"hello"`},
		{"nil", nil, "$", "null"},
		{"stringProperty", "hello", "$.a", "-"},
		{"listRoot", decode(t, `[{"a":1},{"a":2}]`), "$[1].a", "2"},
		{"listRootWildcard", decode(t, `[{"a":1},{"a":2}]`), "$[*].a", "[1,2]"},
	}
	for _, tc := range tests {
		t.Run("root="+tc.name, func(t *testing.T) {
			v, ok, err := MustCompile(t, tc.path).Eval(tc.root)
			if err != nil {
				t.Fatal(err)
			}
			got := "-"
			if ok {
				got = encode(v)
			}
			if got != tc.want {
				t.Errorf("%s = %s, want %s", tc.path, got, tc.want)
			}
		})
	}
}

// MustCompile compiles a path known to be good.
func MustCompile(t testing.TB, src string) *Path {
	t.Helper()
	p, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	return p
}

func TestDefinite(t *testing.T) {
	tests := []struct {
		path string
		want bool
	}{
		{"$", true},
		{"$.a.b[0]", true},
		{"$['a']['b']", true},
		{"$.a['b','c']", true}, // merged into one object on a leaf
		{"$['b','c'].d", false},
		{"$.a[0,1]", false},
		{"$.a[*]", false},
		{"$.a.*", false},
		{"$..a", false},
		{"$.a[1:2]", false},
		{"$.a[?(@.b)]", false},
	}
	for _, tc := range tests {
		t.Run("path="+tc.path, func(t *testing.T) {
			if got := MustCompile(t, tc.path).Definite(); got != tc.want {
				t.Errorf("Definite(%s) = %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

func TestCompileErrors(t *testing.T) {
	tests := []struct{ name, path string }{
		{"empty", ""},
		{"blank", "   "},
		{"trailingDot", "$.a."},
		{"trailingScan", "$.."},
		{"tripleDot", "$...a"},
		{"unclosedBracket", "$['a'"},
		{"unclosedQuote", "$['a]"},
		{"emptyBrackets", "$[]"},
		{"badIndex", "$[1x]"},
		{"sliceStep", "$[1:2:3]"},
		{"emptySlice", "$[:]"},
		{"function", "$.a.length()"},
		{"blankInDotName", "$.my key"},
		{"garbageAfterRoot", "$abc"},
		{"filterUnclosed", "$[?(@.a == 1]"},
		{"filterNoParen", "$[?@.a]"},
		{"filterRegex", "$[?(@.a =~ /x/)]"},
		{"filterIn", "$[?(@.a in ['x'])]"},
		{"filterLiteralAlone", "$[?(1)]"},
		{"unionNotQuoted", "$['a',b]"},
		{"badUnicodeEscape", `$['\u12']`},
		{"atRoot", "@.a"},
	}
	for _, tc := range tests {
		t.Run("path="+tc.name, func(t *testing.T) {
			p, err := Compile(tc.path)
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Compile(%q) = %v, %v; want a *SyntaxError", tc.path, p, err)
			}
			if se.Pos < 0 || se.Pos > len(tc.path) {
				t.Errorf("position %d outside %q", se.Pos, tc.path)
			}
		})
	}
}

func TestCompileNestingBounded(t *testing.T) {
	deep := "$[?(" + strings.Repeat("(", 10_000) + "@.a" + strings.Repeat(")", 10_000) + ")]"
	if _, err := Compile(deep); err == nil {
		t.Fatal("a filter nested 10000 deep compiled; want an error")
	}
	nots := "$[?(" + strings.Repeat("!", 10_000) + "@.a)]"
	if _, err := Compile(nots); err == nil {
		t.Fatal("10000 negations compiled; want an error")
	}
}

func TestLookupCaches(t *testing.T) {
	p1, err := Lookup("$.cached.path")
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := Lookup("$.cached.path")
	if p1 != p2 {
		t.Error("Lookup compiled the same path twice")
	}
	if _, err := Lookup("$["); err == nil {
		t.Error("Lookup of a bad path: no error")
	}
	if _, err := Lookup("$["); err == nil {
		t.Error("cached bad path: no error")
	}
	if p1.String() != "$.cached.path" {
		t.Errorf("String() = %q", p1.String())
	}
}

func TestLookupBounded(t *testing.T) {
	for i := range cacheMax + 10 {
		if _, err := Lookup("$.k" + strconv.Itoa(i)); err != nil {
			t.Fatal(err)
		}
	}
	if n := cache.Size(); n > cacheMax {
		t.Errorf("cache holds %d paths, bound is %d", n, cacheMax)
	}
}

func TestEvalBounded(t *testing.T) {
	// Nested scans on a chain of 500 maps visit about 500^3/6 nodes.
	chain := strings.Repeat(`{"a":`, 500) + "1" + strings.Repeat("}", 500)
	// 2000 equal lists of 1000 numbers: 2M comparisons. Built directly:
	// decoding 2M tokens would take longer than the test.
	row := &vtl.List{Items: make([]vtl.Value, 1000), JSON: true}
	for i := range row.Items {
		row.Items[i] = int64(1)
	}
	rows := &vtl.List{JSON: true}
	for range 2000 {
		rows.Items = append(rows.Items, row)
	}
	deep := strings.Repeat(`{"a":`, maxScanDepth+5) + "1" + strings.Repeat("}", maxScanDepth+5)
	tests := []struct {
		name string
		doc  vtl.Value
		path string
	}{
		{"nestedScans", decode(t, chain), "$..[?(@..[?(@..a)])]"},
		{"costlyEquality", rows, "$[?(@ == $[0])]"},
		{"deepScan", decode(t, deep), "$..b"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			_, _, err := MustCompile(t, tc.path).Eval(tc.doc)
			if !errors.Is(err, ErrTooComplex) {
				t.Fatalf("err = %v, want ErrTooComplex", err)
			}
		})
	}
}

func TestEvalDefiniteDoesNotAllocate(t *testing.T) {
	doc := decode(t, store)
	p := MustCompile(t, "$.store.book[-1].author")
	allocs := testing.AllocsPerRun(100, func() { p.Eval(doc) })
	if allocs != 0 {
		t.Errorf("definite Eval allocates %v times", allocs)
	}
}

func BenchmarkEval(b *testing.B) {
	doc := decode(b, store)
	for _, path := range []string{"$.store.book[2].title", "$.store.book[*].price", "$..price"} {
		p := MustCompile(b, path)
		b.Run("path="+path, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Eval(doc)
			}
		})
	}
}

// TestConcurrentUse: compiled paths are shared by concurrent renders; run
// with -race.
func TestConcurrentUse(t *testing.T) {
	doc := decode(t, store)
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := range 200 {
				p, err := Lookup("$..book[?(@.price < " + strconv.Itoa(i%30+g) + ")].title")
				if err != nil {
					t.Error(err)
					return
				}
				if _, _, err := p.Eval(doc); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	for range 4 {
		<-done
	}
}
