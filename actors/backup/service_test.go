package backup

import (
	"fmt"
	"sync"
	"testing"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/store"
)

var scope = actorstest.Scope

func newService(t testing.TB, opts ...actorstest.Option) *Service {
	t.Helper()
	env := actorstest.New(t, opts...)
	s := New(env.Sys, env.Store, env.Now, env.Log)
	t.Cleanup(s.Detach)
	return s
}

func doc(name string) PlanDocument {
	return PlanDocument{BackupPlanName: name, Rules: []Rule{{RuleName: "r", TargetBackupVaultName: "vv"}}}
}

// TestConcurrentRename renames two plans to one name at once: exactly one
// rename wins and the name index stays consistent.
func TestConcurrentRename(t *testing.T) {
	s := newService(t)
	for round := range 20 {
		a, err := s.CreatePlan(scope, CreatePlanInput{Document: doc("a")})
		if err != nil {
			t.Fatal(err)
		}
		b, err := s.CreatePlan(scope, CreatePlanInput{Document: doc("b")})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		for i, id := range []string{a.ID, b.ID} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, errs[i] = s.UpdatePlan(scope, id, UpdatePlanInput{Document: doc("target")})
			}()
		}
		wg.Wait()
		if (errs[0] == nil) == (errs[1] == nil) {
			t.Fatalf("round %d: want one winner, got %v and %v", round, errs[0], errs[1])
		}
		loser := errs[0]
		if loser == nil {
			loser = errs[1]
		}
		awswiretest.WantError(t, loser, awswire.CodeAlreadyExists, "")
		// The loser kept its old name, so that name is still taken, and
		// the winner's old name is free.
		_, errA := s.CreatePlan(scope, CreatePlanInput{Document: doc("a")})
		_, errB := s.CreatePlan(scope, CreatePlanInput{Document: doc("b")})
		if (errA == nil) == (errB == nil) {
			t.Fatalf("round %d: name index inconsistent: %v %v", round, errA, errB)
		}
		s.Detach()
	}
}

// TestDeletedPlanFreesItsName: a plan's name is free once the plan is gone,
// and a failed create leaves no name behind.
func TestDeletedPlanFreesItsName(t *testing.T) {
	s := newService(t)
	p, err := s.CreatePlan(scope, CreatePlanInput{Document: doc("n")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(scope, CreatePlanInput{Document: doc("n")}); err == nil {
		t.Fatal("a second plan took a name in use")
	}
	if _, _, err := s.DeletePlan(scope, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePlan(scope, CreatePlanInput{Document: doc("n")}); err != nil {
		t.Fatalf("the deleted plan's name is still taken: %v", err)
	}
}

func TestRestoreRefusesForeignRecords(t *testing.T) {
	s := newService(t)
	for _, tc := range []struct{ name, key, value string }{
		{"key=malformed", "nope", "{}"},
		{"key=other-service", store.Key("1", "r", "apigateway", "restapi", "x"), "{}"},
		{"kind=unknown", store.Key("1", "r", "backup", "selection", "x"), "{}"},
		{"value=not-json", store.Key("1", "r", "backup", "vault", "x"), "{"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := s.Restore(tc.key, []byte(tc.value)); err == nil {
				t.Fatal("restored a record it cannot own")
			}
		})
	}
}

// TestResetForgetsEverything: after a reset nothing is listed or counted,
// and an owner of the old epoch cannot write into the new one.
func TestResetForgetsEverything(t *testing.T) {
	st := store.NewMemory()
	s := newService(t, actorstest.WithStore(st))
	if _, err := s.CreateVault(scope, CreateVaultInput{Name: "before"}); err != nil {
		t.Fatal(err)
	}
	stale := actors.NewStateOwner[Vault](st) // an owner born before the reset
	e := actors.SpawnState(s.sys, "test.stale", stale, nil)
	s.Detach()
	if err := st.Wipe(); err != nil {
		t.Fatal(err)
	}
	if _, err := actors.Update(s.sys, e, func(*Vault) (actors.Change[Vault], error) {
		return actors.Change[Vault]{Next: &Vault{}, Records: []actors.Record{actors.Put("k", 1)}}, nil
	}); !actors.IsGone(err) {
		t.Fatalf("an owner of the old epoch wrote: %v", err)
	}
	if _, ok := s.Vault(scope, "before"); ok {
		t.Fatal("reset kept a vault")
	}
	if got := s.Counts(); len(got) != 0 {
		t.Fatalf("counts after reset: %v", got)
	}
}

// TestListPagesInCreationOrder pages through vaults created and deleted
// concurrently: every vault that lived through the whole listing is listed
// once, in creation order.
func TestListPagesInCreationOrder(t *testing.T) {
	s := newService(t)
	var kept []string
	for i := range 300 {
		name := fmt.Sprintf("vault-%03d", i)
		if _, err := s.CreateVault(scope, CreateVaultInput{Name: name}); err != nil {
			t.Fatal(err)
		}
		if i%3 != 0 {
			kept = append(kept, name)
		}
	}
	done := make(chan struct{})
	go func() { // churn while listing: delete every third vault, add new ones
		defer close(done)
		for i := 0; i < 300; i += 3 {
			_ = s.DeleteVault(scope, fmt.Sprintf("vault-%03d", i))
			_, _ = s.CreateVault(scope, CreateVaultInput{Name: fmt.Sprintf("late-%03d", i)})
		}
	}()
	var got []string
	token := ""
	for {
		p, err := s.Vaults(scope, token, 7)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range p.Items {
			got = append(got, v.Name)
		}
		if p.Next == "" {
			break
		}
		token = p.Next
	}
	<-done
	seen := map[string]int{}
	last := -1
	for i, n := range got {
		seen[n]++
		if n[:6] == "vault-" {
			if idx := indexOf(kept, n); idx >= 0 {
				if idx < last {
					t.Fatalf("%s listed out of creation order at %d", n, i)
				}
				last = idx
			}
		}
	}
	for _, n := range kept {
		if seen[n] != 1 {
			t.Errorf("%s listed %d times", n, seen[n])
		}
	}
	if _, err := s.Vaults(scope, "not-a-token", 10); err == nil {
		t.Error("a forged token was accepted")
	}
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

// BenchmarkListVaults reads one page of 1 and of 1,000 vaults out of
// 50,000: a page costs its size, not the number of vaults.
func BenchmarkListVaults(b *testing.B) {
	s := newService(b)
	for i := range 50000 {
		if _, err := s.CreateVault(scope, CreateVaultInput{Name: fmt.Sprintf("vault-%05d", i)}); err != nil {
			b.Fatal(err)
		}
	}
	for _, n := range []int{1, 1000} {
		b.Run(fmt.Sprintf("vaults=50000/page=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p, err := s.Vaults(scope, "25000", n)
				if err != nil || len(p.Items) != n {
					b.Fatalf("%d items, %v", len(p.Items), err)
				}
			}
		})
	}
}
