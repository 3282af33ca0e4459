package backup

import (
	"errors"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

var scope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

func newService(t *testing.T, st store.Store) *Service {
	t.Helper()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	sys := actors.NewSystem(log, 2*time.Second)
	s := New(sys, st, time.Now, log)
	t.Cleanup(func() {
		s.Detach()
		sys.Shutdown()
	})
	return s
}

func wantCode(t *testing.T, err error, code string) {
	t.Helper()
	var we *awswire.Error
	if !errors.As(err, &we) || we.Code != code {
		t.Fatalf("want %s, got %v", code, err)
	}
}

func doc(name string) PlanDocument {
	return PlanDocument{BackupPlanName: name, Rules: []Rule{{RuleName: "r", TargetBackupVaultName: "vv"}}}
}

// TestConcurrentRename renames two plans to one name at once: exactly one
// rename wins and the name index stays consistent.
func TestConcurrentRename(t *testing.T) {
	s := newService(t, store.NewMemory())
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
				_, errs[i] = s.UpdatePlan(scope, id, doc("target"))
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
		wantCode(t, loser, awswire.CodeAlreadyExists)
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

func TestRestoreRefusesForeignRecords(t *testing.T) {
	s := newService(t, store.NewMemory())
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

// TestResetOrphansOwners checks that an owner cut off by a reset cannot
// write into the new epoch.
func TestResetOrphansOwners(t *testing.T) {
	st := store.NewMemory()
	s := newService(t, st)
	if _, err := s.CreateVault(scope, CreateVaultInput{Name: "before"}); err != nil {
		t.Fatal(err)
	}
	o := s.vaultOwner(scope, newDirs())
	o.entry = actors.NewEntry[Vault](actors.Ref{})
	s.Detach()
	if err := st.Wipe(); err != nil {
		t.Fatal(err)
	}
	if _, err := o.Handle(createCmd{VaultRecord{Name: "stale"}}); !errors.Is(err, store.ErrStale) {
		t.Fatalf("owner of the old epoch wrote: %v", err)
	}
	if _, ok := s.Vault(scope, "before"); ok {
		t.Fatal("reset kept a vault")
	}
	if got := s.Counts(); len(got) != 0 {
		t.Fatalf("counts after reset: %v", got)
	}
}
