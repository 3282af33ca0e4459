package store

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

type record struct{ key, value string }

// openBolt opens a bolt store in dir and closes it when the test ends.
func openBolt(t *testing.T, dir string, opts ...func(*BoltOptions)) Store {
	t.Helper()
	var o BoltOptions
	for _, f := range opts {
		f(&o)
	}
	s, err := OpenBolt(dir, o)
	if err != nil {
		t.Fatalf("OpenBolt: %v", err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil && !errors.Is(err, ErrClosed) {
			t.Errorf("Close: %v", err)
		}
	})
	return s
}

// loadAll returns every record in the order Load gives them.
func loadAll(t *testing.T, s Store) []record {
	t.Helper()
	var got []record
	err := s.Load(func(k string, v []byte) error {
		got = append(got, record{k, string(v)})
		return nil
	})
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return got
}

func TestBoltApply(t *testing.T) {
	v := func(s string) []byte { return []byte(s) }
	tests := []struct {
		name    string
		applies [][]Op
		want    []record
	}{
		{
			name:    "put loads in key order",
			applies: [][]Op{{Put("c", v("3"))}, {Put("a", v("1"))}, {Put("b", v("2"))}},
			want:    []record{{"a", "1"}, {"b", "2"}, {"c", "3"}},
		},
		{
			name:    "put overwrites",
			applies: [][]Op{{Put("a", v("1"))}, {Put("a", v("2"))}},
			want:    []record{{"a", "2"}},
		},
		{
			name:    "delete",
			applies: [][]Op{{Put("a", v("1")), Put("b", v("2"))}, {Del("a"), Del("missing")}},
			want:    []record{{"b", "2"}},
		},
		{
			name: "delete prefix spares neighbours",
			applies: [][]Op{
				{Put("v1/x/api/1", v("a")), Put("v1/x/api/1/stage/prod", v("b")), Put("v1/x/api/1/stage/test", v("c"))},
				{Put("v1/x/api/10", v("d")), Put("v1/x/api/0", v("e")), Put("v1/x/api/2", v("f"))},
				{DelPrefix("v1/x/api/1/")},
			},
			want: []record{{"v1/x/api/0", "e"}, {"v1/x/api/1", "a"}, {"v1/x/api/10", "d"}, {"v1/x/api/2", "f"}},
		},
		{
			name:    "delete prefix then put in one apply",
			applies: [][]Op{{Put("p/a", v("1")), Put("p/b", v("2"))}, {DelPrefix("p/"), Put("p/c", v("3"))}},
			want:    []record{{"p/c", "3"}},
		},
		{
			name:    "ops apply in order",
			applies: [][]Op{{Put("a", v("1")), Del("a"), Put("b", v("1")), Put("b", v("2"))}},
			want:    []record{{"b", "2"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openBolt(t, t.TempDir())
			for _, ops := range tt.applies {
				if err := s.Apply(s.Epoch(), ops...); err != nil {
					t.Fatalf("Apply: %v", err)
				}
			}
			if got := loadAll(t, s); !slices.Equal(got, tt.want) {
				t.Fatalf("Load = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestBoltApplyRejectsBadOps(t *testing.T) {
	tests := []struct {
		name string
		ops  []Op
	}{
		{name: "empty put key", ops: []Op{Put("a", []byte("1")), Put("", []byte("2"))}},
		{name: "empty delete prefix", ops: []Op{Put("a", []byte("1")), DelPrefix("")}},
		{name: "key too long", ops: []Op{Put("a", []byte("1")), Put(string(make([]byte, 40000)), nil)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openBolt(t, t.TempDir())
			if err := s.Apply(s.Epoch(), tt.ops...); err == nil {
				t.Fatal("Apply succeeded, want error")
			}
			if got := loadAll(t, s); len(got) != 0 {
				t.Fatalf("Load = %v, want nothing (all or none)", got)
			}
		})
	}
}

// TestBoltBatch drives one committed batch directly, as if these requests had
// queued together: each request succeeds or fails on its own.
func TestBoltBatch(t *testing.T) {
	s := openBolt(t, t.TempDir()).(*boltStore)
	req := func(epoch uint64, ops ...Op) *request {
		return &request{epoch: epoch, ops: ops, result: make(chan error, 1)}
	}
	batch := []*request{
		req(0, Put("a", []byte("1")), Put("b", []byte("1"))),
		req(7, Put("stale", nil)),
		req(0, Put("c", []byte("1"))),
		{wipe: true, result: make(chan error, 1)},
		req(0, Put("after-wipe-old-epoch", nil)),
		req(1, Put("d", []byte("2")), Put("e", []byte("2"))),
	}
	s.commit(batch)
	want := []error{nil, ErrStale, nil, nil, ErrStale, nil}
	for i, r := range batch {
		if err := <-r.result; !errors.Is(err, want[i]) {
			t.Errorf("request %d: err = %v, want %v", i, err, want[i])
		}
	}
	if got := s.Epoch(); got != 1 {
		t.Fatalf("Epoch = %d, want 1", got)
	}
	wantRecords := []record{{"d", "2"}, {"e", "2"}}
	if got := loadAll(t, s); !slices.Equal(got, wantRecords) {
		t.Fatalf("Load = %v, want %v", got, wantRecords)
	}
}

func TestBoltWipe(t *testing.T) {
	s := openBolt(t, t.TempDir())
	old := s.Epoch()
	if err := s.Apply(old, Put("a", []byte("1")), Put("b", []byte("2"))); err != nil {
		t.Fatal(err)
	}
	if err := s.Wipe(); err != nil {
		t.Fatalf("Wipe: %v", err)
	}
	if got := s.Epoch(); got != old+1 {
		t.Fatalf("Epoch = %d, want %d", got, old+1)
	}
	if got := loadAll(t, s); len(got) != 0 {
		t.Fatalf("Load after Wipe = %v, want nothing", got)
	}
	if err := s.Apply(old, Put("c", []byte("3"))); !errors.Is(err, ErrStale) {
		t.Fatalf("Apply(old epoch) = %v, want ErrStale", err)
	}
	if err := s.Apply(old+1, Put("d", []byte("4"))); err != nil {
		t.Fatalf("Apply(new epoch) = %v", err)
	}
	if got, want := loadAll(t, s), []record{{"d", "4"}}; !slices.Equal(got, want) {
		t.Fatalf("Load = %v, want %v", got, want)
	}
}

func TestBoltReopen(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "nested") // OpenBolt creates it
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(s.Epoch(), Put("gone", nil)); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.Wipe(); err != nil {
			t.Fatal(err)
		}
	}
	want := []record{{"k1", "v1"}, {"k2", "v2"}}
	if err := s.Apply(s.Epoch(), Put("k2", []byte("v2")), Put("k1", []byte("v1"))); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm()&^0o750 != 0 {
		t.Fatalf("data dir: %v, %v; want a 0o750 dir", fi.Mode(), err)
	}

	s = openBolt(t, dir)
	if got := s.Epoch(); got != 2 {
		t.Fatalf("Epoch after reopen = %d, want 2", got)
	}
	if got := loadAll(t, s); !slices.Equal(got, want) {
		t.Fatalf("Load after reopen = %v, want %v", got, want)
	}
}

func TestBoltConcurrentWriters(t *testing.T) {
	const writers, writes = 32, 200
	dir := t.TempDir()
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Go(func() {
			for i := range writes {
				k := fmt.Sprintf("w%02d/%04d", w, i)
				if err := s.Apply(s.Epoch(), Put(k, []byte(k))); err != nil {
					errs <- fmt.Errorf("writer %d: %w", w, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	got := loadAll(t, openBolt(t, dir))
	if len(got) != writers*writes {
		t.Fatalf("loaded %d records, want %d", len(got), writers*writes)
	}
	for _, r := range got {
		if r.key != r.value {
			t.Fatalf("record %q = %q", r.key, r.value)
		}
	}
}

func TestBoltClosed(t *testing.T) {
	s := openBolt(t, t.TempDir())
	e := s.Epoch()
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	calls := []struct {
		name string
		do   func() error
	}{
		{name: "apply", do: func() error { return s.Apply(e, Put("k", nil)) }},
		{name: "apply no ops", do: func() error { return s.Apply(e) }},
		{name: "wipe", do: s.Wipe},
		{name: "load", do: func() error { return s.Load(func(string, []byte) error { return nil }) }},
		{name: "close", do: s.Close},
	}
	for _, c := range calls {
		t.Run(c.name, func(t *testing.T) {
			if err := c.do(); !errors.Is(err, ErrClosed) {
				t.Fatalf("err = %v, want ErrClosed", err)
			}
		})
	}
}

func TestBoltCloseFinishesQueued(t *testing.T) {
	dir := t.TempDir()
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 64
	var wg sync.WaitGroup
	results := make([]error, n)
	for i := range n {
		wg.Go(func() { results[i] = s.Apply(0, Put(fmt.Sprintf("k%02d", i), nil)) })
	}
	time.Sleep(time.Millisecond) // let some of them queue
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	acked := 0
	for _, err := range results {
		switch {
		case err == nil:
			acked++
		case !errors.Is(err, ErrClosed):
			t.Fatalf("Apply during Close: %v", err)
		}
	}
	if got := len(loadAll(t, openBolt(t, dir))); got != acked {
		t.Fatalf("loaded %d records, %d were acknowledged", got, acked)
	}
}

func TestBoltInUse(t *testing.T) {
	dir := t.TempDir()
	openBolt(t, dir)
	start := time.Now()
	s, err := OpenBolt(dir, BoltOptions{})
	if err == nil {
		s.Close()
		t.Fatal("second OpenBolt succeeded")
	}
	if !errors.Is(err, ErrInUse) {
		t.Fatalf("err = %v, want ErrInUse", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("second OpenBolt took %v, want about 1s", d)
	}
	t.Log(err)
}

// TestBoltCrash kills a writer process with SIGKILL and checks that every
// write it acknowledged is loaded after restart.
func TestBoltCrash(t *testing.T) {
	if dir := os.Getenv("STORE_CRASH_DIR"); dir != "" {
		crashWriter(dir)
		return
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestBoltCrash$")
	cmd.Env = append(os.Environ(), "STORE_CRASH_DIR="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var acked []string
	sc := bufio.NewScanner(out)
	for sc.Scan() && len(acked) < 500 {
		acked = append(acked, sc.Text())
	}
	_ = cmd.Process.Kill() // SIGKILL: no Close, no deferred anything
	_ = cmd.Wait()
	if len(acked) < 500 {
		t.Fatalf("writer acknowledged only %d writes", len(acked))
	}
	loaded := map[string]bool{}
	for _, r := range loadAll(t, openBolt(t, dir)) {
		loaded[r.key] = true
	}
	for _, k := range acked {
		if !loaded[k] {
			t.Fatalf("acknowledged %q lost after kill -9 (%d acked, %d loaded)", k, len(acked), len(loaded))
		}
	}
}

// crashWriter writes from 8 goroutines until killed, printing each
// acknowledged key.
func crashWriter(dir string) {
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		os.Exit(2)
	}
	var mu sync.Mutex
	for w := range 8 {
		go func() {
			for i := 0; ; i++ {
				k := fmt.Sprintf("w%d/%06d", w, i)
				if err := s.Apply(s.Epoch(), Put(k, []byte(k))); err != nil {
					os.Exit(3)
				}
				mu.Lock()
				fmt.Fprintln(os.Stdout, k)
				mu.Unlock()
			}
		}()
	}
	select {}
}
