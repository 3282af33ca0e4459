package main

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runSelf runs the emulator's main with args and env, bounded in time, and
// returns its exit status, stdout and stderr.
func runSelf(t *testing.T, args []string, env ...string) (int, string, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self, args...)
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", "GORACE=atexit_sleep_ms=0"}, env...)...)
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("emulator %q did not exit within 10s:\n%s", args, stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, stdout.String(), stderr.String()
}

// TestCommandLine: help exits 0 on stdout and lists the commands and the
// environment with defaults; a wrong command line exits 2 with the reason
// and the usage on stderr, and never starts the server.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		name      string
		args      []string
		code      int
		out, errs []string // what stdout and stderr contain
	}{
		{"help", []string{"help"}, 0, []string{"emulator [serve] [flags]", "emulator template render", "emulator version", "EMULATOR_PORT", "[4566]", "-addr"}, nil},
		{"-h", []string{"-h"}, 0, []string{"emulator template render", "EMULATOR_LOG_LEVEL", "[info]"}, nil},
		{"--help", []string{"--help"}, 0, []string{"emulator version"}, nil},
		{"help serve", []string{"help", "serve"}, 0, []string{"Usage: emulator [serve]", "-addr", "EMULATOR_STATE"}, nil},
		{"serve -h", []string{"serve", "-h"}, 0, []string{"Usage: emulator [serve]", "EMULATOR_DATA_DIR"}, nil},
		{"help template", []string{"help", "template"}, 0, []string{"emulator template render", "-template"}, nil},
		{"version", []string{"version"}, 0, []string{"0."}, nil},
		{"-version", []string{"-version"}, 0, []string{"0."}, nil},
		{"unknown command", []string{"foo", "bar"}, 2, nil, []string{`unknown command "foo"`, "Usage:"}},
		{"help of nothing", []string{"help", "foo"}, 2, nil, []string{`no command "foo"`, "Usage:"}},
		{"extra argument", []string{"serve", "bar"}, 2, nil, []string{`unexpected argument "bar"`}},
		{"argument after a flag", []string{"-addr", "127.0.0.1:0", "bar"}, 2, nil, []string{`unexpected argument "bar"`}},
		{"unknown flag", []string{"-nope"}, 2, nil, []string{"-nope", "Usage: emulator [serve]"}},
		{"version with argument", []string{"version", "x"}, 2, nil, []string{`unexpected argument "x"`}},
		{"template alone", []string{"template"}, 2, nil, []string{"missing command", "usage: emulator template render"}},
		{"bad -addr", []string{"-addr", "nowhere"}, 2, nil, []string{`-addr="nowhere"`}},
		{"bad -time", []string{"-time", "yesterday"}, 2, nil, []string{`-time="yesterday"`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errs := runSelf(t, tc.args, "EMULATOR_PORT=0")
			if code != tc.code {
				t.Errorf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", code, tc.code, out, errs)
			}
			for _, w := range tc.out {
				if !strings.Contains(out, w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.errs {
				if !strings.Contains(errs, w) {
					t.Errorf("stderr lacks %q:\n%s", w, errs)
				}
			}
			if strings.Contains(errs, "msg=listening") {
				t.Errorf("the server started:\n%s", errs)
			}
		})
	}
}

// TestConfigBlame: a failure names what was set wrong.
func TestConfigBlame(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	port := busy.Addr().(*net.TCPAddr).Port
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		want string
	}{
		{"impossible address", nil, []string{"EMULATOR_HOST=999.1.1.1", "EMULATOR_PORT=0"}, `EMULATOR_HOST="999.1.1.1"`},
		{"address not on this machine", nil, []string{"EMULATOR_HOST=192.0.2.1", "EMULATOR_PORT=0"}, `EMULATOR_HOST="192.0.2.1"`},
		{"port in use", nil, []string{"EMULATOR_PORT=" + itoa(port)}, `EMULATOR_PORT="` + itoa(port) + `": listen tcp`},
		{"-addr in use", []string{"-addr", "127.0.0.1:" + itoa(port)}, nil, `-addr="127.0.0.1:` + itoa(port) + `"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errs := runSelf(t, tc.args, tc.env...)
			last := strings.TrimSpace(errs)
			last = last[strings.LastIndexByte(last, '\n')+1:]
			if code != 2 || !strings.HasPrefix(last, "emulator: "+tc.want) {
				t.Errorf("exit %d, last line %q; want exit 2 and %q", code, last, tc.want)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestStartLine: one readable line at start (version, address, state,
// data directory, services), no internal noise, and a warning naming the
// closest variable for a misspelt one.
func TestStartLine(t *testing.T) {
	dir := t.TempDir()
	c := startChild(t, "EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR="+dir, "EMULATOR_POTR=4566", "EMULATOR_INIT_DIRS="+dir)
	log := c.log()
	if !strings.Contains(log, "level=WARN msg=\"EMULATOR_POTR is not a variable the emulator reads; it is ignored (did you mean EMULATOR_PORT?)\"") {
		t.Errorf("no warning for EMULATOR_POTR:\n%s", log)
	}
	lines := strings.Split(strings.TrimSpace(log), "\n")
	if len(lines) != 2 {
		t.Errorf("want the warning and one start line, got:\n%s", log)
	}
	start := lines[len(lines)-1]
	for _, w := range []string{"msg=listening addr=127.0.0.1:", "version=", "state=persistent", "data_dir=" + dir, "services=backup,apigateway,apigatewayv2"} {
		if !strings.Contains(start, w) {
			t.Errorf("start line lacks %q: %s", w, start)
		}
	}
}
