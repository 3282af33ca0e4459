package gateway

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/cloudemu/emulator/vtl"
)

// mockRequestTemplate is the MOCK integration request template the
// recordings went through: it keeps the request body in
// $context.requestOverride.path.body for the response template
// (vtl/testdata/README.md).
const mockRequestTemplate = `#set($context.requestOverride.path.body = $input.body)
{"statusCode": 200}`

// TestAirspeedThroughGateway replays the 200 results recorded on API
// Gateway (vtl/testdata/airspeed.json) the way they were produced: the
// body goes through $input.body and a request override into the response
// template, which reads it with $util.parseJson. The vtl package checks
// the language on the same data; this checks the gateway's variables and
// the override carry-over on every case.
func TestAirspeedThroughGateway(t *testing.T) {
	raw, err := os.ReadFile("../testdata/airspeed.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []struct {
		ID               string `json:"id"`
		AWSTemplate      string `json:"awsTemplate"`
		AWSBody          string `json:"awsBody"`
		IgnoreWhitespace bool   `json:"ignoreWhitespace"`
		AWS              string `json:"aws"`
	}
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	reqTmpl, err := vtl.Compile(mockRequestTemplate)
	if err != nil {
		t.Fatal(err)
	}
	spaces := regexp.MustCompile(`\s+`)
	matched := 0
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			ctx := NewContext(Context{})
			out, err := reqTmpl.Render(Vars(Request{Body: []byte(c.AWSBody), Context: ctx}), vtl.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			if code, ok := MockStatus(out); !ok || code != 200 {
				t.Fatalf("MockStatus(%q) = %d, %v", out, code, ok)
			}
			respTmpl, err := vtl.Compile(c.AWSTemplate)
			if err != nil {
				t.Fatalf("Compile: %v", err)
			}
			// A MOCK integration's response body is empty.
			got, err := respTmpl.Render(Vars(Request{Context: ctx}), vtl.DefaultLimits)
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			if c.IgnoreWhitespace {
				got = spaces.ReplaceAllString(strings.TrimSpace(strings.ReplaceAll(got, "\n", " ")), " ")
			}
			if got != c.AWS {
				t.Errorf("got %q\nwant %q", got, c.AWS)
				return
			}
			matched++
		})
	}
	t.Logf("%d of %d recorded API Gateway results reproduced through $input and $context", matched, len(cases))
}
