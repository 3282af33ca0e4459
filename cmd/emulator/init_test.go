package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestInitStagesThroughBinary runs an emulator process with hooks in all
// four stages across both init trees, reads the READY status while a ready
// hook runs and after, then sends SIGTERM: the SHUTDOWN hook runs and the
// process exits 0.
func TestInitStagesThroughBinary(t *testing.T) {
	root := t.TempDir()
	compatTree, ownTree := filepath.Join(root, "compat"), filepath.Join(root, "own")
	data, order, release := filepath.Join(root, "data"), filepath.Join(root, "order"), filepath.Join(root, "release")
	hook := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// BOOT runs before the store exists, START after it is opened.
	hook(filepath.Join(compatTree, "boot.d", "boot.sh"),
		`if [ -e "`+data+`/emulator.db" ]; then echo boot-after-open; else echo boot; fi >> `+order)
	hook(filepath.Join(ownTree, "start.d", "start.sh"),
		`if [ -e "`+data+`/emulator.db" ]; then echo start; else echo start-before-open; fi >> `+order)
	hook(filepath.Join(compatTree, "ready.d", "1-ready.sh"),
		`echo "ready $AWS_ENDPOINT_URL $EMULATOR_ENDPOINT $AWS_DEFAULT_REGION" >> `+order+`
i=0; while [ ! -e `+release+` ] && [ $i -lt 500 ]; do sleep 0.01; i=$((i+1)); done`)
	hook(filepath.Join(ownTree, "ready.d", "2-fail.sh"), "echo failing on purpose; exit 1")
	// SHUTDOWN runs while the server still answers.
	hook(filepath.Join(ownTree, "shutdown.d", "bye.sh"), `echo bye from shutdown
if command -v curl >/dev/null; then
	curl -sf "$AWS_ENDPOINT_URL/_localstack/init/shutdown" >/dev/null && echo shutdown-served >> `+order+`
else
	echo shutdown >> `+order+`
fi`)

	c := startChild(t, "EMULATOR_INIT_DIRS="+compatTree+","+ownTree, "EMULATOR_INIT_TIMEOUT=10s",
		"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR="+data, "EMULATOR_DEFAULT_REGION=eu-central-1")
	base := "http://" + c.addr

	// READY runs in the background: its status is served meanwhile.
	waitBody(t, base+"/_localstack/init/ready", `"state": "RUNNING"`)
	if _, body, _ := call("GET", base+"/_localstack/init/ready", ""); !strings.HasPrefix(string(body), `{"completed": false,`) {
		t.Errorf("READY completed while a ready hook runs: %s", body)
	}
	if err := os.WriteFile(release, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	body := waitBody(t, base+"/_localstack/init/ready", `"completed": true,`)
	want := `{"completed": true, "scripts": [{"stage": "READY", "name": "1-ready.sh", "state": "SUCCESSFUL"}, ` +
		`{"stage": "READY", "name": "2-fail.sh", "state": "ERROR"}]}`
	if body != want {
		t.Errorf("ready status:\n%s\nwant\n%s", body, want)
	}
	if _, all, _ := call("GET", base+"/_emulator/init", ""); !strings.HasPrefix(string(all),
		`{"completed": {"BOOT": true, "START": true, "READY": true, "SHUTDOWN": false}, "enabled": true, `) {
		t.Errorf("all stages: %s", all)
	}

	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, c.log())
	}
	b, err := os.ReadFile(order)
	if err != nil {
		t.Fatal(err)
	}
	endpoint := "http://" + c.addr
	wantOrder := []string{"boot", "start", "ready " + endpoint + " " + endpoint + " eu-central-1", "shutdown"}
	if _, err := exec.LookPath("curl"); err == nil {
		wantOrder[3] = "shutdown-served"
	}
	if got := strings.Split(strings.TrimSpace(string(b)), "\n"); !slices.Equal(got, wantOrder) {
		t.Errorf("hooks ran as %q, want %q", got, wantOrder)
	}
	log := c.log()
	for _, want := range []string{
		`stream=stdout line="failing on purpose"`,
		`msg="init script failed" component=inithook stage=READY script=` + filepath.Join(ownTree, "ready.d", "2-fail.sh"),
		`stage=SHUTDOWN script=` + filepath.Join(ownTree, "shutdown.d", "bye.sh") + ` stream=stdout line="bye from shutdown"`,
	} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %s:\n%s", want, log)
		}
	}
	// BOOT and START run before the port is open; SHUTDOWN before the
	// server stops.
	at := func(s string) int {
		i := strings.Index(log, s)
		if i < 0 {
			t.Fatalf("log lacks %s:\n%s", s, log)
		}
		return i
	}
	if !(at("stage=BOOT") < at("msg=listening") && at("stage=START") < at("msg=listening") &&
		at("msg=listening") < at("stage=READY") && at("stage=SHUTDOWN") < at(`msg="shutting down"`)) {
		t.Errorf("stages out of order in the log:\n%s", log)
	}
}

// waitBody polls url until its body contains want, and returns the body.
func waitBody(t *testing.T, url, want string) string {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, body, err := call("GET", url, "")
		if err == nil && code == 200 && strings.Contains(string(body), want) {
			return string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s never answered %s: %d %v %s", url, want, code, err, body)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
