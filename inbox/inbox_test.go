package inbox

import (
	"fmt"
	"testing"
)

func TestBoundedOldestFirst(t *testing.T) {
	b := New(3)
	for i := range 10 {
		b.Add(Entry{ID: fmt.Sprint(i), Kind: Email})
	}
	got := b.List(Filter{})
	if len(got) != 3 || got[0].ID != "7" || got[2].ID != "9" {
		t.Fatalf("kept %v, want 7, 8, 9", ids(got))
	}
}

func TestFilterAndDelete(t *testing.T) {
	b := New(0)
	b.Add(Entry{ID: "m1", Kind: Email, Source: "a@x.com", Destinations: &Destinations{To: []string{"B@y.com"}}})
	b.Add(Entry{ID: "s1", Kind: SMS, PhoneNumber: "+15555550100"})
	b.Add(Entry{ID: "p1", Kind: Push, TargetArn: "arn:aws:sns:us-east-1:000000000000:endpoint/GCM/app/1"})
	if got := b.List(Filter{Email: "b@Y.com"}); len(got) != 1 || got[0].ID != "m1" {
		t.Fatalf("email filter: %v", ids(got))
	}
	if got := b.List(Filter{Kind: SMS}); len(got) != 1 || got[0].ID != "s1" {
		t.Fatalf("kind filter: %v", ids(got))
	}
	if n := b.Delete(Filter{ID: "s1"}); n != 1 {
		t.Fatalf("deleted %d, want 1", n)
	}
	if got := b.List(Filter{}); len(got) != 2 || got[0].ID != "m1" || got[1].ID != "p1" {
		t.Fatalf("after delete: %v", ids(got))
	}
	b.Reset()
	if got := b.List(Filter{}); len(got) != 0 {
		t.Fatalf("after reset: %v", ids(got))
	}
}

func ids(es []*Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}

func TestBoundedByBytes(t *testing.T) {
	b := New(0)
	big := string(make([]byte, MaxBytes/4))
	for i := range 6 {
		b.Add(Entry{ID: fmt.Sprint(i), Kind: Email, Raw: big})
	}
	got := b.List(Filter{})
	if len(got) != 3 || got[0].ID != "3" || got[2].ID != "5" {
		t.Fatalf("kept %v, want 3, 4, 5", ids(got))
	}
	// One entry larger than the whole bound is still kept, alone.
	b.Add(Entry{ID: "huge", Raw: string(make([]byte, MaxBytes+1))})
	if got := b.List(Filter{}); len(got) != 1 || got[0].ID != "huge" {
		t.Fatalf("kept %v, want huge", ids(got))
	}
}

func TestPage(t *testing.T) {
	b := New(0)
	for i := range 5 {
		b.Add(Entry{ID: fmt.Sprint(i), Kind: SMS})
	}
	page, more := b.Page(Filter{}, "", 2)
	if !more || len(page) != 2 || page[1].ID != "1" {
		t.Fatalf("first page %v more=%v", ids(page), more)
	}
	page, more = b.Page(Filter{}, "1", 2)
	if !more || len(page) != 2 || page[0].ID != "2" {
		t.Fatalf("second page %v more=%v", ids(page), more)
	}
	page, more = b.Page(Filter{}, "3", 2)
	if more || len(page) != 1 || page[0].ID != "4" {
		t.Fatalf("last page %v more=%v", ids(page), more)
	}
}

func TestAddSinceDropsAcrossReset(t *testing.T) {
	b := New(10)
	before := b.Epoch()
	if !b.AddSince(before, Entry{ID: "a", Kind: Email}) {
		t.Fatal("AddSince in the same epoch dropped the entry")
	}
	b.Reset()
	// A capture that checked its state before the reset.
	if b.AddSince(before, Entry{ID: "b", Kind: Email}) {
		t.Error("AddSince across a reset added the entry")
	}
	if !b.AddSince(b.Epoch(), Entry{ID: "c", Kind: Email}) {
		t.Error("AddSince in the new epoch dropped the entry")
	}
	if got := b.List(Filter{}); len(got) != 1 || got[0].ID != "c" {
		t.Errorf("entries %v, want only c", got)
	}
}
