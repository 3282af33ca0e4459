package vtl

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"text/template"
)

// benchTemplate is a typical 20-line mapping template: a loop over the
// body's items with string methods, arithmetic, conditions and counters.
// The total is computed in a #set because Velocity does arithmetic only
// inside directives: "$a * $b" in text prints both numbers and the star.
const benchTemplate = `#set($root = $body.order)
{
  "orderId": "$root.id",
  "customer": "$root.customer.name.trim().toLowerCase()",
  "count": $root.items.size(),
  "items": [
#foreach($item in $root.items)
#set($total = $item.price * $item.qty)
    {
      "sku": "$item.sku.toUpperCase()",
      "qty": $item.qty,
      "total": $total,
#if($item.tags.contains("gift"))
      "gift": true,
#end
      "label": "$item.name.replace('"', '\"')"
    }#if($foreach.hasNext),#end
#end
  ]
}
`

func benchBody(n int) []byte {
	var b strings.Builder
	b.WriteString(`{"order":{"id":"o-1","customer":{"name":"  Ada Lovelace "},"items":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"sku":"sku-%d","qty":%d,"price":%d.5,"name":"item \"%d\"","tags":["a","gift"]}`, i, i%7+1, i, i)
	}
	b.WriteString(`]}}`)
	return []byte(b.String())
}

func BenchmarkRender(b *testing.B) {
	tmpl, err := CompileCached(benchTemplate)
	if err != nil {
		b.Fatal(err)
	}
	body, err := ParseJSON(benchBody(50))
	if err != nil {
		b.Fatal(err)
	}
	vars := map[string]Value{"body": body}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tmpl.Render(vars, DefaultLimits); err != nil {
			b.Fatal(err)
		}
	}
}

// textTemplate is benchTemplate for Go's text/template, producing the
// same bytes over the same body decoded by encoding/json: it is the
// yardstick for BenchmarkRender. "}," between items comes from printing
// the comma before every item but the first.
const textTemplate = `{{$root := .order -}}
{
  "orderId": "{{$root.id}}",
  "customer": "{{$root.customer.name | trim | lower}}",
  "count": {{len $root.items}},
  "items": [
{{range $i, $item := $root.items}}{{if $i}},{{end}}    {
      "sku": "{{upper $item.sku}}",
      "qty": {{$item.qty}},
      "total": {{mul $item.price $item.qty}},
{{if contains $item.tags "gift"}}      "gift": true,
{{end}}      "label": "{{replace $item.name "\"" "\\\""}}"
    }{{end}}  ]
}
`

// textFuncs are the Java methods benchTemplate calls, for text/template.
var textFuncs = template.FuncMap{
	"trim":    strings.TrimSpace,
	"lower":   strings.ToLower,
	"upper":   strings.ToUpper,
	"replace": strings.ReplaceAll,
	"contains": func(list []any, s string) bool {
		for _, v := range list {
			if v == s {
				return true
			}
		}
		return false
	},
	// mul is price * qty printed as Java prints a double (3.0, not 3).
	"mul": func(a, b float64) string {
		var buf [32]byte
		out := strconv.AppendFloat(buf[:0], a*b, 'f', -1, 64)
		if bytes.IndexByte(out, '.') < 0 {
			out = append(out, ".0"...)
		}
		return string(out)
	},
}

func renderTextTemplate(t *template.Template, w *bytes.Buffer, data any) error {
	w.Reset()
	return t.Execute(w, data)
}

// BenchmarkRenderTextTemplate is BenchmarkRender done by text/template:
// the same output over the same body, decoded outside the loop.
func BenchmarkRenderTextTemplate(b *testing.B) {
	tmpl := template.Must(template.New("bench").Funcs(textFuncs).Parse(textTemplate))
	var body map[string]any
	if err := json.Unmarshal(benchBody(50), &body); err != nil {
		b.Fatal(err)
	}
	var w bytes.Buffer
	b.ReportAllocs()
	for b.Loop() {
		if err := renderTextTemplate(tmpl, &w, body); err != nil {
			b.Fatal(err)
		}
	}
}

// TestTextTemplateEquivalent checks that BenchmarkRender and
// BenchmarkRenderTextTemplate produce the same bytes, so that comparing
// them is fair.
func TestTextTemplateEquivalent(t *testing.T) {
	for _, n := range []int{0, 1, 50} {
		t.Run(fmt.Sprintf("items=%d", n), func(t *testing.T) {
			tmpl, err := Compile(benchTemplate)
			if err != nil {
				t.Fatal(err)
			}
			body, err := ParseJSON(benchBody(n))
			if err != nil {
				t.Fatal(err)
			}
			got, err := tmpl.Render(map[string]Value{"body": body}, DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			tt := template.Must(template.New("bench").Funcs(textFuncs).Parse(textTemplate))
			var data map[string]any
			if err := json.Unmarshal(benchBody(n), &data); err != nil {
				t.Fatal(err)
			}
			var w bytes.Buffer
			if err := renderTextTemplate(tt, &w, data); err != nil {
				t.Fatal(err)
			}
			if got != w.String() {
				t.Errorf("outputs differ\nvtl:\n%s\ntext/template:\n%s", got, w.String())
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("output is not JSON:\n%s", got)
			}
			if n == 50 && !strings.Contains(got, `"total": 3.0,`) {
				t.Errorf("output lacks the total of item 1:\n%s", got)
			}
		})
	}
}

func BenchmarkParseJSON(b *testing.B) {
	data := benchBody(50)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseJSONStdlib is the yardstick for BenchmarkParseJSON: the
// standard library decoding the same body into map[string]any.
func BenchmarkParseJSONStdlib(b *testing.B) {
	data := benchBody(50)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var v any
		if err := json.Unmarshal(data, &v); err != nil {
			b.Fatal(err)
		}
	}
}
