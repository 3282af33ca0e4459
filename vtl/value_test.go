package vtl

import (
	"math"
	"strings"
	"testing"
)

func TestParseJSON(t *testing.T) {
	cases := []struct{ in, str, json string }{
		{`{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}`, `{a=1, b=[true,null,"x"], c={d=1.5}}`, `{"a":1,"b":[true,null,"x"],"c":{"d":1.5}}`},
		{` [ ] `, `[]`, `[]`},
		{`"a\"b\\c\/d\n\u00e9\ud83d\ude00"`, "a\"b\\c/d\né😀", `"a\"b\\c/d\né😀"`},
		{`-12`, `-12`, `-12`},
		{`1e3`, `1000.0`, `1000.0`},
		{`12345678901234567890`, `1.2345678901234567E19`, `1.2345678901234567E19`},
		{`{"k":"v","k":"w"}`, `{k=w}`, `{"k":"w"}`},
		{`"tab\there"`, "tab\there", `"tab\there"`},
	}
	for _, c := range cases {
		v, err := ParseJSON([]byte(c.in))
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", c.in, err)
			continue
		}
		if got := String(v); got != c.str {
			t.Errorf("String(ParseJSON(%s)) = %q, want %q", c.in, got, c.str)
		}
		if got := JSON(v); got != c.json {
			t.Errorf("JSON(ParseJSON(%s)) = %q, want %q", c.in, got, c.json)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `{"a":1,}`, `"abc`, `tru`, `01x`, `-`, `1.`, `"\x"`, `{} {}`, strings.Repeat("[", 1000)} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("ParseJSON(%.20q) accepted malformed JSON", bad)
		}
	}
}

func TestJavaDouble(t *testing.T) {
	cases := []struct {
		f    float64
		want string
	}{
		{0, "0.0"}, {math.Copysign(0, -1), "-0.0"}, {1, "1.0"}, {-2.5, "-2.5"}, {0.05, "0.05"},
		{0.001, "0.001"}, {0.0001, "1.0E-4"}, {1234567, "1234567.0"}, {1e7, "1.0E7"},
		{1.5e10, "1.5E10"}, {1e21, "1.0E21"}, {1.0 / 3, "0.3333333333333333"},
		{math.NaN(), "NaN"}, {math.Inf(1), "Infinity"}, {math.Inf(-1), "-Infinity"},
	}
	for _, c := range cases {
		if got := String(c.f); got != c.want {
			t.Errorf("String(%v) = %q, want %q", c.f, got, c.want)
		}
	}
}

func TestMapOrderAndIndex(t *testing.T) {
	m := NewMap(0)
	for i := 0; i < 40; i++ {
		m.Put(string(rune('A'+i)), int64(i))
	}
	m.Put("C", "again")
	if m.Remove("B") != int64(1) || m.Len() != 39 {
		t.Fatalf("Remove/Len wrong: %d", m.Len())
	}
	if v, _ := m.Get("C"); v != "again" {
		t.Fatalf("re-put lost: %v", v)
	}
	if v, _ := m.Get("Z"); v != int64(25) {
		t.Fatalf("indexed lookup after Remove: %v", v)
	}
	if ks := m.Keys(); ks[0] != "A" || ks[1] != "C" {
		t.Fatalf("order: %v", ks[:3])
	}
}
