package gateway

import (
	"maps"
	"testing"

	"github.com/cloudemu/emulator/vtl"
)

func render(t testing.TB, src string, req Request) string {
	t.Helper()
	tmpl, err := vtl.Compile(src)
	if err != nil {
		t.Fatalf("Compile(%q): %v", src, err)
	}
	out, err := tmpl.Render(Vars(req), vtl.DefaultLimits)
	if err != nil {
		t.Fatalf("Render(%q): %v", src, err)
	}
	return out
}

// TestInput covers $input. Expectations marked AWS are the recordings
// docs/apigateway-execution.md §5 summarises (localstack's test_apigateway_common
// snapshot: test_input_path_template_formatting,
// test_input_body_formatting); the others are API Gateway's documented
// behaviour.
func TestInput(t *testing.T) {
	params := Request{
		PathParams:  map[string]string{"id": "p-id", "shared": "from-path"},
		QueryParams: map[string]string{"q": "term", "shared": "from-query", "both": "from-query"},
		Headers:     map[string]string{"X-Trace": "abc", "both": "from-header", "Accept": "*/*"},
	}
	tests := []struct {
		name, body, tmpl, want string
		req                    *Request
	}{
		// AWS: an empty body is "{}".
		{"body=empty", "", "$input.body", "{}", nil},
		{"body=raw", `{"a": 1}`, "$input.body", `{"a": 1}`, nil},
		{"body=text", "hello", "$input.body", "hello", nil},
		// AWS: attribute access on the body string renders empty.
		{"body=attribute", `{"foo": "bar"}`, "[$input.body.foo]", "[]", nil},
		{"body=getter", "x", "$input.getBody()", "x", nil},

		// AWS: maps render Java-style, lists compact JSON.
		{"path=map", `{"foo": "bar"}`, "$input.path('$')", "{foo=bar}", nil},
		{"path=mapSeparators", `{"bigger": "dict", "to": "test", "with": "separators"}`,
			"$input.path('$')", "{bigger=dict, to=test, with=separators}", nil},
		{"path=list", `[{"foo": "bar"}]`, "$input.path('$')", `[{"foo":"bar"}]`, nil},
		{"path=listInMap", `{"foo": [{"nested": "bar"}]}`, "$input.path('$')", `{foo=[{"nested":"bar"}]}`, nil},
		{"path=nestedList", `{"a": 1, "b": [{"c": 5}]}`, "$input.path('$').b", `[{"c":5}]`, nil},
		{"path=scalar", `{"a": {"b": "deep"}}`, "$input.path('$.a.b')", "deep", nil},
		{"path=number", `{"n": 12.5}`, "$input.path('$.n')", "12.5", nil},
		{"path=noRoot", `{"a": {"b": "deep"}}`, "$input.path('a.b')", "deep", nil},
		// AWS: a missing path renders empty and equals both $null and "".
		{"path=missing", `{"foo": "bar"}`, "[$input.path('$.nope')]", "[]", nil},
		{"path=missingIsNull", `{"foo": "bar"}`,
			`#set($r = $input.path('$.nope'))#if($r == $null)null#end`, "null", nil},
		{"path=missingIsEmpty", `{"foo": "bar"}`,
			`#set($r = $input.path('$.nope'))#if($r == "")empty#end`, "empty", nil},
		// AWS: .size() and indexing work on the result.
		{"path=size", `{"items": [1, 2, 3]}`, "$input.path('$.items').size()", "3", nil},
		{"path=index", `[{"foo": "bar"}, {"foo": "baz"}]`, "#set($r = $input.path('$'))$r[1].foo", "baz", nil},
		{"path=wildcard", `{"items": [{"id": 1}, {"id": 2}]}`, "$input.path('$.items[*].id')", "[1,2]", nil},
		{"path=deepScan", `{"a": {"id": 1}, "b": [{"id": 2}]}`, "$input.path('$..id')", "[1,2]", nil},
		{"path=emptyBody", "", "$input.path('$')", "{}", nil},
		{"path=notJSON", "hello", "[$input.path('$')]", "[]", nil},
		{"path=foreach", `{"items": [{"n": "a"}, {"n": "b"}]}`,
			"#foreach($i in $input.path('$.items'))$i.n#if($foreach.hasNext),#end#end", "a,b", nil},

		{"json=string", `{"foo": "bar"}`, "$input.json('$.foo')", `"bar"`, nil},
		{"json=object", `{"a": {"b": [1, 2.5, true, null]}}`, "$input.json('$.a')", `{"b":[1,2.5,true,null]}`, nil},
		{"json=root", `{ "a" : 1 }`, "$input.json('$')", `{"a":1}`, nil},
		{"json=escapes", `{"s": "a\"b\\c\nd"}`, "$input.json('$.s')", `"a\"b\\c\nd"`, nil},
		{"json=wildcard", `{"items": [{"id": 1}, {"id": 2}]}`, "$input.json('$.items[*].id')", "[1,2]", nil},
		{"json=emptyBody", "", "$input.json('$')", "{}", nil},
		// docs/apigateway-execution.md §5: a JSON empty string when nothing matches or the
		// body is not JSON.
		{"json=missing", `{"foo": "bar"}`, "$input.json('$.nope')", `""`, nil},
		{"json=notJSON", "hello", "$input.json('$')", `""`, nil},

		// docs/apigateway-execution.md §5: path, then querystring, then header; "" when absent.
		{"params=path", "", "$input.params('id')", "p-id", &params},
		{"params=pathFirst", "", "$input.params('shared')", "from-path", &params},
		{"params=queryBeforeHeader", "", "$input.params('both')", "from-query", &params},
		{"params=header", "", "$input.params('X-Trace')", "abc", &params},
		{"params=headerAnyCase", "", "$input.params('x-trace')", "abc", &params},
		{"params=absent", "", "[$input.params('nope')]", "[]", &params},
		{"params=all", "", "$input.params()",
			"{path={id=p-id, shared=from-path}, querystring={both=from-query, q=term, shared=from-query}, header={Accept=*/*, X-Trace=abc, both=from-header}}", &params},
		{"params=none", "", "$input.params()", "{path={}, querystring={}, header={}}", nil},
		{"params=group", "", "$input.params().querystring.q $input.params().header.get('X-Trace')", "term abc", &params},
		{"params=keySet", "", "#foreach($k in $input.params().path.keySet())$k;#end", "id;shared;", &params},

		{"util=parseJsonDot", "", `#set($o = $util.parseJson('{"a": {"b": "c"}}'))$o.a.b`, "c", nil},
		{"util=parseJsonBody", `{"name": "Chris"}`, `#set($o = $util.parseJson($input.body))Hello $o.name`, "Hello Chris", nil},
		{"util=escape", `{"s": "it's \"x\""}`, `$util.escapeJavaScript($input.path('$.s'))`, `it\'s \"x\"`, nil},
		{"util=escapeJSON", `{"a": "b"}`, `"$util.escapeJavaScript($input.json('$'))"`, `"{\"a\":\"b\"}"`, nil},
		{"util=urlEncode", "", `$util.urlEncode('{"some": "value"}')`, "%7B%22some%22%3A+%22value%22%7D", nil},
		{"util=urlDecode", "", `$util.urlDecode('a+b%21')`, "a b!", nil},
		{"util=base64", "", `$util.base64Decode($util.base64Encode('héllo'))`, "héllo", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req := Request{}
			if tc.req != nil {
				req = *tc.req
			}
			req.Body = []byte(tc.body)
			if got := render(t, tc.tmpl, req); got != tc.want {
				t.Errorf("body %q, template %q:\n got %q\nwant %q", tc.body, tc.tmpl, got, tc.want)
			}
		})
	}
}

func TestInputErrors(t *testing.T) {
	tests := []struct{ name, tmpl string }{
		{"badJSONPath", "$input.path('$[')"},
		{"badJSONPathInJSON", "$input.json('$.a.')"},
		{"parseJsonBad", "$util.parseJson('{')"},
		{"urlDecodeBad", "$util.urlDecode('%x')"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			tmpl, err := vtl.Compile(tc.tmpl)
			if err != nil {
				t.Fatal(err)
			}
			if out, err := tmpl.Render(Vars(Request{Body: []byte(`{"a":1}`)}), vtl.DefaultLimits); err == nil {
				t.Fatalf("rendered %q, want an error", out)
			}
		})
	}
}

func TestInputParsesOnce(t *testing.T) {
	in := &Input{body: []byte(`{"a": {"b": 1}}`)}
	if _, _, err := in.Call("path", []vtl.Value{"$.a"}); err != nil {
		t.Fatal(err)
	}
	first := in.root
	if _, _, err := in.Call("json", []vtl.Value{"$.a.b"}); err != nil {
		t.Fatal(err)
	}
	if in.root != first {
		t.Error("the body was parsed a second time")
	}
}

func TestContext(t *testing.T) {
	auth := vtl.NewMap(2)
	auth.Put("principalId", "user-1")
	claims := vtl.NewMap(1)
	claims.Put("email", "a@b.c")
	auth.Put("claims", claims)
	ctx := NewContext(Context{
		AccountID: "123456789012", APIID: "abc123", Stage: "dev", RequestID: "req-1",
		HTTPMethod: "POST", ResourcePath: "/pets/{id}", Path: "/dev/pets/7",
		RequestTimeEpoch: 1700000000000, Protocol: "HTTP/1.1",
		Identity:   Identity{SourceIP: "127.0.0.1", UserAgent: "curl/8", APIKey: "k"},
		Authorizer: auth,
		Error:      &ErrorInfo{Message: `Missing "token"`, ResponseType: "UNAUTHORIZED"},
	})
	tests := []struct{ name, tmpl, want string }{
		{"scalars", "$context.stage $context.requestId $context.httpMethod $context.resourcePath $context.path",
			"dev req-1 POST /pets/{id} /dev/pets/7"},
		{"ids", "$context.accountId/$context.apiId", "123456789012/abc123"},
		{"epoch", "$context.requestTimeEpoch", "1700000000000"},
		{"identity", "$context.identity.sourceIp $context.identity.userAgent $context.identity.apiKey", "127.0.0.1 curl/8 k"},
		{"absentIsEmpty", "[$context.identity.caller][$context.domainName]", "[][]"},
		{"absentIsNull", "#if($context.identity.user == $null)null#end", "null"},
		{"authorizer", "$context.authorizer.principalId $context.authorizer.claims.email", "user-1 a@b.c"},
		// The default gateway response template (docs/apigateway-execution.md §3).
		{"errorTemplate", `{"message":$context.error.messageString}`, `{"message":"Missing \"token\""}`},
		{"errorType", "$context.error.responseType", "UNAUTHORIZED"},
		{"overridesEmpty", "$context.requestOverride $context.responseOverride", "{header={}, path={}, querystring={}} {header={}}"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			if got := render(t, tc.tmpl, Request{Context: ctx}); got != tc.want {
				t.Errorf("%q = %q, want %q", tc.tmpl, got, tc.want)
			}
		})
	}
}

func TestStageVariables(t *testing.T) {
	req := Request{StageVariables: map[string]string{"env": "dev", "url": "http://x", "a": "1"}}
	tests := []struct{ name, tmpl, want string }{
		{"get", "$stageVariables.env $stageVariables.get('url')", "dev http://x"},
		{"absent", "[$stageVariables.nope]", "[]"},
		{"keys", "#foreach($k in $stageVariables.keySet())$k#end", "aenvurl"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			if got := render(t, tc.tmpl, req); got != tc.want {
				t.Errorf("%q = %q, want %q", tc.tmpl, got, tc.want)
			}
		})
	}
	if got := render(t, "[$stageVariables.x]", Request{}); got != "[]" {
		t.Errorf("no stage variables: %q", got)
	}
}

// TestOverrides follows the AWS recordings docs/apigateway-execution.md §5 cites from
// localstack's test_apigateway_integrations snapshot.
func TestOverrides(t *testing.T) {
	tests := []struct {
		name string
		tmpl string
		want Overrides
	}{
		{
			// test_integration_mock_with_response_override_in_request_template:
			// status 444 and header foo: bar.
			name: "responseInRequestTemplate",
			tmpl: `#set($context.responseOverride.status = 444)
#set($context.responseOverride.header.foo = "bar")
{"statusCode": 200}`,
			want: Overrides{Status: 444, ResponseHeaders: map[string]string{"foo": "bar"}},
		},
		{
			// test_integration_mock_with_vtl_map_assignation: both the
			// indexed #set and .put work.
			name: "mapAssignation",
			tmpl: `#set($qs = {"a": "1", "b": "2"})
#foreach($k in $qs.keySet())#set($context.requestOverride.querystring[$k] = $qs.get($k))#end
$context.requestOverride.header.put("X-Put", "v")
#set($context.requestOverride.path.id = "7")`,
			want: Overrides{
				RequestQuery:   map[string]string{"a": "1", "b": "2"},
				RequestHeaders: map[string]string{"X-Put": "v"},
				RequestPath:    map[string]string{"id": "7"},
			},
		},
		{name: "statusTooHigh", tmpl: `#set($context.responseOverride.status = 600)`},
		{name: "statusString", tmpl: `#set($context.responseOverride.status = "400")`},
		{name: "statusLow", tmpl: `#set($context.responseOverride.status = 99)`},
		{name: "statusNumberValue", tmpl: `#set($context.responseOverride.status = 200 + 201)`, want: Overrides{Status: 401}},
		{
			name: "headerValuesRendered",
			tmpl: `#set($context.responseOverride.header.n = 5)`,
			want: Overrides{ResponseHeaders: map[string]string{"n": "5"}},
		},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			ctx := NewContext(Context{})
			render(t, tc.tmpl, Request{Context: ctx})
			got := ReadOverrides(ctx)
			if got.Status != tc.want.Status ||
				!maps.Equal(got.ResponseHeaders, tc.want.ResponseHeaders) ||
				!maps.Equal(got.RequestHeaders, tc.want.RequestHeaders) ||
				!maps.Equal(got.RequestQuery, tc.want.RequestQuery) ||
				!maps.Equal(got.RequestPath, tc.want.RequestPath) {
				t.Errorf("overrides = %+v, want %+v", got, tc.want)
			}
		})
	}
}

// TestOverridesCarryToResponseTemplate: a status set in the request
// template is still there in the response template (AWS:
// test_integration_mock_with_response_override_in_request_template).
func TestOverridesCarryToResponseTemplate(t *testing.T) {
	ctx := NewContext(Context{RequestID: "r"})
	reqOut := render(t, `#set($context.responseOverride.status = 444){"statusCode": 200}`, Request{Context: ctx})
	if code, ok := MockStatus(reqOut); !ok || code != 200 {
		t.Fatalf("MockStatus(%q) = %d, %v", reqOut, code, ok)
	}
	got := render(t, `status=$context.responseOverride.status`, Request{Context: ctx})
	if got != "status=444" {
		t.Errorf("response template saw %q", got)
	}
	if ov := ReadOverrides(ctx); ov.Status != 444 {
		t.Errorf("status after both templates = %d", ov.Status)
	}
}

func TestReadOverridesReplacedMaps(t *testing.T) {
	ctx := NewContext(Context{})
	render(t, `#set($context.responseOverride = {"status": 201, "header": {"a": "b"}})#set($context.requestOverride = "nope")`, Request{Context: ctx})
	ov := ReadOverrides(ctx)
	if ov.Status != 201 || ov.ResponseHeaders["a"] != "b" || ov.RequestHeaders != nil {
		t.Errorf("overrides = %+v", ov)
	}
	// A null value (which Go code can put) is not a header.
	resp, _ := ctx.Get("responseOverride")
	h, _ := resp.(*vtl.Map).Get("header")
	h.(*vtl.Map).Put("gone", nil)
	if ov := ReadOverrides(ctx); len(ov.ResponseHeaders) != 1 {
		t.Errorf("null header read back: %+v", ov.ResponseHeaders)
	}
	if ov := ReadOverrides(nil); ov.Status != 0 {
		t.Errorf("nil context: %+v", ov)
	}
}
