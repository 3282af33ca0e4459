package vtl

import (
	"errors"
	"strings"
	"testing"
)

func render(t *testing.T, src string, vars map[string]Value) string {
	t.Helper()
	tmpl, err := Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	out, err := tmpl.Render(vars, DefaultLimits)
	if err != nil {
		t.Fatalf("Render(%q): %v", src, err)
	}
	return out
}

func mustJSON(t *testing.T, s string) Value {
	t.Helper()
	v, err := ParseJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLanguage(t *testing.T) {
	body := `{"items":[{"id":1,"name":"a"},{"id":2,"name":"b"}],"n":3,"f":1.5,"s":"x y","t":true,"nil":null,"m":{"k":"v","l":[1,2]}}`
	cases := []struct{ name, src, want string }{
		// references
		{"plain", "$s", "x y"},
		{"formal", "${s}!", "x y!"},
		{"quiet undefined", "[$!nope]", "[]"},
		{"undefined renders empty", "[$nope]", "[]"},
		{"undefined property", "[$j.nope.deeper]", "[]"},
		{"method on undefined", "[$nope.size()]", "[]"},
		{"property of a string", "[$s.foo]", "[]"},
		{"index", "$j.items[1].name", "b"},
		{"index by variable", "#set($i = 0)$j.items[$i].id", "1"},
		{"map index", `$j.m["k"]$j.m['k']`, "vv"},
		{"negative index", "[$j.items[-1]]", "[]"},
		{"index out of range", "[$j.items[9]]", "[]"},
		{"bracket that is not an index", "$s[x", "x y[x"},
		{"dot that is not a property", "$s.", "x y."},
		{"dollar alone", "$ $1 $$ $!", "$ $1 $$ $!"},
		{"unclosed formal", "${s", "${s"},
		{"bean getter on a map entry", "#foreach($e in $j.m.entrySet())$e.key=$e.getValue();#end", `k=v;l=[1,2];`},
		// rendering of values
		{"json list", "$j.items", `[{"id":1,"name":"a"},{"id":2,"name":"b"}]`},
		{"json map", "$j.m", `{k=v, l=[1,2]}`},
		{"vtl list", "#set($l = [1, 'a', [2]])$l", "[1, a, [2]]"},
		{"vtl map", "#set($m = {'a': 1, 'b': {'c': true}})$m", "{a=1, b={c=true}}"},
		{"null in a list", "#set($l = [])#set($x = $l.add(null))$l", "[null]"},
		{"double", "$j.f", "1.5"},
		{"integral double", "#set($d = 2.0)$d", "2.0"},
		{"large double", "#set($d = 1.0 * 10000000)$d", "1.0E7"},
		{"small double", "#set($d = 0.00001 * 1)$d", "1.0E-5"},
		{"bool", "$j.t", "true"},
		// directives
		{"set then newline eaten", "#set($a = 1)\n$a", "1"},
		{"if else newlines", "#if(false)\nno\n#else\nyes\n#end\ndone", "yes\ndone"},
		{"elseif", "#if($j.n == 1)one#elseif($j.n == 3)three#else other#end", "three"},
		{"braced directives", "#{if}(true)a#{else}b#{end}", "a"},
		{"foreach over json list", "#foreach($it in $j.items)$it.name#if($foreach.hasNext),#end#end", "a,b"},
		{"foreach over a map walks its values", "#foreach($v in $j.m)[$v]#end", "[v][[1,2]]"},
		{"foreach counters", "#foreach($x in ['a','b'])$foreach.index$foreach.count$velocityCount$foreach.first$foreach.last$velocityHasNext #end", "011truefalsetrue 122falsetruefalse "},
		{"foreach over keySet", "#foreach($k in $j.m.keySet())$k#end", "kl"},
		{"break", "#foreach($x in [1..10])$x#if($x == 3)#break#end#end!", "123!"},
		{"break leaves the inner loop only", "#foreach($a in [1,2])#foreach($b in [1,2,3])#if($b == 2)#break#end$a$b #end#end", "11 21 "},
		{"stop", "a#stop b", "a"},
		{"stop inside a loop", "#foreach($x in [1,2,3])$x#if($x == 2)#stop#end#end!", "12"},
		{"foreach over nothing", "#foreach($x in $nope)x#end#foreach($x in 'str')x#end.", "."},
		{"descending range", "#foreach($x in [3..1])$x#end", "321"},
		{"range from variables", "#set($a = 2)#set($b = 4)#foreach($x in [$a..$b])$x#end", "234"},
		{"define", "#define($d)<$x>#end#set($x = 1)$d#set($x = 2)$d", "<1><2>"},
		{"comment kinds", "a## line\nb#* block\n *#c", "abc"},
		{"unparsed block", "#[[ $a #if ]]#", " $a #if "},
		{"escaped reference", `\$s \\$s \\\$s`, `$s \x y \$s`},
		{"escaped directive", `\#if(true)x\#end`, `#if(true)x#end`},
		{"backslash elsewhere", `a\b \# \$ x`, `a\b \# \$ x`},
		{"hash that is not a directive", "#123 #abc #{x} # ", "#123 #abc #{x} # "},
		{"unknown directive prints as written", "#evaluate($s) #tryme()", "#evaluate($s) #tryme()"},
		{"macro is not run", "#macro(m $a)[$a]#end#m('x')", "#m('x')"},
		// strings
		{"double quotes interpolate", `#set($a = "<$s>")$a`, "<x y>"},
		{"single quotes do not", `#set($a = '<$s>')$a`, "<$s>"},
		{"directive inside a string", `#set($a = "#if(true)y#end")$a`, "y"},
		{"doubled quotes", `#set($a = "say ""hi""")#set($b = 'it''s')$a $b`, `say "hi" it's`},
		{"concatenation", `#set($a = "a" + 1 + 2.5)$a`, "a12.5"},
		// arithmetic and logic
		{"integer division", "#set($a = 7 / 2)#set($b = -7 / 2)#set($c = 7 % 3)$a $b $c", "3 -3 1"},
		{"decimal division", "#set($a = 7 / 2.0)$a", "3.5"},
		{"division by zero is null", "#set($a = 1 / 0)[$a]", "[]"},
		{"precedence", "#set($a = 2 + 3 * 4 - 6 / 2)$a", "11"},
		{"unary minus", "#set($a = 5)#set($b = -$a)$b", "-5"},
		{"integer overflow becomes a double", "#set($a = 9223372036854775807 + 1)$a", "9.223372036854776E18"},
		{"word operators", "#if(1 lt 2 and not false and 2 ge 2 and 'a' eq 'a' and 1 ne 2 or false)y#end", "y"},
		{"number equals its text", `#if(1 == "1")y#end`, "y"},
		{"list equality", "#if([1,2] == [1,2])y#end", "y"},
		{"comparing strings is false", "#if('a' < 'b')y#else n#end", " n"},
		{"undefined equals null and empty", `#if($nope == $null && $nope == "")y#end`, "y"},
		{"json null is truthy like AWS", "#if($j.nil)y#end", "y"},
		{"false is false", "#if($j.t && !$j.t)y#else n#end", " n"},
		// methods
		{"string methods", "$s.length() $s.toUpperCase() $s.indexOf('y') $s.substring(2) $s.replace(' ', '_') $s.contains('x') $s.charAt(0)", "3 X Y 2 y x_y true x"},
		{"more string methods", "'$s.trim()' $s.startsWith('x') $s.endsWith('y') $s.lastIndexOf('y') $s.isEmpty() $s.equals('x y') $s.equalsIgnoreCase('X Y')", "'x y' true true 2 false true true"},
		{"regex methods", "$s.replaceAll('(x) (y)', '$2-$1') $s.matches('x.*') $s.matches('x') $s.replaceFirst('[xy]', 'z')", "y-x true false z y"},
		{"split drops trailing empties", "#set($p = 'a,b,,')#set($p = $p.split(','))$p.size() $p", "2 [a, b]"},
		{"split on a regex", "#set($p = 'a1b22c')$p.split('[0-9]+')", "[a, b, c]"},
		{"unicode length counts UTF-16 units", "#set($u = 'a😀b')$u.length() $u.substring(1, 3)", "4 😀"},
		{"list methods", "#set($l = [3, 1])#set($x = $l.add(2))$l.size() $l.get(2) $l.contains(1) $l.indexOf(1) $l.isEmpty()", "3 2 true 1 false"},
		{"list remove", "#set($l = ['a','b','c'])#set($x = $l.remove(0))#set($y = $l.remove('c'))$x $y $l", "a true [b]"},
		{"map methods", "#set($m = {})#set($x = $m.put('a', 1))#set($x = $m.put('b', 2))$m.size() $m.get('a') $m.containsKey('b') $m.keySet() $m.values() $m.remove('a') $m", "2 1 true [a, b] [1, 2] 1 {b=2}"},
		{"map put returns the previous value", "#set($m = {'a': 1})$m.put('a', 2)", "1"},
		{"set a property", "#set($m = {})#set($m.a = 1)#set($m['b'] = 2)$m", "{a=1, b=2}"},
		{"set into a list", "#set($l = [1,2])#set($l[0] = 'x')$l", "[x, 2]"},
		{"numbers", "#set($n = 3)$n.toString() $n.intValue() $n.doubleValue()", "3 3 3.0"},
		{"unknown method renders empty", "[$s.noSuchMethod()]", "[]"},
		{"entrySet", "#set($m = {'a': 1})#foreach($e in $m.entrySet())$e#end", "a=1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := render(t, c.src, map[string]Value{"j": mustJSON(t, body), "s": "x y"})
			if got != c.want {
				t.Errorf("%s\n got %q\nwant %q", c.src, got, c.want)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	vars := map[string]Value{"a": "outer"}
	got := render(t, "#set($a = 'inner')#foreach($a in [1])#end$a", vars)
	if got != "inner" {
		t.Errorf("got %q", got)
	}
	if vars["a"] != "outer" {
		t.Errorf("Render changed the caller's variable: %v", vars["a"])
	}
	m := NewMap(0)
	render(t, "#set($ctx.status = 400)", map[string]Value{"ctx": m})
	if v, _ := m.Get("status"); v != int64(400) {
		t.Errorf("#set through a map did not reach the caller's map: %v", v)
	}
}

func TestMacrosOption(t *testing.T) {
	tmpl, err := CompileWith("#macro(greet $who)Hello $who!#end#greet('you') #greet($name)", Options{Macros: true})
	if err != nil {
		t.Fatal(err)
	}
	out, err := tmpl.Render(map[string]Value{"name": "me"}, DefaultLimits)
	if err != nil || out != "Hello you! Hello me!" {
		t.Fatalf("got %q, %v", out, err)
	}
	rec, err := CompileWith("#macro(r $n)x#r($n)#end#r(1)", Options{Macros: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rec.Render(nil, DefaultLimits); !errors.Is(err, ErrLimit) {
		t.Fatalf("endless macro recursion: %v, want ErrLimit", err)
	}
}

func TestCompileErrors(t *testing.T) {
	cases := []struct {
		src       string
		line, col int
		msg       string
	}{
		{"#if(true)x", 1, 1, "#if has no #end"},
		{"a\n#end", 2, 1, "without its"},
		{"#set($a = )", 1, 11, "unexpected ')'"},
		{"line1\n  #set($a 1)", 2, 11, "expected '='"},
		{`#set($a = "unterminated)`, 1, 11, "unterminated string"},
		{"#foreach($x $list)#end", 1, 13, "expected 'in'"},
		{"$a.b(1,", 1, 8, "unexpected end"},
		{strings.Repeat("#if(true)", 1000), 1, 0, "nesting too deep"},
		{"#set($a = " + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000) + ")", 1, 0, "nesting too deep"},
	}
	for _, c := range cases {
		_, err := Compile(c.src)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Compile(%.40q) = %v, want an *Error", c.src, err)
			continue
		}
		if !strings.Contains(e.Msg, c.msg) || e.Line != c.line || (c.col != 0 && e.Col != c.col) {
			t.Errorf("Compile(%.40q) = %v, want line %d col %d %q", c.src, e, c.line, c.col, c.msg)
		}
	}
}

func TestRenderErrors(t *testing.T) {
	cases := []struct{ src, msg string }{
		{"\n  $l.get(5)", "line 2, column 5: get(): index 5 out of bounds for length 1"},
		{"$s.substring(9)", "substring(): begin 9, end 1, length 1"},
		{"$s.matches('(?<=a)b')", "bad regular expression"},
		{"$s.replaceAll('a', '$3')", "no group 3"},
	}
	for _, c := range cases {
		tmpl, err := Compile(c.src)
		if err != nil {
			t.Fatal(err)
		}
		_, err = tmpl.Render(map[string]Value{"l": &List{Items: []Value{int64(1)}}, "s": "a"}, DefaultLimits)
		if err == nil || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: got %v, want %q", c.src, err, c.msg)
		}
	}
}

func TestLimits(t *testing.T) {
	cases := []struct {
		name string
		src  string
		lim  Limits
	}{
		{"steps", "#foreach($i in [1..2000000000])x#end", Limits{MaxSteps: 1000}},
		{"range literal", "#set($r = [1..2000000000])", Limits{}},
		{"output", "#foreach($i in [1..100000])xxxxxxxxxx#end", Limits{MaxOutput: 1000}},
		{"string doubling", "#set($s = 'x')#foreach($i in [1..64])#set($s = \"$s$s\")#end", Limits{MaxOutput: 1 << 20}},
		{"concat doubling", "#set($s = 'x')#foreach($i in [1..64])#set($s = $s + $s)#end", Limits{MaxOutput: 1 << 20}},
		{"list doubling", "#set($l = [1])#foreach($i in [1..64])#set($x = $l.addAll($l))#end", Limits{}},
		{"define recursion", "#define($d)$d#end$d", Limits{}},
		{"replace blow-up", "#set($s = 'xxxxxxxxxxxxxxxx')#foreach($i in [1..10])#set($s = $s.replace('x', $s))#end", Limits{MaxOutput: 1 << 20}},
		{"time", "#foreach($a in [1..100000])#foreach($b in [1..100000])#end#end", Limits{MaxSteps: 1 << 40, Timeout: 50_000_000}},
		{"self-containing list", "#set($l = [])#set($x = $l.add($l))#set($x = $l.add($l))$l", Limits{MaxOutput: 1 << 16}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tmpl, err := Compile(c.src)
			if err != nil {
				t.Fatal(err)
			}
			_, err = tmpl.Render(nil, c.lim)
			if !errors.Is(err, ErrLimit) {
				t.Fatalf("got %v, want ErrLimit", err)
			}
		})
	}
}

func TestConcurrentRenders(t *testing.T) {
	tmpl, err := CompileCached("#set($l = [])#foreach($i in [1..50])#set($x = $l.add($i))#end$l.size() $name")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 8)
	for g := 0; g < 8; g++ {
		go func() {
			out := ""
			for i := 0; i < 50; i++ {
				out, _ = tmpl.Render(map[string]Value{"name": "n"}, DefaultLimits)
			}
			done <- out
		}()
	}
	for g := 0; g < 8; g++ {
		if out := <-done; out != "50 n" {
			t.Errorf("got %q", out)
		}
	}
	if again, _ := CompileCached("#set($l = [])#foreach($i in [1..50])#set($x = $l.add($i))#end$l.size() $name"); again != tmpl {
		t.Error("CompileCached compiled the same source twice")
	}
}
