package ses

import (
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	vars, err := parseTemplateData(V1, `{"name":"Ann","n":3,"ok":true,"nil":null,"zero":0,"empty":[],"a":{"b":{"c":"deep"}},"list":[1,2],`+
		`"items":[{"sku":"x","qty":1},{"sku":"y","qty":2}],"m":{"k2":"v2","k1":"v1"}}`, false)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want, missing string }{
		{"Hello {{name}}!", "Hello Ann!", ""},
		{"{{ name }} has {{n}} ({{ok}})", "Ann has 3 (true)", ""},
		{"{{{name}}}", "Ann", ""},
		{"[{{nil}}]", "[]", ""},
		{"{{a.b.c}}", "deep", ""},
		{"{{list}}", "[1,2]", ""},
		{"x{{! a comment }}y", "xy", ""},
		{"{{#if ok}}yes{{/if}}", "yes", ""},
		{"{{#if nil}}yes{{else}}no{{/if}}", "no", ""},
		{"{{#if zero}}yes{{else}}no{{/if}}|{{#if empty}}yes{{else}}no{{/if}}|{{#if a}}obj{{/if}}", "no|no|obj", ""},
		{"{{#if absent}}yes{{else}}no {{name}}{{/if}}", "no Ann", ""},
		{"{{#unless ok}}no{{else}}yes{{/unless}}", "yes", ""},
		{"{{#each list}}[{{this}}]{{/each}}", "[1][2]", ""},
		{"{{#each items}}{{@index}}:{{sku}}x{{qty}}{{#if @last}}.{{else}}, {{/if}}{{/each}}", "0:xx1, 1:yx2.", ""},
		{"{{#each items}}{{sku}} for {{../name}};{{/each}}", "x for Ann;y for Ann;", ""},
		{"{{#each m}}{{@key}}={{this}} {{/each}}", "k1=v1 k2=v2 ", ""},
		{"{{#each empty}}x{{else}}none{{/each}}", "none", ""},
		{"{{#each items}}{{nope}}{{/each}}", "", ""},
		{"{{#with a}}{{/with}}", "{{#with a}}{{/with}}", ""},
		{"{{formatDate name}}", "{{formatDate name}}", ""},
		{"no tags", "no tags", ""},
		{"Hi {{missing}} and {{a.x}}", "Hi  and ", "missing"},
		{"{{name.first}}", "", "name.first"},
	}
	for _, tc := range cases {
		t.Run("in="+tc.in, func(t *testing.T) {
			got, missing := render(TemplateContent{Subject: tc.in}, vars)
			if got.Subject != tc.want || missing != tc.missing {
				t.Fatalf("got %q (missing %q), want %q (missing %q)", got.Subject, missing, tc.want, tc.missing)
			}
		})
	}
	for _, bad := range []string{"{{open", "a {{{b}}", "x }} {{", "{{#if x}}never closed", "{{#if x}}{{/each}}", "{{/if}}", "{{else}}", "{{#each x}}{{else}}{{else}}{{/each}}"} {
		if _, err := parseTemplate(bad); err == nil {
			t.Errorf("parseTemplate(%q) accepted", bad)
		}
	}
	for _, bad := range []string{"", "{", "[]", "null", `"s"`, `{} {}`} {
		if _, err := parseTemplateData(V1, bad, false); err == nil {
			t.Errorf("parseTemplateData(%q) accepted", bad)
		}
	}
}

// FuzzRender: no template or data panics the parser or the renderer.
func FuzzRender(f *testing.F) {
	f.Add("Hi {{name}} {{{raw}}} {{a.b}} {{! c }} {{#if x}}y{{/if}}", `{"name":"n","a":{"b":1}}`)
	f.Fuzz(func(t *testing.T, tpl, data string) {
		vars, err := parseTemplateData(V1, data, false)
		if err != nil {
			return
		}
		if _, err := parseTemplate(tpl); err != nil {
			return
		}
		render(TemplateContent{Subject: tpl, Text: tpl, HTML: tpl}, vars)
	})
}

// The rendered output is bounded in bytes, not only in nodes: a small
// template over large data that would write 100 GB stops at the bound and
// is a rendering failure.
func TestRenderOutputBound(t *testing.T) {
	data := `{"s":"` + strings.Repeat("x", 1<<20) + `","a":[` + strings.Repeat("0,", 100_000) + `0]}`
	vars, err := parseTemplateData(V1, data, false)
	if err != nil {
		t.Fatal(err)
	}
	got, missing := render(TemplateContent{Subject: "s", Text: "{{#each a}}{{../s}}{{/each}}", HTML: "<p>{{s}}</p>"}, vars)
	if missing != renderTooLarge {
		t.Fatalf("missing %q, want %q", missing, renderTooLarge)
	}
	if n := len(got.Subject) + len(got.Text) + len(got.HTML); n > maxRenderedBytes {
		t.Fatalf("rendered %d bytes, more than %d", n, maxRenderedBytes)
	}
	// The bound is on the three parts together.
	_, missing = render(TemplateContent{Subject: "{{#each a}}{{#if @first}}{{../s}}{{/if}}{{/each}}",
		Text: strings.Repeat("{{s}}", 6), HTML: strings.Repeat("{{s}}", 6)}, vars)
	if missing != renderTooLarge {
		t.Fatalf("three parts of 13 MB: missing %q", missing)
	}
	// Up to the bound, a large rendering is whole.
	got, missing = render(TemplateContent{Text: strings.Repeat("{{s}}", 9)}, vars)
	if missing != "" || len(got.Text) != 9<<20 {
		t.Fatalf("9 MB: missing %q, %d bytes", missing, len(got.Text))
	}
}
