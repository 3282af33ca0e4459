package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary run the emulator's main instead of the
// tests, so that tests can start, kill and restart real emulator processes.
const childEnv = "CLOUDEMU_TEST_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) == "1" {
		main()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// child is an emulator process.
type child struct {
	cmd    *exec.Cmd
	addr   string
	mu     sync.Mutex
	stderr strings.Builder
	done   chan struct{}
}

var listening = regexp.MustCompile(`msg=listening addr=(\S+)`)

// startChild starts the emulator with env and waits until it listens.
func startChild(t *testing.T, env ...string) *child {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", "EMULATOR_HOST=127.0.0.1", "EMULATOR_PORT=0",
		"GORACE=atexit_sleep_ms=0"}, env...)...)
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	c := &child{cmd: cmd, done: make(chan struct{})}
	addrCh := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		for sc.Scan() {
			line := sc.Text()
			c.mu.Lock()
			c.stderr.WriteString(line + "\n")
			c.mu.Unlock()
			if m := listening.FindStringSubmatch(line); m != nil {
				select {
				case addrCh <- m[1]:
				default:
				}
			}
		}
		_ = cmd.Wait()
		close(c.done)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-c.done
	})
	select {
	case c.addr = <-addrCh:
		return c
	case <-c.done:
		t.Fatalf("emulator exited before listening:\n%s", c.log())
	case <-time.After(10 * time.Second):
		t.Fatalf("emulator did not listen within 10s:\n%s", c.log())
	}
	return nil
}

func (c *child) log() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stderr.String()
}

func (c *child) wait(t *testing.T, limit time.Duration) int {
	t.Helper()
	select {
	case <-c.done:
		return c.cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("emulator did not exit within %s:\n%s", limit, c.log())
	}
	return -1
}

var client = &http.Client{Timeout: 10 * time.Second}

func call(method, url, body string) (int, []byte, error) {
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

// TestCrashKeepsAcknowledgedWrites kills a persistent emulator with SIGKILL
// under 32 concurrent writers and checks, after a restart on the same data
// dir, that every write it acknowledged is there.
func TestCrashKeepsAcknowledgedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts emulator processes")
	}
	dir := t.TempDir()
	env := []string{"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=" + dir}
	c := startChild(t, env...)
	base := "http://" + c.addr

	var (
		mu    sync.Mutex
		acked []string
		tags  = map[string]bool{} // vaults whose TagResource was acknowledged
		stop  atomic.Bool
		wg    sync.WaitGroup
		total atomic.Int64
	)
	for w := range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; !stop.Load() && i < 100000; i++ {
				name := fmt.Sprintf("w%02d-%d", w, i)
				code, _, err := call("PUT", base+"/backup-vaults/"+name, `{"BackupVaultTags":{"writer":"x"}}`)
				if err != nil || code != 200 {
					return // the process is gone
				}
				mu.Lock()
				acked = append(acked, name)
				mu.Unlock()
				total.Add(1)
				if i%4 == 0 {
					arn := "arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Abackup-vault%3A" + name
					code, _, err := call("POST", base+"/tags/"+arn, `{"Tags":{"second":"write"}}`)
					if err != nil || code != 200 {
						return
					}
					mu.Lock()
					tags[name] = true
					mu.Unlock()
				}
			}
		}()
	}
	// Kill while the writers are in full flight.
	deadline := time.Now().Add(10 * time.Second)
	for total.Load() < 1500 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c.wait(t, 10*time.Second)
	stop.Store(true)
	wg.Wait()
	if len(acked) < 100 {
		t.Fatalf("only %d writes acknowledged before the kill:\n%s", len(acked), c.log())
	}

	c2 := startChild(t, env...)
	have := map[string]map[string]string{}
	next := ""
	for {
		url := "http://" + c2.addr + "/backup-vaults?maxResults=1000"
		if next != "" {
			url += "&nextToken=" + next
		}
		code, body, err := call("GET", url, "")
		if err != nil || code != 200 {
			t.Fatalf("list after restart: %d %v %s", code, err, body)
		}
		var out struct {
			BackupVaultList []struct{ BackupVaultName string }
			NextToken       string
		}
		if err := json.Unmarshal(body, &out); err != nil {
			t.Fatal(err)
		}
		for _, v := range out.BackupVaultList {
			have[v.BackupVaultName] = nil
		}
		if out.NextToken == "" {
			break
		}
		next = out.NextToken
	}
	missing := 0
	for _, name := range acked {
		if _, ok := have[name]; !ok {
			missing++
			if missing < 10 {
				t.Errorf("acknowledged vault %s lost", name)
			}
		}
	}
	lostTags := 0
	for name := range tags {
		arn := "arn%3Aaws%3Abackup%3Aus-east-1%3A000000000000%3Abackup-vault%3A" + name
		code, body, err := call("GET", "http://"+c2.addr+"/tags/"+arn, "")
		if err != nil || code != 200 || !strings.Contains(string(body), `"second":"write"`) {
			lostTags++
		}
	}
	if missing > 0 || lostTags > 0 {
		t.Fatalf("%d of %d acknowledged vaults and %d of %d acknowledged tag writes lost", missing, len(acked), lostTags, len(tags))
	}
	t.Logf("%d vaults and %d tag writes acknowledged before SIGKILL, all present after restart (%d vaults stored)",
		len(acked), len(tags), len(have))
}

// TestBadConfigExits checks that a wrong variable stops the emulator with a
// non-zero status and one line naming the variable.
func TestBadConfigExits(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, value string }{
		{"EMULATOR_PORT", "70000"},
		{"EMULATOR_STATE", "disk"},
		{"EMULATOR_LOG_LEVEL", "loud"},
		{"EMULATOR_DEBUG", "perhaps"},
		{"EMULATOR_DEFAULT_REGION", "mars"},
		{"EMULATOR_HOST", "a b"},
		{"EMULATOR_DATA_DIR", ""},
		{"EMULATOR_INIT_ENABLED", "maybe"},
		{"EMULATOR_INIT_DIRS", ","},
		{"EMULATOR_INIT_TIMEOUT", "0"},
	} {
		t.Run("var="+tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, self)
			cmd.Env = append(os.Environ(), childEnv+"=1", "EMULATOR_PORT=0", "GORACE=atexit_sleep_ms=0", tc.name+"="+tc.value)
			out, err := cmd.CombinedOutput()
			if err == nil || cmd.ProcessState.ExitCode() == 0 {
				t.Fatalf("exit 0 with %s=%q:\n%s", tc.name, tc.value, out)
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if len(lines) != 1 || !strings.Contains(lines[0], tc.name) {
				t.Fatalf("want one line naming %s, got:\n%s", tc.name, out)
			}
		})
	}
	t.Run("data-dir=unwritable", func(t *testing.T) {
		cmd := exec.Command(self)
		cmd.Env = append(os.Environ(), childEnv+"=1", "EMULATOR_PORT=0", "GORACE=atexit_sleep_ms=0",
			"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=/proc/self/nope")
		out, err := cmd.CombinedOutput()
		if err == nil || !strings.Contains(string(out), "EMULATOR_DATA_DIR") {
			t.Fatalf("want a failure naming EMULATOR_DATA_DIR, got %v:\n%s", err, out)
		}
	})
}

// TestSIGTERMDrains checks that SIGTERM finishes in-flight work, flushes the
// store and exits 0, and that the state is there after a restart.
func TestSIGTERMDrains(t *testing.T) {
	dir := t.TempDir()
	env := []string{"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=" + dir}
	c := startChild(t, env...)
	if code, body, err := call("PUT", "http://"+c.addr+"/backup-vaults/before-term", ""); err != nil || code != 200 {
		t.Fatalf("create: %d %v %s", code, err, body)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, c.log())
	}
	if !strings.Contains(c.log(), "msg=stopped") {
		t.Fatalf("no clean stop logged:\n%s", c.log())
	}
	c2 := startChild(t, env...)
	if code, body, err := call("GET", "http://"+c2.addr+"/backup-vaults/before-term", ""); err != nil || code != 200 {
		t.Fatalf("after restart: %d %v %s", code, err, body)
	}
	// A second emulator on the same data dir fails fast instead of sharing it.
	self, _ := os.Executable()
	cmd := exec.Command(self)
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", "EMULATOR_PORT=0", "GORACE=atexit_sleep_ms=0"}, env...)...)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "in use") {
		t.Fatalf("second emulator on one data dir: %v\n%s", err, out)
	}
}
