package vtl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// benchTemplate is a typical 20-line mapping template: a loop over the
// body's items with string methods, conditions and counters.
const benchTemplate = `#set($root = $body.order)
{
  "orderId": "$root.id",
  "customer": "$root.customer.name.trim().toLowerCase()",
  "count": $root.items.size(),
  "items": [
#foreach($item in $root.items)
    {
      "sku": "$item.sku.toUpperCase()",
      "qty": $item.qty,
      "total": $item.price * $item.qty,
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
