package gateway

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/vtl"
)

// requestTemplate is a typical request mapping template: body fields,
// params, context, and a loop over the items with escaping.
const requestTemplate = `#set($root = $input.path('$'))
{
  "requestId": "$context.requestId",
  "stage": "$context.stage",
  "sourceIp": "$context.identity.sourceIp",
  "customer": "$util.escapeJavaScript($root.customer.name)",
  "trace": "$input.params('X-Trace')",
  "env": "$stageVariables.env",
  "items": [
#foreach($item in $input.path('$.items'))
    {
      "sku": "$item.sku",
      "name": "$util.escapeJavaScript($item.name)",
      "qty": $item.qty,
      "price": $item.price
    }#if($foreach.hasNext),#end
#end
  ],
  "count": $root.items.size()
}`

func benchBody() []byte {
	var b strings.Builder
	b.WriteString(`{"customer": {"name": "O'Brien \"Ltd\"", "id": 42}, "items": [`)
	for i := range 50 {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, `{"sku": "SKU-%04d", "name": "Widget n°%d, 'deluxe'", "qty": %d, "price": %d.99}`, i, i, i%7+1, i+10)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

// BenchmarkRequestTemplate is one request as the data plane will do it:
// context, variables, one render (the body parsed once), overrides read
// back. The template is compiled once, outside the loop.
func BenchmarkRequestTemplate(b *testing.B) {
	tmpl, err := vtl.CompileCached(requestTemplate)
	if err != nil {
		b.Fatal(err)
	}
	body := benchBody()
	headers := map[string]string{"X-Trace": "abc", "Content-Type": "application/json"}
	stage := map[string]string{"env": "dev"}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		ctx := NewContext(Context{RequestID: "req-1", Stage: "dev", HTTPMethod: "POST",
			Identity: Identity{SourceIP: "127.0.0.1"}})
		out, err := tmpl.Render(Vars(Request{Body: body, Headers: headers, StageVariables: stage, Context: ctx}), vtl.DefaultLimits)
		if err != nil || len(out) == 0 {
			b.Fatal(err)
		}
		ReadOverrides(ctx)
	}
}

// TestRequestTemplate checks that the benchmark renders what it should.
func TestRequestTemplate(t *testing.T) {
	ctx := NewContext(Context{RequestID: "req-1", Stage: "dev", Identity: Identity{SourceIP: "127.0.0.1"}})
	out := render(t, requestTemplate, Request{Body: benchBody(), Headers: map[string]string{"X-Trace": "abc"},
		StageVariables: map[string]string{"env": "dev"}, Context: ctx})
	for _, want := range []string{
		`"customer": "O\'Brien \"Ltd\""`,
		`"trace": "abc"`,
		`"env": "dev"`,
		`"name": "Widget n\u00B00, \'deluxe\'"`,
		`"sku": "SKU-0049"`,
		`"price": 59.99`,
		`"count": 50`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if n := strings.Count(out, `"sku"`); n != 50 {
		t.Errorf("%d items rendered, want 50", n)
	}
}
