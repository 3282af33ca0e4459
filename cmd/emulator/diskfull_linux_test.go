package main

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// setFileSizeLimit sets pid's RLIMIT_FSIZE soft limit (prlimit(2)): writes
// that would grow a file beyond it fail with EFBIG, as on a full disk. It
// binds root too, which a read-only mode or directory does not.
func setFileSizeLimit(t *testing.T, pid int, limit uint64) {
	t.Helper()
	var old syscall.Rlimit
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, 0,
		uintptr(unsafe.Pointer(&old)), 0, 0); e != 0 {
		t.Fatalf("prlimit get: %v", e)
	}
	lim := syscall.Rlimit{Cur: limit, Max: old.Max}
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE,
		uintptr(unsafe.Pointer(&lim)), 0, 0, 0); e != 0 {
		t.Fatalf("prlimit set: %v", e)
	}
}

// wireCall is one request as a service's SDK sends it.
type wireCall struct {
	method, path, body string
	header             map[string]string
}

func (w wireCall) do(t *testing.T, addr string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(w.method, "http://"+addr+w.path, strings.NewReader(w.body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range w.header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", w.method, w.path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

var (
	sqsJSON = map[string]string{"Content-Type": "application/x-amz-json-1.0", "X-Amzn-Query-Mode": "true"}
	form    = map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
)

func sqsCall(op, body string) wireCall {
	h := map[string]string{"X-Amz-Target": "AmazonSQS." + op}
	for k, v := range sqsJSON {
		h[k] = v
	}
	return wireCall{"POST", "/", body, h}
}

func snsCall(v url.Values) wireCall {
	v.Set("Version", "2010-03-31")
	return wireCall{"POST", "/", v.Encode(), form}
}

// TestDiskFullRefusesWritesAndRecovers fills the data directory under a
// running emulator (its file-size limit lowered to the store file's size)
// and checks, for each protocol, that a write that cannot be saved is
// answered with the service's ServiceUnavailable-style 5xx and leaves no
// trace, that reads keep working, and that once space returns the same
// writes succeed and survive a restart.
func TestDiskFullRefusesWritesAndRecovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts emulator processes")
	}
	dir := t.TempDir()
	env := []string{"EMULATOR_STATE=persistent", "EMULATOR_DATA_DIR=" + dir}
	c := startChild(t, env...)
	addr := c.addr
	queueURL := "http://" + addr + "/000000000000/full-q"
	for _, w := range []wireCall{
		{"PUT", "/backup-vaults/before", "", nil},
		sqsCall("CreateQueue", `{"QueueName":"full-q"}`),
		sqsCall("SendMessage", `{"QueueUrl":"`+queueURL+`","MessageBody":"before"}`),
	} {
		if resp, body := w.do(t, addr); resp.StatusCode != 200 {
			t.Fatalf("%s %s before the disk filled: %d %s", w.method, w.path, resp.StatusCode, body)
		}
	}
	fi, err := os.Stat(filepath.Join(dir, "emulator.db"))
	if err != nil {
		t.Fatal(err)
	}
	setFileSizeLimit(t, c.cmd.Process.Pid, uint64(fi.Size()))

	pad := strings.Repeat("x", 200)
	kinds := []struct {
		name     string
		write    func(i int) wireCall
		status   int
		code     string // in x-amzn-ErrorType, x-amzn-query-error or the XML body
		readBack func(i int) wireCall
		missing  int // readBack's status when the write is not there
	}{
		{"backup", func(i int) wireCall {
			return wireCall{"PUT", fmt.Sprintf("/backup-vaults/full-%d", i), `{"BackupVaultTags":{"pad":"` + pad + `"}}`, nil}
		}, 500, "ServiceUnavailableException", func(i int) wireCall {
			return wireCall{"GET", fmt.Sprintf("/backup-vaults/full-%d", i), "", nil}
		}, 400},
		{"apigateway", func(i int) wireCall {
			return wireCall{"POST", "/apikeys", fmt.Sprintf(`{"name":"full-%d","description":"%s"}`, i, pad), nil}
		}, 503, "ServiceUnavailableException", nil, 0},
		{"sqs", func(i int) wireCall {
			return sqsCall("CreateQueue", fmt.Sprintf(`{"QueueName":"full-%d"}`, i))
		}, 503, "ServiceUnavailable", func(i int) wireCall {
			return sqsCall("GetQueueUrl", fmt.Sprintf(`{"QueueName":"full-%d"}`, i))
		}, 400},
		{"sqs-send", func(i int) wireCall {
			return sqsCall("SendMessage", fmt.Sprintf(`{"QueueUrl":"%s","MessageBody":"full-%d-%s"}`, queueURL, i, pad))
		}, 503, "ServiceUnavailable", nil, 0},
		{"sns", func(i int) wireCall {
			return snsCall(url.Values{"Action": {"CreateTopic"}, "Name": {fmt.Sprintf("full-%d", i)}})
		}, 503, "ServiceUnavailable", func(i int) wireCall {
			return snsCall(url.Values{"Action": {"GetTopicAttributes"}, "TopicArn": {fmt.Sprintf("arn:aws:sns:us-east-1:000000000000:full-%d", i)}})
		}, 404},
	}
	failedAt := map[string]int{}
	sent := 0 // messages acknowledged while the disk was full
	for _, k := range kinds {
		for i := range 3000 {
			resp, body := k.write(i).do(t, addr)
			if resp.StatusCode/100 == 2 {
				if k.name == "sqs-send" {
					sent++
				}
				continue // it fitted in pages bbolt had freed
			}
			code := resp.Header.Get("X-Amzn-Errortype") + resp.Header.Get("X-Amzn-Query-Error") + body
			if resp.StatusCode != k.status || !strings.Contains(code, k.code) || !strings.Contains(body, "data directory") {
				t.Fatalf("%s on a full disk: %d %v %s, want %d %s", k.name, resp.StatusCode, resp.Header, body, k.status, k.code)
			}
			failedAt[k.name] = i
			t.Logf("%s: write %d refused: %d %s", k.name, i, resp.StatusCode, body)
			break
		}
		if _, ok := failedAt[k.name]; !ok {
			t.Fatalf("%s: 3000 writes fitted a store file that may not grow", k.name)
		}
		// The refused write left no trace.
		if k.readBack != nil {
			if resp, body := k.readBack(failedAt[k.name]).do(t, addr); resp.StatusCode != k.missing {
				t.Errorf("%s: refused write is visible: %d %s", k.name, resp.StatusCode, body)
			}
		}
	}
	// Reads keep working.
	if resp, body := (wireCall{"GET", "/backup-vaults/before", "", nil}).do(t, addr); resp.StatusCode != 200 {
		t.Errorf("read on a full disk: %d %s", resp.StatusCode, body)
	}
	if resp, body := (wireCall{"GET", "/restapis", "", nil}).do(t, addr); resp.StatusCode != 200 {
		t.Errorf("list on a full disk: %d %s", resp.StatusCode, body)
	}

	// The queue's owner counts only what it saved (a receive is a write in
	// SQS, refused too; the attribute read is not).
	resp, body := sqsCall("GetQueueAttributes", `{"QueueUrl":"`+queueURL+`","AttributeNames":["ApproximateNumberOfMessages"]}`).do(t, addr)
	if want := fmt.Sprintf(`"ApproximateNumberOfMessages":"%d"`, 1+sent); resp.StatusCode != 200 || !strings.Contains(body, want) {
		t.Errorf("queue on a full disk: %d %s, want %s", resp.StatusCode, body, want)
	}

	// Space returns: the refused writes succeed now.
	setFileSizeLimit(t, c.cmd.Process.Pid, ^uint64(0))
	for _, k := range kinds {
		if resp, body := k.write(failedAt[k.name]).do(t, addr); resp.StatusCode/100 != 2 {
			t.Fatalf("%s after space returned: %d %s", k.name, resp.StatusCode, body)
		}
		if k.name == "sqs-send" {
			sent++
		}
	}
	if err := c.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if code := c.wait(t, 10*time.Second); code != 0 {
		t.Fatalf("exit %d after SIGTERM:\n%s", code, c.log())
	}

	// After a restart: what was acknowledged is there, and the queue holds
	// exactly the acknowledged messages (none the full disk refused).
	c2 := startChild(t, env...)
	for _, k := range kinds {
		if k.readBack == nil {
			continue
		}
		if resp, body := k.readBack(failedAt[k.name]).do(t, c2.addr); resp.StatusCode != 200 {
			t.Errorf("%s: write made after space returned lost: %d %s", k.name, resp.StatusCode, body)
		}
	}
	got := 0
	for range 100 {
		resp, body := sqsCall("ReceiveMessage", `{"QueueUrl":"http://`+c2.addr+`/000000000000/full-q","MaxNumberOfMessages":10,"VisibilityTimeout":600}`).do(t, c2.addr)
		if resp.StatusCode != 200 {
			t.Fatalf("receive: %d %s", resp.StatusCode, body)
		}
		n := strings.Count(body, `"MessageId"`)
		if n == 0 {
			break
		}
		got += n
	}
	if want := 1 + sent; got != want {
		t.Errorf("queue holds %d messages after restart, want the %d acknowledged", got, want)
	}
}
