package server_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/server/servertest"
)

// resetResource is one creation request as an SDK sends it (the emulator
// does not check signatures).
type resetResource struct {
	name, method string
	path         func(i int) string
	body         func(i int) string
	header       map[string]string
	account      bool // in an account of its own (access key i as 12 digits)
	want         int
}

var resetResources = []resetResource{
	{name: "restapi", method: "POST", path: fixed("/restapis"), body: named(`{"name":"r%d"}`), want: 201},
	{name: "httpapi", method: "POST", path: fixed("/v2/apis"), body: named(`{"name":"h%d","protocolType":"HTTP"}`), want: 201},
	{name: "apikey", method: "POST", path: fixed("/apikeys"), body: named(`{"name":"k%d","enabled":true}`), want: 201},
	{name: "usageplan", method: "POST", path: fixed("/usageplans"), body: named(`{"name":"p%d"}`), want: 201},
	{name: "vault", method: "PUT", path: func(i int) string { return "/backup-vaults/v" + strconv.Itoa(i) }, body: fixed(`{}`), want: 200},
	{name: "queue", method: "POST", path: fixed("/"), body: named(`{"QueueName":"q%d"}`), want: 200, header: map[string]string{
		"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "AmazonSQS.CreateQueue",
		"Authorization": "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sqs/aws4_request, SignedHeaders=host, Signature=00"}},
	{name: "topic", method: "POST", path: fixed("/"), body: named(`Action=CreateTopic&Version=2010-03-31&Name=t%d`), want: 200, header: map[string]string{
		"Content-Type":  "application/x-www-form-urlencoded",
		"Authorization": "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=00"}},
	// Every account and region holds directories of its own.
	{name: "account", method: "POST", path: fixed("/restapis"), body: named(`{"name":"a%d"}`), account: true, want: 201},
	// A short message lands in the inbox.
	{name: "sms", method: "POST", path: fixed("/"), body: named(`Action=Publish&Version=2010-03-31&PhoneNumber=%%2B1555%07d&Message=reset`), want: 200, header: map[string]string{
		"Content-Type":  "application/x-www-form-urlencoded",
		"Authorization": "AWS4-HMAC-SHA256 Credential=test/20250101/us-east-1/sns/aws4_request, SignedHeaders=host, Signature=00"}},
}

func fixed(s string) func(int) string { return func(int) string { return s } }
func named(f string) func(int) string {
	return func(i int) string { return fmt.Sprintf(f, i) }
}

// createAll creates n resources of every kind in resetResources over
// conns connections.
func createAll(t testing.TB, url string, n, conns int) {
	t.Helper()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns}, Timeout: 30 * time.Second}
	defer client.CloseIdleConnections()
	var next atomic.Int64
	var failed atomic.Pointer[string]
	var wg sync.WaitGroup
	total := int64(n * len(resetResources))
	for range conns {
		wg.Go(func() {
			for failed.Load() == nil {
				j := next.Add(1) - 1
				if j >= total {
					return
				}
				r, i := resetResources[j%int64(len(resetResources))], int(j/int64(len(resetResources)))
				req, _ := http.NewRequest(r.method, url+r.path(i), strings.NewReader(r.body(i)))
				if r.header == nil {
					req.Header.Set("Content-Type", "application/json")
				}
				for k, v := range r.header {
					req.Header.Set(k, v)
				}
				if r.account {
					req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=%012d/20250101/us-east-1/apigateway/aws4_request, SignedHeaders=host, Signature=00", 100000+i))
				}
				resp, err := client.Do(req)
				if err != nil {
					msg := err.Error()
					failed.CompareAndSwap(nil, &msg)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != r.want {
					msg := fmt.Sprintf("create %s: %d %.300s", r.name, resp.StatusCode, b)
					failed.CompareAndSwap(nil, &msg)
					return
				}
			}
		})
	}
	wg.Wait()
	if msg := failed.Load(); msg != nil {
		t.Fatal(*msg)
	}
}

// resetSlack is how far above the live heap before the resources were
// created the live heap after the reset may be: the test's own noise.
const resetSlack = 512 << 10

// liveHeap returns the heap in use once garbage collections have run.
func liveHeap() uint64 {
	var ms runtime.MemStats
	for range 3 {
		runtime.GC()
	}
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// TestResetFreesEverything creates resources of every kind through the
// real server, resets, and checks that the live heap is back where it was
// before they were created (within the slack of a process's own noise).
func TestResetFreesEverything(t *testing.T) {
	if testing.Short() {
		t.Skip("creates thousands of resources")
	}
	s := servertest.Start(t)
	n := 6000 // 54,000 resources: enough that a per-owner runtime timer shows (~20 B each)
	if v, err := strconv.Atoi(os.Getenv("RESET_TEST_N")); err == nil {
		n = v
	}
	// One small round first: pools, per-scope maps and lazily built
	// tables are the fresh footprint, not what a reset must free.
	createAll(t, s.URL, 20, 8)
	if err := s.Emulator.Reset(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1200 * time.Millisecond)
	before := liveHeap()
	writeHeapProfile(t, os.Getenv("RESET_TEST_PROFILE_BEFORE"))
	createAll(t, s.URL, n, 16)
	full := liveHeap()
	stopCPU := cpuProfile(t, os.Getenv("RESET_TEST_CPU"))
	start := time.Now()
	if err := s.Emulator.Reset(); err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	stopCPU()
	// Retired owners linger for a second, answering late Asks, then end;
	// what they leave is compacted after that.
	var after uint64
	for deadline := time.Now().Add(15 * time.Second); ; {
		time.Sleep(500 * time.Millisecond)
		if after = liveHeap(); after <= before+resetSlack || time.Now().After(deadline) {
			break
		}
	}
	writeHeapProfile(t, os.Getenv("RESET_TEST_PROFILE"))
	t.Logf("live heap: %d KiB before, %d KiB with %d resources, %d KiB after the reset, which took %v", before>>10, full>>10, n*len(resetResources), after>>10, took)
	if full < before+uint64(n*len(resetResources))*200 {
		t.Fatalf("the resources took %d KiB, not believable: is the test creating them?", (full-before)>>10)
	}
	if after > before+resetSlack {
		t.Errorf("after the reset the live heap is %d KiB over what it was before (%d resources created)", (after-before)>>10, n*len(resetResources))
	}
}

// writeHeapProfile writes the heap profile to path, if not empty, for
// finding what a reset keeps: go tool pprof -diff_base before.prof after.prof.
func writeHeapProfile(t testing.TB, path string) {
	if path == "" {
		return
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := pprof.WriteHeapProfile(f); err != nil {
		t.Fatal(err)
	}
}

// cpuProfile profiles the CPU into path, if not empty, until the returned
// function is called.
func cpuProfile(t testing.TB, path string) func() {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		t.Fatal(err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}

// TestResetUnderLoad resets repeatedly while clients create and read
// resources of several kinds: every request gets an answer, none a 500,
// and the emulator ends empty after a last reset.
func TestResetUnderLoad(t *testing.T) {
	s := servertest.Start(t)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 8}, Timeout: 20 * time.Second}
	defer client.CloseIdleConnections()
	var stop atomic.Bool
	var served, failed atomic.Int64
	var firstFailure atomic.Pointer[string]
	fail := func(msg string) {
		failed.Add(1)
		firstFailure.CompareAndSwap(nil, &msg)
	}
	var wg sync.WaitGroup
	for w := range 6 {
		wg.Go(func() {
			for i := 0; !stop.Load() && i < 100000; i++ {
				r := resetResources[(w+i)%len(resetResources)]
				req, _ := http.NewRequest(r.method, s.URL+r.path(w*1000000+i), strings.NewReader(r.body(w*1000000+i)))
				if r.header == nil {
					req.Header.Set("Content-Type", "application/json")
				}
				for k, v := range r.header {
					req.Header.Set(k, v)
				}
				resp, err := client.Do(req)
				if err != nil {
					fail(err.Error())
					return
				}
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 500 && resp.StatusCode != http.StatusServiceUnavailable {
					fail(fmt.Sprintf("create %s: %d %.300s", r.name, resp.StatusCode, b))
				}
				// A read of what was just created, which a reset may
				// have taken away: 200 or 404, nothing else.
				if r.name == "restapi" && resp.StatusCode == 201 {
					id := string(b[strings.Index(string(b), `"id":"`)+6:])
					id = id[:strings.IndexByte(id, '"')]
					resp, err := client.Get(s.URL + "/restapis/" + id)
					if err != nil {
						fail(err.Error())
						return
					}
					resp.Body.Close()
					if resp.StatusCode != 200 && resp.StatusCode != 404 {
						fail(fmt.Sprintf("GetRestApi after create: %d", resp.StatusCode))
					}
				}
				served.Add(1)
			}
		})
	}
	for range 10 {
		time.Sleep(50 * time.Millisecond)
		if err := s.Emulator.Reset(); err != nil {
			t.Errorf("reset under load: %v", err)
		}
	}
	stop.Store(true)
	wg.Wait()
	if err := s.Emulator.Reset(); err != nil {
		t.Fatal(err)
	}
	if msg := firstFailure.Load(); msg != nil {
		t.Errorf("%d requests failed during resets, the first: %s", failed.Load(), *msg)
	}
	if served.Load() == 0 {
		t.Fatal("no request was served during the resets")
	}
	for _, path := range []string{"/restapis", "/v2/apis", "/apikeys", "/usageplans", "/backup-vaults/"} {
		resp, err := client.Get(s.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 || strings.Contains(string(b), `"name"`) || strings.Contains(string(b), `"BackupVaultName"`) {
			t.Errorf("GET %s after the last reset: %d %.300s", path, resp.StatusCode, b)
		}
	}
}
