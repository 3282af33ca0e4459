package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeFile writes content to a file in a fresh temp dir.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTemplateRender(t *testing.T) {
	body := writeFile(t, "body.json", `{"name": "O'Brien", "items": [{"id": 1}, {"id": 2}]}`)
	tests := []struct {
		name     string
		template string
		args     []string
		stdin    string
		want     string
	}{
		{"literal", "hello", nil, "", "hello"},
		{"emptyBody", "$input.body", nil, "", "{}"},
		{"body", `$util.escapeJavaScript($input.path('$.name')) $input.json('$.items[1]')`,
			[]string{"--body", body}, "", `O\'Brien {"id":2}`},
		{"bodyStdin", "$input.path('$.a')", []string{"--body", "-"}, `{"a": "from stdin"}`, "from stdin"},
		{"params", "$input.params('id') $input.params('q') $input.params('X-H') $input.params().path",
			[]string{"--params", `{"path":{"id":"7"},"querystring":{"q":"x"},"header":{"X-H":"h"}}`}, "", "7 x h {id=7}"},
		{"paramsNumbers", "$input.params('n')", []string{"--params", `{"querystring":{"n":5}}`}, "", "5"},
		{"stageVariables", "$stageVariables.env", []string{"--stage-variables", `{"env":"dev"}`}, "", "dev"},
		{"context", "$context.stage $context.requestId $context.identity.sourceIp",
			[]string{"--context", `{"stage":"dev","requestId":"abc","identity":{"sourceIp":"1.2.3.4"}}`}, "", "dev abc 1.2.3.4"},
		{"contextKeepsOverrides", "#set($context.responseOverride.status = 404)$context.responseOverride.status",
			[]string{"--context", `{"responseOverride":{"header":{"a":"b"}}}`}, "", "404"},
		{"whitespaceKept", "a\n  b\n", nil, "", "a\n  b\n"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			tmpl := writeFile(t, "t.vtl", tc.template)
			var out, errOut strings.Builder
			args := append([]string{"render", "--template", tmpl}, tc.args...)
			if err := runTemplate(args, strings.NewReader(tc.stdin), &out, &errOut); err != nil {
				t.Fatalf("runTemplate: %v (stderr %q)", err, errOut.String())
			}
			if out.String() != tc.want {
				t.Errorf("stdout = %q, want %q", out.String(), tc.want)
			}
		})
	}
}

func TestTemplateRenderOverrides(t *testing.T) {
	tmpl := writeFile(t, "t.vtl", `#set($context.responseOverride.status = 444)
#set($context.responseOverride.header.foo = "bar")
#set($context.requestOverride.querystring.q = "1")
{"statusCode": 200}`)
	var out, errOut strings.Builder
	if err := runTemplate([]string{"render", "--template", tmpl, "--overrides"}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	want := "responseOverride.status: 444\nresponseOverride.header.foo: bar\nrequestOverride.querystring.q: 1\n"
	if errOut.String() != want {
		t.Errorf("stderr = %q, want %q", errOut.String(), want)
	}
}

func TestTemplateRenderErrors(t *testing.T) {
	good := writeFile(t, "good.vtl", "x")
	bad := writeFile(t, "bad.vtl", "line one\n#set($a = )\nline three")
	failing := writeFile(t, "fail.vtl", "$util.parseJson('{')")
	tests := []struct {
		name string
		args []string
		want string // in the error
	}{
		{"noCommand", []string{"draw"}, `unknown command "draw"`},
		{"noTemplate", []string{"render"}, "--template"},
		{"missingFile", []string{"render", "--template", filepath.Join(t.TempDir(), "nope.vtl")}, "nope.vtl"},
		{"missingBody", []string{"render", "--template", good, "--body", filepath.Join(t.TempDir(), "nobody")}, "nobody"},
		{"syntax", []string{"render", "--template", bad}, "line 2, column"},
		{"renderError", []string{"render", "--template", failing}, "fail.vtl"},
		{"badParamsJSON", []string{"render", "--template", good, "--params", "{"}, "--params"},
		{"paramsNotObject", []string{"render", "--template", good, "--params", "[1]"}, "--params"},
		{"paramsUnknownGroup", []string{"render", "--template", good, "--params", `{"cookie":{}}`}, "unknown group"},
		{"paramsGroupNotObject", []string{"render", "--template", good, "--params", `{"path":"x"}`}, "must be an object"},
		{"badStageVariables", []string{"render", "--template", good, "--stage-variables", "nope"}, "--stage-variables"},
		{"badContext", []string{"render", "--template", good, "--context", `"x"`}, "--context"},
		{"unknownFlag", []string{"render", "--template", good, "--nope"}, "nope"},
		{"extraArgument", []string{"render", "--template", good, "extra"}, "extra"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			var out, errOut strings.Builder
			err := runTemplate(tc.args, strings.NewReader(""), &out, &errOut)
			if err == nil {
				t.Fatalf("no error; stdout %q", out.String())
			}
			// Flag errors are printed by the flag package, with the usage.
			if !strings.Contains(err.Error()+errOut.String(), tc.want) {
				t.Errorf("error %q (stderr %q) does not mention %q", err, errOut.String(), tc.want)
			}
			if out.Len() != 0 {
				t.Errorf("stdout %q on error", out.String())
			}
		})
	}
}

func TestTemplateHelp(t *testing.T) {
	var out, errOut strings.Builder
	if err := runTemplate([]string{"render", "-h"}, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-template", "-body", "-params", "-stage-variables", "-context"} {
		if !strings.Contains(out.String(), flag) {
			t.Errorf("help on stdout lacks %s:\n%s", flag, out.String())
		}
	}
}

// TestTemplateCommandExitCodes runs the real binary's main: 0 and the
// output on success, 1 and a message on stderr on failure.
func TestTemplateCommandExitCodes(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	good := writeFile(t, "good.vtl", `{"id": "$input.params('id')"}`)
	bad := writeFile(t, "bad.vtl", "#foreach(")
	tests := []struct {
		name       string
		args       []string
		code       int
		out, inErr string
	}{
		{"ok", []string{"template", "render", "--template", good, "--params", `{"path":{"id":"9"}}`}, 0, `{"id": "9"}`, ""},
		{"syntaxError", []string{"template", "render", "--template", bad}, 1, "", "emulator template:"},
	}
	for _, tc := range tests {
		t.Run("case="+tc.name, func(t *testing.T) {
			cmd := exec.Command(self, tc.args...)
			cmd.Env = append(os.Environ(), childEnv+"=1")
			var stdout, stderr strings.Builder
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			code := 0
			if ee, ok := err.(*exec.ExitError); ok {
				code = ee.ExitCode()
			} else if err != nil {
				t.Fatal(err)
			}
			if code != tc.code || stdout.String() != tc.out || !strings.Contains(stderr.String(), tc.inErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d, stdout %q, stderr containing %q",
					code, stdout.String(), stderr.String(), tc.code, tc.out, tc.inErr)
			}
		})
	}
}

// TestTemplateReadmeExample runs the "Debugging mapping templates"
// example of docs/mapping-templates.md (once in the README) and checks the
// output it shows.
func TestTemplateReadmeExample(t *testing.T) {
	b, err := os.ReadFile("../../docs/mapping-templates.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "## Debugging mapping templates\n")
	if !ok {
		t.Fatal("docs/mapping-templates.md has no Debugging mapping templates section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	// The section's code blocks, in order: template, body, command, output.
	var blocks []string
	for rest := sec; ; {
		_, after, ok := strings.Cut(rest, "```")
		if !ok {
			break
		}
		_, after, _ = strings.Cut(after, "\n") // the info string
		block, tail, ok := strings.Cut(after, "```")
		if !ok {
			t.Fatal("unclosed code block")
		}
		blocks, rest = append(blocks, block), tail
	}
	if len(blocks) != 4 {
		t.Fatalf("%d code blocks, want template, body, command and output", len(blocks))
	}
	tmpl := writeFile(t, "request.vtl", strings.TrimSuffix(blocks[0], "\n"))
	body := writeFile(t, "body.json", strings.TrimSuffix(blocks[1], "\n"))
	cmd := strings.ReplaceAll(blocks[2], "\\\n", " ")
	args := []string{"render", "--template", tmpl, "--body", body}
	for _, flag := range []string{"--params", "--context"} {
		_, v, ok := strings.Cut(cmd, flag+" '")
		if !ok {
			t.Fatalf("command lacks %s: %s", flag, cmd)
		}
		v, _, _ = strings.Cut(v, "'")
		args = append(args, flag, v)
	}
	var out, errOut strings.Builder
	if err := runTemplate(args, nil, &out, &errOut); err != nil {
		t.Fatal(err)
	}
	if want := strings.TrimSuffix(blocks[3], "\n"); out.String() != want {
		t.Errorf("docs/mapping-templates.md shows\n%s\nthe command prints\n%s", want, out.String())
	}
}
