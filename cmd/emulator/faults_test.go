package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// runToExit runs the emulator with env until it exits (at most 20s) and
// returns its exit status and output.
func runToExit(t *testing.T, env ...string) (int, string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, self)
	cmd.Env = append(os.Environ(), append([]string{childEnv + "=1", "EMULATOR_HOST=127.0.0.1", "EMULATOR_PORT=0",
		"GORACE=atexit_sleep_ms=0"}, env...)...)
	out, _ := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("emulator still running after 20s:\n%s", out)
	}
	return cmd.ProcessState.ExitCode(), string(out)
}

// fillDataDir runs a persistent emulator on dir, creates n vaults and stops
// it with SIGTERM.
func fillDataDir(t *testing.T, dir string, n int) {
	t.Helper()
	c := startChild(t, "EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR="+dir)
	var wg sync.WaitGroup
	var failed atomic.Int64
	for w := range 8 {
		wg.Go(func() {
			for i := w; i < n; i += 8 {
				if code, _, err := call("PUT", fmt.Sprintf("http://%s/backup-vaults/v%04d", c.addr, i), ""); err != nil || code != 200 {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	if failed.Load() > 0 {
		t.Fatalf("%d creates failed", failed.Load())
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, c.log())
	}
}

// TestCorruptStoreFileStops checks that a truncated or garbage store file
// stops the emulator at start with a non-zero status and a message naming
// the file and what is wrong with it, never an empty start.
func TestCorruptStoreFileStops(t *testing.T) {
	if testing.Short() {
		t.Skip("starts emulator processes")
	}
	for _, tc := range []struct {
		name   string
		damage func(path string) error
		want   string
	}{
		{"truncated", func(path string) error {
			fi, err := os.Stat(path)
			if err != nil {
				return err
			}
			return os.Truncate(path, fi.Size()/2)
		}, "is truncated"},
		{"garbage", func(path string) error {
			return os.WriteFile(path, []byte(strings.Repeat("not a bolt file\n", 4096)), 0o600)
		}, "is not a valid store file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			fillDataDir(t, dir, 800)
			path := filepath.Join(dir, "emulator.db")
			if err := tc.damage(path); err != nil {
				t.Fatal(err)
			}
			code, out := runToExit(t, "EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR="+dir)
			if code == 0 || strings.Contains(out, "msg=listening") {
				t.Fatalf("exit %d with a %s store file:\n%s", code, tc.name, out)
			}
			if !strings.Contains(out, path) || !strings.Contains(out, tc.want) {
				t.Fatalf("want a message naming %s and saying %q, got:\n%s", path, tc.want, out)
			}
			t.Logf("exit %d: %s", code, strings.TrimSpace(out))
		})
	}
}

// TestSIGTERMDuringWriteBurst sends SIGTERM while 32 writers create vaults
// and checks that every write acknowledged is on disk after a restart and
// that every request was answered or refused cleanly (connection refused
// or reset before the emulator accepted it, once the listener is closed):
// none that the emulator had accepted was cut off without a response, none
// hung.
func TestSIGTERMDuringWriteBurst(t *testing.T) {
	if testing.Short() {
		t.Skip("starts emulator processes")
	}
	dir := t.TempDir()
	env := []string{"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=" + dir}
	c := startChild(t, env...)
	// The Idempotency-Key header lets the transport resend a request it
	// wrote on a keep-alive connection the server had just closed as idle,
	// as the SDKs' retries do: that race is HTTP/1.1's, not a lost answer.
	cl := &http.Client{Timeout: 15 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 32}}
	var (
		mu      sync.Mutex
		acked   []string
		refused atomic.Int64
		queued  atomic.Int64
		refusal = map[int]int{} // status of a refused request -> count
		cut     []string        // requests that got no response
		total   atomic.Int64
		wg      sync.WaitGroup
	)
	for w := range 32 {
		wg.Go(func() {
			for i := range 100000 {
				name := fmt.Sprintf("w%02d-%d", w, i)
				var reused bool
				trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
				req, _ := http.NewRequestWithContext(httptrace.WithClientTrace(context.Background(), trace),
					"PUT", "http://"+c.addr+"/backup-vaults/"+name, strings.NewReader(`{}`))
				req.Header.Set("Idempotency-Key", name)
				resp, err := cl.Do(req)
				if errors.Is(err, syscall.ECONNREFUSED) {
					refused.Add(1)
					return // the listener is closed: a clean refusal
				}
				if err != nil && !reused && errors.Is(err, syscall.ECONNRESET) {
					// A new connection still in the kernel's accept
					// queue when the listener closed: the kernel resets
					// it, the emulator never had it.
					queued.Add(1)
					return
				}
				if err != nil {
					mu.Lock()
					cut = append(cut, name+": "+err.Error())
					mu.Unlock()
					return
				}
				resp.Body.Close()
				mu.Lock()
				if resp.StatusCode == 200 {
					acked = append(acked, name)
				} else {
					refusal[resp.StatusCode]++
				}
				mu.Unlock()
				total.Add(1)
			}
		})
	}
	deadline := time.Now().Add(20 * time.Second)
	for total.Load() < 500 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 20*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, c.log())
	}
	wg.Wait()
	if len(cut) > 0 {
		t.Errorf("%d requests cut off without a response: %s", len(cut), strings.Join(cut, "\n"))
	}
	if len(acked) < 100 {
		t.Fatalf("only %d writes acknowledged before SIGTERM:\n%s", len(acked), c.log())
	}

	c2 := startChild(t, env...)
	lost := 0
	for _, name := range acked {
		code, body, err := call("GET", "http://"+c2.addr+"/backup-vaults/"+name, "")
		if err != nil {
			t.Fatal(err)
		}
		if code != 200 {
			lost++
			if lost < 5 {
				t.Errorf("acknowledged vault %s: %d %s", name, code, body)
			}
		}
	}
	if lost > 0 {
		t.Fatalf("%d of %d acknowledged writes lost over SIGTERM", lost, len(acked))
	}
	t.Logf("%d writes acknowledged, all on disk after restart; refused with a status: %v; writers refused a connection: %d, reset in the accept queue: %d",
		len(acked), refusal, refused.Load(), queued.Load())
}
