package pmap

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"testing"
)

func keys[V any](m Map[V]) []string {
	var out []string
	for k := range m.All() {
		out = append(out, k)
	}
	return out
}

func TestMapSharesNothingItChanges(t *testing.T) {
	var empty Map[int]
	if empty.Len() != 0 || empty.Has("a") {
		t.Fatal("zero map is not empty")
	}
	a := empty.Set("b", 2).Set("a", 1).Set("c", 3)
	b := a.Set("b", 20).Delete("c")
	if got := keys(a); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("old map changed: keys %v", got)
	}
	if v, _ := a.Get("b"); v != 2 {
		t.Errorf("old map's b = %d, want 2", v)
	}
	if got := keys(b); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("new map keys %v", got)
	}
	if v, _ := b.Get("b"); v != 20 {
		t.Errorf("new map's b = %d, want 20", v)
	}
	if b.Delete("a").Delete("b").Len() != 0 || b.Delete("zz").Len() != 2 {
		t.Error("delete miscounts")
	}
}

func TestMapRanges(t *testing.T) {
	m := Of(map[string]int{"p/1": 1, "p/2": 2, "q/1": 3, "p": 0})
	var got []string
	for k := range m.Prefix("p/") {
		got = append(got, k)
	}
	if !slices.Equal(got, []string{"p/1", "p/2"}) {
		t.Errorf("Prefix(p/) = %v", got)
	}
	got = nil
	for k := range m.From("p/2") {
		got = append(got, k)
	}
	if !slices.Equal(got, []string{"p/2", "q/1"}) {
		t.Errorf("From(p/2) = %v", got)
	}
	got = nil
	for k := range m.All() {
		got = append(got, k)
		break
	}
	if len(got) != 1 {
		t.Errorf("All did not stop: %v", got)
	}
}

func TestMapJSON(t *testing.T) {
	type rec struct {
		N string `json:"n"`
	}
	m := New[*rec]().Set("z", &rec{"last"}).Set("a", &rec{"first"})
	b, err := json.Marshal(struct {
		M Map[*rec] `json:"m"`
	}{m})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"m":{"a":{"n":"first"},"z":{"n":"last"}}}`; string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
	var back struct {
		M Map[*rec] `json:"m"`
	}
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if v, ok := back.M.Get("z"); !ok || v.N != "last" || back.M.Len() != 2 {
		t.Errorf("round trip: %+v", back.M.Map())
	}
	if err := json.Unmarshal([]byte(`null`), &back.M); err != nil || back.M.Len() != 0 {
		t.Errorf("null: %v, len %d", err, back.M.Len())
	}
	if err := json.Unmarshal([]byte(`[1]`), &back.M); err == nil {
		t.Error("a JSON list decoded as a map")
	}
}

func TestSharedConcurrentUpdates(t *testing.T) {
	var s Shared[int]
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				s.Set(fmt.Sprintf("w%d-%03d", w, i), i)
				_ = s.Load().Len()
			}
			for i := range 100 {
				s.Delete(fmt.Sprintf("w%d-%03d", w, i))
			}
		}()
	}
	wg.Wait()
	if n := s.Load().Len(); n != 8*100 {
		t.Errorf("got %d entries, want %d", n, 8*100)
	}
	s.Reset()
	if s.Load().Len() != 0 {
		t.Error("Reset left entries")
	}
}

func BenchmarkSet(b *testing.B) {
	for _, n := range []int{1, 1000, 10000} {
		m := New[*struct{}]()
		for i := range n {
			m = m.Set(fmt.Sprintf("r%09d", i*7919%1000003), &struct{}{})
		}
		b.Run(fmt.Sprintf("size=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = m.Set("r000000500", &struct{}{})
			}
		})
	}
}

func TestAppendKeysWithPrefix(t *testing.T) {
	m := New[int]()
	if got := m.AppendKeysWithPrefix(nil, "a"); len(got) != 0 {
		t.Errorf("empty map: %q", got)
	}
	for i, k := range []string{"a", "ab\x00x", "ab\x00y", "abc", "b"} {
		m = m.Set(k, i)
	}
	got := m.AppendKeysWithPrefix([]string{"keep"}, "ab\x00")
	if want := []string{"keep", "ab\x00x", "ab\x00y"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := m.AppendKeysWithPrefix(nil, "z"); len(got) != 0 {
		t.Errorf("past the end: %q", got)
	}
}
