package vtl

import (
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
)

// fuzzLimits keep each fuzzed render short, so that a slow input shows
// up as a limit error rather than a hang.
var fuzzLimits = Limits{MaxSteps: 20_000, MaxDepth: 32, MaxOutput: 1 << 16, Timeout: 200 * time.Millisecond}

func fuzzSeeds(f *testing.F) {
	raw, err := os.ReadFile("testdata/airspeed.json")
	if err != nil {
		f.Fatal(err)
	}
	var cases []airspeedCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		f.Fatal(err)
	}
	for _, c := range cases {
		f.Add(c.AWSTemplate)
	}
	for _, s := range []string{
		"#foreach($i in [1..2000000000])#foreach($j in [1..2000000000])x#end#end",
		"#define($d)$d$d#end$d",
		"#macro(m)#m()#end#m()",
		"#set($l = [])#set($x = $l.add($l))#set($x = $l.add($l))$l $l.hashCode() #if($l == $l)#end",
		"#set($s = 'x')#foreach($i in [1..99])#set($s = \"$s$s\")#end",
		"$a.b($c.d($e[$f]['g']).h(1, 'x', [1..3], {'k': $v}))",
		"#if(#if(",
		"\\\\\\$a \\#end ## \n #* x",
		`#set($a = "#set($b = ""$c"")$b")`,
		"#set($m = {})#set($m[$m] = $m)$m",
	} {
		f.Add(s)
	}
}

func FuzzCompile(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := Compile(src)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Line < 1 || e.Col < 1 {
				t.Fatalf("Compile error without a position: %v", err)
			}
			return
		}
		if tmpl == nil {
			t.Fatal("nil template without an error")
		}
	})
}

func FuzzRender(f *testing.F) {
	fuzzSeeds(f)
	body := []byte(`{"a":{"b":[1,"two",{"c":null}]},"s":"text","n":-3.5,"t":true}`)
	f.Fuzz(func(t *testing.T, src string) {
		tmpl, err := Compile(src)
		if err != nil {
			return
		}
		j, _ := ParseJSON(body)
		vars := map[string]Value{"j": j, "util": testUtil{}, "m": NewMap(0), "l": &List{}}
		start := time.Now()
		out, err := tmpl.Render(vars, fuzzLimits)
		if d := time.Since(start); d > 2*time.Second {
			t.Fatalf("render took %v", d)
		}
		if err == nil && len(out) > fuzzLimits.MaxOutput {
			t.Fatalf("output of %d bytes passed the limit", len(out))
		}
		var e *Error
		if err != nil && (!errors.As(err, &e) || strings.HasPrefix(e.Msg, "internal error")) {
			t.Fatalf("render failed without a placed error: %v", err)
		}
	})
}
