package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cloudemu/emulator/server/servertest"
)

// TestMain lets the tests run this binary as cloudlocal itself.
func TestMain(m *testing.M) {
	if os.Getenv("CLOUDLOCAL_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// fakeAWS is a stand-in for the AWS CLI: it prints each argument as
// "arg=<value>", the AWS_* and a few other variables as "env:NAME=<value>",
// its stdin as "stdin=<text>", and exits with $FAKE_EXIT.
const fakeAWS = `#!/bin/sh
for a in "$@"; do printf 'arg=%s\n' "$a"; done
env | grep -E '^(AWS_|FOO=)' | sort | sed 's/^/env:/'
if [ -n "$FAKE_STDIN" ]; then printf 'stdin=%s\n' "$(cat)"; fi
if [ -n "$FAKE_KILL" ]; then kill -9 $$; fi
exit "${FAKE_EXIT:-0}"
`

// fakeDir writes the fake CLI as `aws` into a fresh directory.
func fakeDir(t *testing.T, script string) string {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the fake AWS CLI is a shell script")
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "aws"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

type result struct {
	code           int
	stdout, stderr string
	args           []string
	env            map[string]string
}

// runWith runs cloudlocal in process with exactly env plus, unless env
// names a PATH, one with dir first.
func runWith(t *testing.T, dir string, env []string, stdin string, args ...string) result {
	t.Helper()
	// The CLI is looked up on the process's PATH, which must match env's.
	if i := slices.IndexFunc(env, func(s string) bool { return strings.HasPrefix(s, "PATH=") }); i >= 0 {
		t.Setenv("PATH", strings.TrimPrefix(env[i], "PATH="))
	} else {
		t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
		env = append(env, "PATH="+os.Getenv("PATH"))
	}
	var out, errb bytes.Buffer
	code := run(args, env, strings.NewReader(stdin), &out, &errb)
	r := result{code: code, stdout: out.String(), stderr: errb.String(), env: map[string]string{}}
	for line := range strings.Lines(out.String()) {
		line = strings.TrimSuffix(line, "\n")
		if a, ok := strings.CutPrefix(line, "arg="); ok {
			r.args = append(r.args, a)
		} else if e, ok := strings.CutPrefix(line, "env:"); ok {
			k, v, _ := strings.Cut(e, "=")
			r.env[k] = v
		}
	}
	return r
}

func TestPassesArgumentsThrough(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	args := []string{"backup", "create-backup-vault", "--backup-vault-name", "a b", "", `"quoted" $HOME *`, "--help"}
	r := runWith(t, dir, nil, "", args...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	want := append([]string{"--endpoint-url", "http://127.0.0.1:4566"}, args...)
	if !slices.Equal(r.args, want) {
		t.Errorf("args %q, want %q", r.args, want)
	}
}

func TestNoArguments(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	r := runWith(t, dir, nil, "")
	if want := []string{"--endpoint-url", "http://127.0.0.1:4566"}; !slices.Equal(r.args, want) {
		t.Errorf("args %q, want %q", r.args, want)
	}
}

func TestEndpointFlagNotDoubled(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	for _, args := range [][]string{
		{"--endpoint-url", "http://other:1", "backup", "list-backup-vaults"},
		{"backup", "list-backup-vaults", "--endpoint-url=http://other:1"},
	} {
		t.Run("args="+strings.Join(args, "_"), func(t *testing.T) {
			r := runWith(t, dir, nil, "", args...)
			if !slices.Equal(r.args, args) {
				t.Errorf("args %q, want %q", r.args, args)
			}
		})
	}
}

func TestEnvironment(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	cases := []struct {
		name     string
		env      []string
		endpoint string            // the --endpoint-url passed
		want     map[string]string // "" means must be absent
	}{
		{
			name:     "defaults",
			endpoint: "http://127.0.0.1:4566",
			want: map[string]string{
				"AWS_ENDPOINT_URL": "http://127.0.0.1:4566", "AWS_REGION": "us-east-1", "AWS_DEFAULT_REGION": "us-east-1",
				"AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test",
			},
		},
		{
			name:     "emulator-endpoint",
			env:      []string{"EMULATOR_ENDPOINT=http://emu.internal:9000", "EMULATOR_PORT=1234"},
			endpoint: "http://emu.internal:9000",
			want:     map[string]string{"AWS_ENDPOINT_URL": "http://emu.internal:9000"},
		},
		{
			name:     "port-and-wildcard-host",
			env:      []string{"EMULATOR_PORT=4599", "EMULATOR_HOST=0.0.0.0"},
			endpoint: "http://127.0.0.1:4599",
			want:     map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:4599"},
		},
		{
			name:     "ipv6-wildcard-host",
			env:      []string{"EMULATOR_HOST=::"},
			endpoint: "http://127.0.0.1:4566",
		},
		{
			name:     "ipv6-host",
			env:      []string{"EMULATOR_HOST=::1", "EMULATOR_PORT=5000"},
			endpoint: "http://[::1]:5000",
		},
		{
			name:     "named-host",
			env:      []string{"EMULATOR_HOST=emulator"},
			endpoint: "http://emulator:4566",
		},
		{
			name:     "user-endpoint-wins",
			env:      []string{"AWS_ENDPOINT_URL=http://mine:1", "EMULATOR_ENDPOINT=http://emu:2"},
			endpoint: "http://mine:1",
			want:     map[string]string{"AWS_ENDPOINT_URL": "http://mine:1"},
		},
		{
			name:     "empty-counts-as-unset",
			env:      []string{"AWS_ENDPOINT_URL=", "AWS_REGION="},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_ENDPOINT_URL": "http://127.0.0.1:4566", "AWS_REGION": "us-east-1"},
		},
		{
			name:     "emulator-region",
			env:      []string{"EMULATOR_DEFAULT_REGION=eu-west-3"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_REGION": "eu-west-3", "AWS_DEFAULT_REGION": "eu-west-3"},
		},
		{
			name:     "aws-region-fills-default-region",
			env:      []string{"AWS_REGION=ap-south-1", "EMULATOR_DEFAULT_REGION=eu-west-3"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_REGION": "ap-south-1", "AWS_DEFAULT_REGION": "ap-south-1"},
		},
		{
			name:     "default-region-fills-aws-region",
			env:      []string{"AWS_DEFAULT_REGION=ca-central-1"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_REGION": "ca-central-1", "AWS_DEFAULT_REGION": "ca-central-1"},
		},
		{
			name:     "both-regions-kept",
			env:      []string{"AWS_REGION=us-west-2", "AWS_DEFAULT_REGION=us-east-2"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_REGION": "us-west-2", "AWS_DEFAULT_REGION": "us-east-2"},
		},
		{
			name:     "user-credentials-kept",
			env:      []string{"AWS_ACCESS_KEY_ID=123456789012", "AWS_SECRET_ACCESS_KEY=s3cret", "AWS_SESSION_TOKEN=tok"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_ACCESS_KEY_ID": "123456789012", "AWS_SECRET_ACCESS_KEY": "s3cret", "AWS_SESSION_TOKEN": "tok"},
		},
		{
			name:     "half-credentials-left-alone",
			env:      []string{"AWS_ACCESS_KEY_ID=123456789012"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_ACCESS_KEY_ID": "123456789012", "AWS_SECRET_ACCESS_KEY": ""},
		},
		{
			name:     "profile-gets-test-credentials",
			env:      []string{"AWS_PROFILE=work"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"AWS_PROFILE": "work", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"},
		},
		{
			name:     "other-variables-pass",
			env:      []string{"FOO=bar baz", "AWS_CA_BUNDLE=/etc/ca.pem"},
			endpoint: "http://127.0.0.1:4566",
			want:     map[string]string{"FOO": "bar baz", "AWS_CA_BUNDLE": "/etc/ca.pem"},
		},
	}
	for _, tc := range cases {
		t.Run("case="+tc.name, func(t *testing.T) {
			r := runWith(t, dir, tc.env, "", "sts", "get-caller-identity")
			if r.code != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
			}
			if want := []string{"--endpoint-url", tc.endpoint, "sts", "get-caller-identity"}; !slices.Equal(r.args, want) {
				t.Errorf("args %q, want %q", r.args, want)
			}
			for k, v := range tc.want {
				got, ok := r.env[k]
				if v == "" && ok {
					t.Errorf("%s=%q, want it unset", k, got)
				} else if v != "" && got != v {
					t.Errorf("%s=%q, want %q", k, got, v)
				}
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	for _, code := range []int{0, 1, 3, 252, 254, 255} {
		t.Run("code="+strconv.Itoa(code), func(t *testing.T) {
			r := runWith(t, dir, []string{"FAKE_EXIT=" + strconv.Itoa(code)}, "", "x")
			if r.code != code {
				t.Errorf("exit %d, want %d (stderr %q)", r.code, code, r.stderr)
			}
		})
	}
	t.Run("code=killed", func(t *testing.T) {
		r := runWith(t, dir, []string{"FAKE_KILL=1"}, "", "x")
		if want := 128 + int(syscall.SIGKILL); r.code != want {
			t.Errorf("exit %d, want %d", r.code, want)
		}
	})
}

func TestStdin(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	r := runWith(t, dir, []string{"FAKE_STDIN=1"}, `{"BackupVaultName":"v"}`, "backup", "create-backup-vault", "--cli-input-json", "file:///dev/stdin")
	if !strings.Contains(r.stdout, `stdin={"BackupVaultName":"v"}`) {
		t.Errorf("stdout %q does not show the stdin given", r.stdout)
	}
}

func TestMissingCLI(t *testing.T) {
	empty := t.TempDir()
	t.Run("path", func(t *testing.T) {
		r := runWith(t, empty, []string{"PATH=" + empty}, "", "backup", "list-backup-vaults")
		if r.code != 127 {
			t.Errorf("exit %d, want 127", r.code)
		}
		for _, want := range []string{"AWS CLI", "not on PATH", "https://docs.aws.amazon.com/cli/", "boot.d", "CLOUDLOCAL_AWS"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr %q lacks %q", r.stderr, want)
			}
		}
		if r.stdout != "" {
			t.Errorf("stdout %q, want nothing", r.stdout)
		}
	})
	t.Run("override", func(t *testing.T) {
		r := runWith(t, empty, []string{"CLOUDLOCAL_AWS=" + filepath.Join(empty, "nope")}, "", "x")
		if r.code != 127 || !strings.Contains(r.stderr, "CLOUDLOCAL_AWS=") {
			t.Errorf("exit %d, stderr %q; want 127 naming CLOUDLOCAL_AWS", r.code, r.stderr)
		}
	})
	t.Run("not-executable", func(t *testing.T) {
		if runtime.GOOS == "windows" {
			t.Skip("no executable bit")
		}
		p := filepath.Join(empty, "aws-data")
		if err := os.WriteFile(p, []byte("not a program"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runWith(t, empty, []string{"CLOUDLOCAL_AWS=" + p}, "", "x")
		if r.code != 126 || !strings.Contains(r.stderr, "cannot run") {
			t.Errorf("exit %d, stderr %q; want 126", r.code, r.stderr)
		}
	})
}

func TestOverride(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	// A PATH whose aws would fail: the override must win.
	bad := fakeDir(t, "#!/bin/sh\nexit 99\n")
	r := runWith(t, bad, []string{"CLOUDLOCAL_AWS=" + filepath.Join(dir, "aws")}, "", "x")
	if r.code != 0 || !slices.Contains(r.args, "x") {
		t.Errorf("exit %d, args %q; want the override's run", r.code, r.args)
	}
}

func TestBadConfig(t *testing.T) {
	dir := fakeDir(t, fakeAWS)
	for _, tc := range []struct{ env, names string }{
		{"EMULATOR_PORT=abc", "EMULATOR_PORT"},
		{"EMULATOR_PORT=0", "EMULATOR_PORT"},
		{"EMULATOR_ENDPOINT=localhost:4566", "EMULATOR_ENDPOINT"},
		{"EMULATOR_DEFAULT_REGION=Mars", "EMULATOR_DEFAULT_REGION"},
	} {
		t.Run("env="+tc.env, func(t *testing.T) {
			r := runWith(t, dir, []string{tc.env}, "", "x")
			if r.code != 2 || !strings.Contains(r.stderr, tc.names) || r.stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 naming %s and no CLI run", r.code, r.stdout, r.stderr, tc.names)
			}
		})
	}
}

// TestSIGTERMReachesCLI runs cloudlocal as a process, as a container stop
// would signal it, and checks the CLI gets the signal and its exit code
// comes back.
func TestSIGTERMReachesCLI(t *testing.T) {
	dir := fakeDir(t, "#!/bin/sh\ntrap 'exit 42' TERM\ntouch \"$READY\"\nwhile :; do sleep 0.05; done\n")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ready := filepath.Join(t.TempDir(), "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, "backup", "list-backup-vaults")
	cmd.Env = append(os.Environ(), "CLOUDLOCAL_TEST_MAIN=1", "READY="+ready, "CLOUDLOCAL_AWS="+filepath.Join(dir, "aws"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(ready); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the fake CLI never started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if got := cmd.ProcessState.ExitCode(); got != 42 {
		t.Errorf("exit %d, want the CLI's 42", got)
	}
}

// awsCLIv2 finds the AWS CLI v2: Debian's /usr/bin/aws, else the first aws
// on PATH that is version 2 (pyenv's shims, for one, may be version 1).
func awsCLIv2() string {
	cands := []string{"/usr/bin/aws"}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		cands = append(cands, filepath.Join(dir, "aws"))
	}
	for _, c := range cands {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		out, err := exec.CommandContext(ctx, c, "--version").CombinedOutput()
		cancel()
		if err == nil && strings.HasPrefix(string(out), "aws-cli/2.") {
			return c
		}
	}
	return ""
}

// TestRealCLI drives the real AWS CLI v2 through cloudlocal against an
// emulator on loopback.
func TestRealCLI(t *testing.T) {
	cli := awsCLIv2()
	if cli == "" {
		servertest.MissingTool(t, "the AWS CLI v2 (apt-get install awscli)")
	}
	srv := servertest.Start(t)
	home := t.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home, // no user config or credentials files
		"CLOUDLOCAL_AWS=" + cli,
		"EMULATOR_ENDPOINT=" + srv.URL,
		"EMULATOR_DEFAULT_REGION=eu-central-1",
		"AWS_PAGER=",
	}
	call := func(args ...string) (int, string, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(args, env, strings.NewReader(""), &out, &errb)
		return code, out.String(), errb.String()
	}

	code, out, errs := call("backup", "create-backup-vault", "--backup-vault-name", "cloudlocal-e2e", "--output", "json")
	if code != 0 {
		t.Fatalf("create-backup-vault: exit %d, stderr %s", code, errs)
	}
	var created struct{ BackupVaultName, BackupVaultArn string }
	if err := json.Unmarshal([]byte(out), &created); err != nil {
		t.Fatalf("create-backup-vault output %q: %v", out, err)
	}
	// The region comes from EMULATOR_DEFAULT_REGION through cloudlocal.
	if created.BackupVaultName != "cloudlocal-e2e" || !strings.Contains(created.BackupVaultArn, ":eu-central-1:") {
		t.Errorf("created %+v, want cloudlocal-e2e in eu-central-1", created)
	}

	code, out, errs = call("backup", "describe-backup-vault", "--backup-vault-name", "cloudlocal-e2e", "--output", "json")
	if code != 0 || !strings.Contains(out, `"cloudlocal-e2e"`) {
		t.Errorf("describe-backup-vault: exit %d, stdout %s, stderr %s", code, out, errs)
	}

	// A service error keeps the CLI's exit code (254) and message.
	code, _, errs = call("backup", "describe-backup-vault", "--backup-vault-name", "missing")
	if code != 254 || !strings.Contains(errs, "ResourceNotFoundException") {
		t.Errorf("describe of a missing vault: exit %d, stderr %s; want 254 and ResourceNotFoundException", code, errs)
	}
}
