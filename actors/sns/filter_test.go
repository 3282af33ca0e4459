package sns

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// docAttributes are the message attributes of AWS's filter policy
// examples (https://docs.aws.amazon.com/sns/latest/dg/example-filter-policies.html).
var docAttributes = map[string]Attribute{
	"customer_interests": {DataType: "String.Array", StringValue: `["soccer", "rugby", "hockey"]`},
	"store":              {DataType: "String", StringValue: "example_corp"},
	"event":              {DataType: "String", StringValue: "order_placed"},
	"price_usd":          {DataType: "Number", StringValue: "210.75"},
	"encrypted":          {DataType: "Binary", BinaryValue: []byte{1, 2}},
}

// docBody is the same message as a JSON body, for scope MessageBody.
const docBody = `{"customer_interests":["soccer","rugby","hockey"],"store":"example_corp",` +
	`"event":"order_placed","price_usd":210.75,"source":"10.0.0.7","delivery":{"address":{"city":"Seattle","zip":98101}},` +
	`"items":[{"sku":"a-1","qty":2},{"sku":"b-9","qty":0}]}`

func TestFilterPolicyAttributes(t *testing.T) {
	cases := []struct {
		name, policy string
		want         bool
	}{
		{"docExampleAccepts", `{"store":["example_corp"],"event":[{"anything-but":"order_cancelled"}],"customer_interests":["rugby","football","baseball"],"price_usd":[{"numeric":[">=",100]}]}`, true},
		{"exactString", `{"store":["example_corp"]}`, true},
		{"exactStringOther", `{"store":["other"]}`, false},
		{"exactNumber", `{"price_usd":[210.75]}`, true},
		{"exactNumberAsStringDoesNotMatchNumber", `{"price_usd":["210.75"]}`, false},
		{"arrayAnyElement", `{"customer_interests":["rugby"]}`, true},
		{"arrayNoElement", `{"customer_interests":["baseball"]}`, false},
		{"prefix", `{"event":[{"prefix":"order-"}]}`, false},
		{"prefixMatch", `{"event":[{"prefix":"order_"}]}`, true},
		{"suffix", `{"event":[{"suffix":"_placed"}]}`, true},
		{"equalsIgnoreCase", `{"store":[{"equals-ignore-case":"EXAMPLE_CORP"}]}`, true},
		{"anythingButList", `{"event":[{"anything-but":["order_cancelled","order_placed"]}]}`, false},
		{"anythingButListAccepts", `{"event":[{"anything-but":["order_cancelled","order_failed"]}]}`, true},
		{"anythingButNumber", `{"price_usd":[{"anything-but":[100,500]}]}`, true},
		{"anythingButPrefix", `{"event":[{"anything-but":{"prefix":"order"}}]}`, false},
		{"anythingButPrefixAccepts", `{"event":[{"anything-but":{"prefix":"ship"}}]}`, true},
		{"anythingButMissingAttribute", `{"color":[{"anything-but":"red"}]}`, false},
		{"numericRange", `{"price_usd":[{"numeric":[">",0,"<=",210.75]}]}`, true},
		{"numericRangeOut", `{"price_usd":[{"numeric":[">",0,"<",210.75]}]}`, false},
		{"numericEquals", `{"price_usd":[{"numeric":["=",210.75]}]}`, true},
		{"numericOnString", `{"store":[{"numeric":[">",0]}]}`, false},
		{"existsTrue", `{"store":[{"exists":true}]}`, true},
		{"existsFalse", `{"color":[{"exists":false}]}`, true},
		{"existsFalsePresent", `{"store":[{"exists":false}]}`, false},
		{"binaryOnlyExists", `{"encrypted":[{"exists":true}]}`, true},
		{"binaryNoValueMatch", `{"encrypted":["AQI="]}`, false},
		{"allKeysMustMatch", `{"store":["example_corp"],"event":["order_cancelled"]}`, false},
		{"orOfValues", `{"event":["order_cancelled","order_placed"]}`, true},
		{"orBranches", `{"store":["example_corp"],"$or":[{"event":["nope"]},{"price_usd":[{"numeric":[">",200]}]}]}`, true},
		{"orBranchesNone", `{"$or":[{"event":["nope"]},{"price_usd":[{"numeric":["<",200]}]}]}`, false},
		{"cidr", `{"store":[{"cidr":"10.0.0.0/24"}]}`, false},
		{"empty", `{}`, true},
	}
	for _, c := range cases {
		t.Run("case="+c.name, func(t *testing.T) {
			p, err := CompileFilterPolicy(c.policy, ScopeAttributes)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.MatchAttributes(docAttributes); got != c.want {
				t.Fatalf("match = %v, want %v", got, c.want)
			}
		})
	}
}

func TestFilterPolicyBody(t *testing.T) {
	cases := []struct {
		name, policy string
		want         bool
	}{
		{"flat", `{"store":["example_corp"],"price_usd":[{"numeric":[">=",100]}]}`, true},
		{"nested", `{"delivery":{"address":{"city":["Seattle"]}}}`, true},
		{"nestedOther", `{"delivery":{"address":{"city":["Portland"]}}}`, false},
		{"nestedNumber", `{"delivery":{"address":{"zip":[{"numeric":[">",98000]}]}}}`, true},
		{"arrayOfObjects", `{"items":{"sku":[{"prefix":"b-"}]}}`, true},
		{"arrayOfObjectsNone", `{"items":{"sku":[{"prefix":"c-"}]}}`, false},
		{"existsFalseNested", `{"delivery":{"address":{"street":[{"exists":false}]}}}`, true},
		{"existsTrueMissing", `{"delivery":{"phone":[{"exists":true}]}}`, false},
		{"cidrMatch", `{"source":[{"cidr":"10.0.0.0/24"}]}`, true},
		{"cidrMiss", `{"source":[{"cidr":"10.0.1.0/24"}]}`, false},
		{"or", `{"$or":[{"store":["x"]},{"delivery":{"address":{"city":["Seattle"]}}}]}`, true},
	}
	for _, c := range cases {
		t.Run("case="+c.name, func(t *testing.T) {
			p, err := CompileFilterPolicy(c.policy, ScopeBody)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.MatchBody(docBody); got != c.want {
				t.Fatalf("match = %v, want %v", got, c.want)
			}
		})
	}
	p, err := CompileFilterPolicy(`{"store":["example_corp"]}`, ScopeBody)
	if err != nil {
		t.Fatal(err)
	}
	if p.MatchBody("not json") {
		t.Fatal("a body that is not JSON matched a policy with a key")
	}
}

// TestFilterPolicyRefused checks AWS's recorded reasons (localstack's
// test_sns_filter_policy snapshots, without the parser's location).
func TestFilterPolicyRefused(t *testing.T) {
	cases := []struct {
		policy, scope, want string
	}{
		{`{"key":[["value"]]}`, ScopeAttributes, "Match value must be String, number, true, false, or null"},
		{`{"key":[{"wrong-operator":true}]}`, ScopeAttributes, "Unrecognized match type wrong-operator"},
		{`{"key":[{"suffix":"value","prefix":"value2"}]}`, ScopeAttributes, "Only one key allowed in match expression"},
		{`{"key":[]}`, ScopeAttributes, "Empty arrays are not allowed"},
		{`{"key":[{"suffix":100}]}`, ScopeAttributes, "suffix match pattern must be a string"},
		{`{"key":[{"suffix":null}]}`, ScopeAttributes, "suffix match pattern must be a string"},
		{`{"key":{"suffix":"value"}}`, ScopeBody, `"suffix" must be an object or an array`},
		{`{"key":[{"numeric":[]}]}`, ScopeAttributes, "Invalid member in numeric match: ]"},
		{`{"key":[{"numeric":["operator"]}]}`, ScopeAttributes, "Unrecognized numeric range operator: operator"},
		{`{"key":[{"numeric":[1,"<="]}]}`, ScopeAttributes, "Invalid member in numeric match: 1"},
		{`{"key":[{"numeric":["=","000"]}]}`, ScopeAttributes, "Value of equals must be numeric"},
		{`{"key":[{"numeric":[">="]}]}`, ScopeAttributes, "Value of >= must be numeric"},
		{`{"key":[{"numeric":["<",100,">",10]}]}`, ScopeAttributes, "Too many elements in numeric expression"},
		{`{"key":[{"numeric":[">=",1,">",2]}]}`, ScopeAttributes, "Bad numeric range operator: >"},
		{`{"key":[{"numeric":[">",3,"<",1]}]}`, ScopeAttributes, "Bottom must be less than top"},
		{`{"key":[{"numeric":[">",20,"<="]}]}`, ScopeAttributes, "Value of <= must be numeric"},
		{`{"key":[{"numeric":[">",20,30]}]}`, ScopeAttributes, "Bad value in numeric range: 30"},
		{`{"key":[{"numeric":[">",20,"test"]}]}`, ScopeAttributes, "Bad numeric range operator: test"},
		{`{"key":[{"numeric":[">","20","<","30"]}]}`, ScopeAttributes, "Value of > must be numeric"},
		{`{"key":[{"numeric":[">",20,"<","30"]}]}`, ScopeAttributes, "Value of < must be numeric"},
		{`{"key":[{"numeric":[">",20,"<",30,"<",50]}]}`, ScopeAttributes, "Too many terms in numeric range expression"},
		{`{"key":[{"exists":null}]}`, ScopeAttributes, "exists match pattern must be either true or false."},
		{`{"key":[{"exists":"no"}]}`, ScopeAttributes, "exists match pattern must be either true or false."},
		{`{"key":[{"anything-but":{"wrong-operator":null}}]}`, ScopeAttributes, "Unsupported anything-but pattern: wrong-operator"},
		{`{"key":[{"anything-but":{"suffix":"test"}}]}`, ScopeAttributes, "Unsupported anything-but pattern: suffix"},
		{`{"key":[{"anything-but":{"exists":false}}]}`, ScopeAttributes, "Unsupported anything-but pattern: exists"},
		{`{"key":[{"anything-but":{"prefix":false}}]}`, ScopeAttributes, "prefix match pattern must be a string"},
		{`{"key":[{"cidr":"bad-filter"}]}`, ScopeAttributes, "Malformed CIDR, one '/' required"},
		{`{"key":[{"cidr":"bad-filter/24"}]}`, ScopeAttributes, "Nonstandard IP address: bad-filter"},
		{`{"key":[{"cidr":"10.0.0.0/xx"}]}`, ScopeAttributes, "Malformed CIDR, mask bits must be an integer"},
		{`{"a":{"b":["c"]}}`, ScopeAttributes, "Filter policy scope MessageAttributes does not support nested filter policy"},
		{`{"key_a":"value_one"}`, ScopeBody, `"key_a" must be an object or an array`},
		{`{"a":["1"],"b":["1"],"c":["1"],"d":["1"],"e":["1"],"f":["1"]}`, ScopeAttributes, "Filter policy can not have more than 5 keys"},
		{`{"a":["1","2","3","4","5","6"],"b":["1","2","3","4","5","6"],"c":["1","2","3","4","5"]}`, ScopeAttributes, "Filter policy is too complex"},
		{`{"a":["1"],"a":["2"]}`, ScopeAttributes, "Duplicated keys are not allowed."},
		{`{invalid`, ScopeAttributes, "failed to parse JSON."},
	}
	for _, c := range cases {
		t.Run("policy="+c.policy, func(t *testing.T) {
			_, err := CompileFilterPolicy(c.policy, c.scope)
			if c.want == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("accepted, want %q", c.want)
			}
			if !strings.HasPrefix(err.Error(), c.want) {
				t.Fatalf("reason %q, want %q", err, c.want)
			}
		})
	}
}

// FuzzFilterPolicy: any policy text compiles or is refused, and a compiled
// policy evaluates any body and the documented attributes, never panicking.
func FuzzFilterPolicy(f *testing.F) {
	for _, seed := range []string{
		`{"store":["example_corp"],"event":[{"anything-but":"order_cancelled"}],"price_usd":[{"numeric":[">=",100]}]}`,
		`{"delivery":{"address":{"city":["Seattle"]}}}`,
		`{"$or":[{"a":["1"]},{"b":[{"exists":false}]}]}`,
		`{"key":[{"numeric":[">",20,"<",30]}]}`,
		`{"source":[{"cidr":"10.0.0.0/24"}]}`,
		`{"a":[{"anything-but":{"prefix":"x"}}]}`,
	} {
		f.Add(seed, docBody)
	}
	f.Fuzz(func(t *testing.T, policy, body string) {
		for _, scope := range []string{ScopeAttributes, ScopeBody} {
			p, err := CompileFilterPolicy(policy, scope)
			if err != nil {
				continue
			}
			p.Match(body, docAttributes)
		}
	})
}

// TestFilterPolicyRecordedRefusals compares the refusals with AWS's, word
// for word with the place its reader names: testdata holds the filter
// policies and reasons recorded against AWS in localstack's
// test_sns*.snapshot.json.
func TestFilterPolicyRecordedRefusals(t *testing.T) {
	b, err := os.ReadFile("testdata/recorded-filter-refusals.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct{ Policy, Reason string }
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run("policy="+c.Policy, func(t *testing.T) {
			_, err := CompileFilterPolicy(c.Policy, ScopeAttributes)
			if err == nil || err.Error() != c.Reason {
				t.Fatalf("got %v\nwant %s", err, c.Reason)
			}
		})
	}
	for policy, want := range map[string]string{
		`{invalid`: "failed to parse JSON. Unexpected character ('i' (code 105)): was expecting double-quote to start field name\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 2]",
		`invalid`:  "failed to parse JSON. Unrecognized token 'invalid': was expecting (JSON String, Number, Array, Object or token 'null', 'true' or 'false')\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); line: 1, column: 8]",
	} {
		if _, err := CompileFilterPolicy(policy, ScopeAttributes); err == nil || err.Error() != want {
			t.Errorf("%s: got %v\nwant %s", policy, err, want)
		}
	}
}

// FuzzPolicyJSON: the positional reader accepts exactly what
// encoding/json calls valid JSON, and never panics.
func FuzzPolicyJSON(f *testing.F) {
	for _, seed := range []string{`{"a":[1,"b",true,null,{"c":-1.5e3}]}`, `{invalid`, `"\u00e9\n"`, `[1,]`, `{"a" 1}`, ` 12 `} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		_, r := parsePolicyJSON(text)
		if valid := json.Valid([]byte(text)); valid != (r == nil) {
			t.Fatalf("%q: json.Valid %v, refusal %v", text, valid, r)
		}
		if r != nil {
			_ = r.words(text)
		}
	})
}
