package execute

import (
	"sync"
	"testing"
)

func TestAdmission(t *testing.T) {
	a := NewAdmission(2)
	for i := range 2 {
		if !a.Enter() {
			t.Fatalf("entry %d refused under the cap", i)
		}
	}
	if a.Enter() {
		t.Fatal("admitted over the cap")
	}
	a.Leave()
	if !a.Enter() {
		t.Fatal("refused after a Leave")
	}
	unbounded := NewAdmission(0)
	var wg sync.WaitGroup
	for range 100 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !unbounded.Enter() {
				t.Error("a cap of 0 refused")
			}
			unbounded.Leave()
		}()
	}
	wg.Wait()
	if unbounded.InFlight() != 0 {
		t.Errorf("in flight = %d after every Leave", unbounded.InFlight())
	}
}
