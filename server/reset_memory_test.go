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
	n := 1000
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
	if err := s.Emulator.Reset(); err != nil {
		t.Fatal(err)
	}
	// Retired owners linger for a second, answering late Asks.
	time.Sleep(1200 * time.Millisecond)
	after := liveHeap()
	writeHeapProfile(t, os.Getenv("RESET_TEST_PROFILE"))
	t.Logf("live heap: %d KiB before, %d KiB with %d resources, %d KiB after the reset", before>>10, full>>10, n*len(resetResources), after>>10)
	if full < before+uint64(n*len(resetResources))*200 {
		t.Fatalf("the resources took %d KiB, not believable: is the test creating them?", (full-before)>>10)
	}
	if after > before+512<<10 {
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
