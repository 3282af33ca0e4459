package server_test

// The README's examples, run for real against an emulator started by the
// test, as CoreDNS's test/readme_test.go runs every example of its README:
//
//   - every ```sh block of "First steps", in order, as one bash script (a
//     user typing them into one terminal), with the AWS CLI and curl;
//   - the ```python block of "Python (boto3)", with python3 and boto3;
//   - the ```go block of "Go (AWS SDK for Go v2)", which must be the body of
//     readmeGoExample below, called against the emulator;
//   - the ```hcl block of "Terraform", applied when terraform and an offline
//     copy of the hashicorp/aws provider are here (skipped otherwise, in CI
//     too: no package registry this project uses ships terraform).
//
// In every example http://localhost:4566 becomes the test emulator's
// address. A comment line "# => TEXT" is what the command above it prints:
// each TEXT must appear in the output, in order, with runs of blanks read
// as one space and $NAME read as the shell variable's value at the end.
// A missing AWS CLI, curl or boto3 skips its test on a developer's machine
// and fails it in CI (CI set), where .ci/run installs them.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/apigateway"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2"
	"github.com/aws/aws-sdk-go-v2/service/apigatewayv2/types"
	"github.com/aws/aws-sdk-go-v2/service/backup"

	"github.com/cloudemu/emulator/server/servertest"
)

const readmePath = "../README.md"

// readmeEndpoint is the address every README example uses.
const readmeEndpoint = "http://localhost:4566"

// exampleTimeout bounds each example's run, tools included.
const exampleTimeout = 3 * time.Minute

// codeBlock is one fenced block of a markdown text.
type codeBlock struct {
	lang string // the info string's first word
	body string // up to and including the last line break before the fence
	line int    // the line of the opening fence, from 1
}

// codeBlocks returns the fenced blocks of text in order.
func codeBlocks(text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	var body strings.Builder
	for i, l := range strings.Split(text, "\n") {
		if !strings.HasPrefix(l, "```") {
			if cur != nil {
				body.WriteString(l + "\n")
			}
			continue
		}
		if cur == nil {
			lang, _, _ := strings.Cut(strings.TrimPrefix(l, "```"), " ")
			cur = &codeBlock{lang: lang, line: i + 1}
			body.Reset()
			continue
		}
		cur.body = body.String()
		out = append(out, *cur)
		cur = nil
	}
	return out
}

// section returns the text under heading (a whole line such as "## First
// steps") up to the next heading of the same or a higher level, skipping
// lines inside code blocks. It fails the test when text has no such heading.
func section(t *testing.T, text, heading string) string {
	t.Helper()
	level := strings.IndexByte(heading, ' ')
	lines := strings.Split(text, "\n")
	start := -1
	fenced := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		if start < 0 {
			if l == heading {
				start = i + 1
			}
			continue
		}
		if n := strings.IndexByte(l, ' '); n > 0 && n <= level && strings.Count(l[:n], "#") == n {
			return strings.Join(lines[start:i], "\n")
		}
	}
	if start < 0 {
		t.Fatalf("README has no heading %q", heading)
	}
	return strings.Join(lines[start:], "\n")
}

// readme returns the README's text.
func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(readmePath)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// blocksOf returns the blocks of lang in the README's section heading,
// failing the test when there is none.
func blocksOf(t *testing.T, heading, lang string) []codeBlock {
	t.Helper()
	var out []codeBlock
	for _, b := range codeBlocks(section(t, readme(t), heading)) {
		if b.lang == lang {
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		t.Fatalf("README section %q has no %s block", heading, lang)
	}
	return out
}

// pointAt rewrites an example's endpoint to srv: http://localhost:4566
// becomes srv's URL, and any other host's port 4566 (the execute-api host
// names) srv's port.
func pointAt(example string, srv *servertest.Server) string {
	_, port, _ := strings.Cut(srv.Addr, ":")
	// The port first: srv's own port may begin with 4566.
	example = strings.ReplaceAll(example, ":4566", ":"+port)
	return strings.ReplaceAll(example, strings.TrimSuffix(readmeEndpoint, "4566")+port, srv.URL)
}

// expectations returns the TEXT of every "# => TEXT" line of example.
func expectations(example string) []string {
	var out []string
	for _, l := range strings.Split(example, "\n") {
		if want, ok := strings.CutPrefix(strings.TrimSpace(l), "# => "); ok {
			out = append(out, want)
		}
	}
	return out
}

var (
	blanks   = regexp.MustCompile(`[ \t\r\n]+`)
	shellVar = regexp.MustCompile(`\$([A-Z_][A-Z0-9_]*)`)
)

// checkOutput fails the test unless every expectation appears in out, in
// order, with runs of blanks read as one space and $NAME as vars[NAME].
func checkOutput(t *testing.T, out string, wants []string, vars map[string]string) {
	t.Helper()
	rest := blanks.ReplaceAllString(out, " ")
	for _, want := range wants {
		want = shellVar.ReplaceAllStringFunc(want, func(ref string) string {
			if v, ok := vars[ref[1:]]; ok {
				return v
			}
			return ref
		})
		want = blanks.ReplaceAllString(want, " ")
		i := strings.Index(rest, want)
		if i < 0 {
			t.Errorf("the README says the output has %q (after what came before); the output:\n%s", want, out)
			return
		}
		rest = rest[i+len(want):]
	}
}

// cleanEnv is the test process's environment without the variables that
// would point a tool somewhere else (AWS_*, TF_*), with the AWS tools'
// configuration files replaced by empty ones in dir, no pager, and one
// attempt per call.
func cleanEnv(t *testing.T, dir string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "AWS_") || strings.HasPrefix(kv, "TF_") {
			continue
		}
		env = append(env, kv)
	}
	cfg := filepath.Join(dir, "aws-config")
	if err := os.WriteFile(cfg, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	return append(env,
		"AWS_CONFIG_FILE="+cfg,
		"AWS_SHARED_CREDENTIALS_FILE="+cfg,
		"AWS_PAGER=",
		"AWS_EC2_METADATA_DISABLED=true",
		"AWS_MAX_ATTEMPTS=1",
	)
}

// run runs cmd bounded by exampleTimeout and returns its stdout, failing
// the test, with both outputs, when it does not exit 0.
func run(t *testing.T, cmd *exec.Cmd) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = 5 * time.Second
	start := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s: %v after %s\nstdout:\n%s\nstderr:\n%s", cmd.Args[0], err,
			time.Since(start).Round(time.Millisecond), stdout.String(), stderr.String())
	}
	return stdout.String()
}

// needTool returns the path of tool, ending the test when it is missing
// (a skip here, a failure in CI).
func needTool(t *testing.T, tool, what string) string {
	t.Helper()
	p, err := exec.LookPath(tool)
	if err != nil {
		servertest.MissingTool(t, what)
	}
	return p
}

// shellPrelude runs before the README's commands: stop at the first
// failure, and let curl reach every host name on loopback. The host form
// ({id}.execute-api.localhost.localstack.cloud) resolves to 127.0.0.1 in
// public DNS, which a test must not need: --connect-to sends every
// connection to 127.0.0.1, at the URL's port, as that DNS answer would.
const shellPrelude = `set -euo pipefail
curl() { command curl -sS --max-time 10 --connect-to ::127.0.0.1: "$@"; echo; }
`

// TestReadmeFirstSteps runs every shell block of the README's "First
// steps" in order, as one script, and checks what it prints.
func TestReadmeFirstSteps(t *testing.T) {
	t.Parallel()
	needTool(t, "aws", "the AWS CLI (aws)")
	needTool(t, "curl", "curl")
	bash := needTool(t, "bash", "bash")
	srv := servertest.Start(t)

	var script strings.Builder
	script.WriteString(shellPrelude)
	var wants []string
	for _, b := range blocksOf(t, "## First steps", "sh") {
		fmt.Fprintf(&script, "# README.md:%d\n%s", b.line, pointAt(b.body, srv))
		wants = append(wants, expectations(b.body)...)
	}
	// Report the variables the expectations name.
	dir := t.TempDir()
	varsFile := filepath.Join(dir, "vars")
	names := map[string]bool{}
	for _, w := range wants {
		for _, m := range shellVar.FindAllStringSubmatch(w, -1) {
			if !names[m[1]] {
				names[m[1]] = true
				fmt.Fprintf(&script, "printf '%%s=%%s\\n' %s \"${%s-}\" >>%q\n", m[1], m[1], varsFile)
			}
		}
	}

	ctx, cancel := context.WithTimeout(t.Context(), exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", script.String())
	cmd.Dir, cmd.Env = dir, cleanEnv(t, dir)
	out := run(t, cmd)

	vars := map[string]string{}
	if b, err := os.ReadFile(varsFile); err == nil {
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				vars[k] = v
			}
		}
	}
	checkOutput(t, out, wants, vars)
}

// pythonWithBoto3 returns the first python3 that imports boto3: the one on
// PATH, else Debian's (/usr/bin/python3, where apt-get install
// python3-boto3 puts it), or "" when none does.
func pythonWithBoto3() string {
	var candidates []string
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append(candidates, p)
	}
	candidates = append(candidates, "/usr/bin/python3")
	for _, p := range candidates {
		if exec.Command(p, "-c", "import boto3").Run() == nil {
			return p
		}
	}
	return ""
}

// TestReadmeBoto3 runs the README's Python example.
func TestReadmeBoto3(t *testing.T) {
	t.Parallel()
	python := pythonWithBoto3()
	if python == "" {
		servertest.MissingTool(t, "python3 with boto3 (python3 -c 'import boto3'; Debian's package python3-boto3)")
	}
	srv := servertest.Start(t)
	blocks := blocksOf(t, "### Python (boto3)", "python")
	if len(blocks) != 1 {
		t.Fatalf("%d python blocks, want 1", len(blocks))
	}
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), exampleTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, python, "-")
	cmd.Dir, cmd.Env = dir, cleanEnv(t, dir)
	cmd.Stdin = strings.NewReader(pointAt(blocks[0].body, srv))
	checkOutput(t, run(t, cmd), expectations(blocks[0].body), nil)
}

// readmeGoExample is the README's Go example, between the markers, with
// readmeEndpoint for "http://localhost:4566". TestReadmeGoSDK checks that
// the README shows exactly this body.
func readmeGoExample(ctx context.Context, readmeEndpoint string) error {
	// readme:begin
	cfg := aws.Config{
		Region:      "us-east-1",
		Credentials: credentials.NewStaticCredentialsProvider("test", "test", ""),
	}
	endpoint := aws.String(readmeEndpoint)
	vaults := backup.NewFromConfig(cfg, func(o *backup.Options) { o.BaseEndpoint = endpoint })
	restAPIs := apigateway.NewFromConfig(cfg, func(o *apigateway.Options) { o.BaseEndpoint = endpoint })
	httpAPIs := apigatewayv2.NewFromConfig(cfg, func(o *apigatewayv2.Options) { o.BaseEndpoint = endpoint })

	if _, err := vaults.CreateBackupVault(ctx, &backup.CreateBackupVaultInput{
		BackupVaultName: aws.String("from-go"),
	}); err != nil {
		return err
	}
	if _, err := restAPIs.CreateRestApi(ctx, &apigateway.CreateRestApiInput{
		Name: aws.String("from-go"),
	}); err != nil {
		return err
	}
	_, err := httpAPIs.CreateApi(ctx, &apigatewayv2.CreateApiInput{
		Name: aws.String("from-go"), ProtocolType: types.ProtocolTypeHttp,
	})
	return err
	// readme:end
}

// TestReadmeGoSDK checks that the README's Go example is readmeGoExample's
// body, so that it compiles, and runs it against an emulator.
func TestReadmeGoSDK(t *testing.T) {
	t.Parallel()
	src, err := os.ReadFile("readme_examples_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, body, ok := strings.Cut(string(src), "\t// readme:begin\n")
	body, _, ok2 := strings.Cut(body, "\t// readme:end\n")
	if !ok || !ok2 {
		t.Fatal("readme_examples_test.go lacks the readme:begin and readme:end markers")
	}
	var want strings.Builder
	for _, l := range strings.SplitAfter(body, "\n") {
		l = strings.TrimPrefix(l, "\t")
		want.WriteString(strings.ReplaceAll(l, "readmeEndpoint", `"`+readmeEndpoint+`"`))
	}
	blocks := blocksOf(t, "### Go (AWS SDK for Go v2)", "go")
	if len(blocks) != 1 {
		t.Fatalf("%d go blocks, want 1", len(blocks))
	}
	if got := blocks[0].body; got != want.String() {
		t.Errorf("the README's Go example (README.md:%d) differs from readmeGoExample; README:\n%s\nreadmeGoExample:\n%s",
			blocks[0].line, got, want.String())
	}

	srv := servertest.Start(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := readmeGoExample(ctx, srv.URL); err != nil {
		t.Fatal(err)
	}
	// The vault is there for any client.
	c := backup.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *backup.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	if _, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("from-go")}); err != nil {
		t.Fatalf("the vault the example created: %v", err)
	}
}

// terraformMirrors are where an offline copy of providers may be, beside
// terraform's own implicit local mirrors.
var terraformMirrors = []string{"/opt/tf-plugins", "/usr/local/share/terraform/plugins", "/usr/share/terraform/plugins"}

// TestReadmeTerraform applies the README's Terraform configuration. It
// needs terraform and the hashicorp/aws provider without the network: the
// configuration TF_CLI_CONFIG_FILE names, or a filesystem mirror in one of
// terraformMirrors or ~/.terraform.d/plugins. Without them it is skipped,
// in CI too: .ci/run cannot install terraform from the package registries
// it uses, so this example is checked only where both are at hand.
func TestReadmeTerraform(t *testing.T) {
	t.Parallel()
	tf, err := exec.LookPath("terraform")
	if err != nil {
		t.Skip("terraform not found on PATH: the README's Terraform example is not run")
	}
	dir := t.TempDir()
	env := cleanEnv(t, dir)
	env = append(env, "TF_IN_AUTOMATION=1", "CHECKPOINT_DISABLE=1", "TF_DATA_DIR="+filepath.Join(dir, ".terraform"))
	if f := os.Getenv("TF_CLI_CONFIG_FILE"); f != "" && fileExists(f) {
		env = append(env, "TF_CLI_CONFIG_FILE="+f)
	} else {
		mirror := ""
		dirs := terraformMirrors
		if home, err := os.UserHomeDir(); err == nil {
			dirs = append(dirs, filepath.Join(home, ".terraform.d", "plugins"))
		}
		for _, d := range dirs {
			if fileExists(filepath.Join(d, "registry.terraform.io", "hashicorp", "aws")) {
				mirror = d
				break
			}
		}
		if mirror == "" {
			t.Skip("no offline copy of the hashicorp/aws provider (TF_CLI_CONFIG_FILE or a filesystem mirror): the README's Terraform example is not run")
		}
		rc := filepath.Join(dir, "terraformrc")
		conf := fmt.Sprintf(`provider_installation {
  filesystem_mirror {
    path    = %q
    include = ["registry.terraform.io/hashicorp/aws"]
  }
}
`, mirror)
		if err := os.WriteFile(rc, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		env = append(env, "TF_CLI_CONFIG_FILE="+rc)
	}

	srv := servertest.Start(t)
	blocks := blocksOf(t, "### Terraform", "hcl")
	if len(blocks) != 1 {
		t.Fatalf("%d hcl blocks, want 1", len(blocks))
	}
	main := "terraform {\n  required_providers {\n    aws = { source = \"hashicorp/aws\" }\n  }\n}\n\n" + pointAt(blocks[0].body, srv)
	if err := os.WriteFile(filepath.Join(dir, "main.tf"), []byte(main), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), exampleTimeout)
	defer cancel()
	terraform := func(args ...string) *exec.Cmd {
		cmd := exec.CommandContext(ctx, tf, append(args, "-input=false", "-no-color")...)
		cmd.Dir, cmd.Env = dir, env
		return cmd
	}
	if out, err := terraform("init").CombinedOutput(); err != nil {
		t.Skipf("terraform init could not install the hashicorp/aws provider here: %v\n%s", err, out)
	}
	run(t, terraform("apply", "-auto-approve"))

	c := backup.NewFromConfig(servertest.AWSConfig("us-east-1", "test"), func(o *backup.Options) { o.BaseEndpoint = aws.String(srv.URL) })
	if _, err := c.DescribeBackupVault(ctx, &backup.DescribeBackupVaultInput{BackupVaultName: aws.String("example")}); err != nil {
		t.Fatalf("the vault Terraform created: %v", err)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return !errors.Is(err, os.ErrNotExist)
}
