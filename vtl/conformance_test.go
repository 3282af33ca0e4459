package vtl

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"
)

// airspeedCase is one result recorded on real API Gateway; see
// testdata/README.md for where each field comes from.
type airspeedCase struct {
	ID               string `json:"id"`
	Template         string `json:"template"`
	AWSTemplate      string `json:"awsTemplate"`
	AWSBody          string `json:"awsBody"`
	IgnoreWhitespace bool   `json:"ignoreWhitespace"`
	AWS              string `json:"aws"`
}

// knownDiff lists the recorded cases we do not reproduce, with the reason.
// The test fails when a case not listed differs, and when a listed case
// starts to match, so that the list stays true.
var knownDiff = map[string]string{}

// testUtil is the part of API Gateway's $util the recordings use; the
// real one lives in vtl/gateway.
type testUtil struct{}

func (testUtil) Property(string) (Value, bool) { return nil, false }

func (testUtil) Call(name string, args []Value) (Value, bool, error) {
	if name != "parseJson" || len(args) != 1 {
		return nil, false, nil
	}
	v, err := ParseJSON([]byte(String(args[0])))
	return v, true, err
}

var spaces = regexp.MustCompile(`\s+`)

func normaliseWhitespace(s string) string {
	return spaces.ReplaceAllString(strings.TrimSpace(strings.ReplaceAll(s, "\n", " ")), " ")
}

func TestConformanceAirspeed(t *testing.T) {
	raw, err := os.ReadFile("testdata/airspeed.json")
	if err != nil {
		t.Fatal(err)
	}
	var cases []airspeedCase
	if err := json.Unmarshal(raw, &cases); err != nil {
		t.Fatal(err)
	}
	if len(cases) != 200 {
		t.Fatalf("testdata/airspeed.json has %d cases, want 200", len(cases))
	}
	matched := 0
	for _, c := range cases {
		t.Run(c.ID, func(t *testing.T) {
			got, err := renderAsAWS(c)
			if c.IgnoreWhitespace {
				got = normaliseWhitespace(got)
			}
			same := err == nil && got == c.AWS
			if same {
				matched++
			}
			why, listed := knownDiff[c.ID]
			switch {
			case !same && !listed:
				t.Errorf("template %q\n got %q (err %v)\nwant %q", c.Template, got, err, c.AWS)
			case same && listed:
				t.Errorf("matches now; remove it from knownDiff (%s)", why)
			}
		})
	}
	t.Logf("%d of %d recorded API Gateway results reproduced (%d known differences)", matched, len(cases), len(knownDiff))
}

// TestConformanceAWSFailures: templates the airspeed tests say API Gateway
// rejects with a 500 (comments in tests/test_templating.py).
func TestConformanceAWSFailures(t *testing.T) {
	for _, src := range []string{
		"Hello $",
		`#set ($name = "\"batman\"")$name`,
	} {
		if _, err := Compile(src); err == nil {
			t.Errorf("Compile(%q) succeeded; API Gateway fails it", src)
		}
	}
}

// renderAsAWS renders the case through the response template API Gateway
// ran, with the body the test sent in $context.requestOverride.path.body.
func renderAsAWS(c airspeedCase) (string, error) {
	tmpl, err := Compile(c.AWSTemplate)
	if err != nil {
		return "", err
	}
	path := NewMap(1)
	path.Put("body", c.AWSBody)
	override := NewMap(1)
	override.Put("path", path)
	ctx := NewMap(1)
	ctx.Put("requestOverride", override)
	return tmpl.Render(map[string]Value{"context": ctx, "util": testUtil{}}, DefaultLimits)
}
