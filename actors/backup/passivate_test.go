package backup

import (
	"maps"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/store"
)

// TestPassiveVaultSurvivesRestart: a vault whose owner passivated keeps
// what it was written, across a restart from the persistent store, and
// takes writes after it.
func TestPassiveVaultSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	open := func() (*Service, store.Store) {
		st, err := store.OpenBolt(dir, store.BoltOptions{})
		if err != nil {
			t.Fatal(err)
		}
		env := actorstest.New(t, actorstest.WithStore(st))
		env.Sys.PassivateAfter(5 * time.Millisecond)
		return New(env.Sys, env.Store, env.Now, env.Log), st
	}
	s, st := open()
	v, err := s.CreateVault(scope, CreateVaultInput{Name: "kept"})
	if err != nil {
		t.Fatal(err)
	}
	waitPassiveVault(t, s, "kept")
	if err := s.Tag(v.ARN, map[string]string{"k": "v1"}); err != nil {
		t.Fatalf("tag a passive vault: %v", err)
	}
	waitPassiveVault(t, s, "kept")
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}

	s, st = open()
	defer st.Close()
	if err := st.Load(s.Restore); err != nil {
		t.Fatal(err)
	}
	if err := s.RestoreDone(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Vault(scope, "kept"); !ok {
		t.Fatal("the vault is gone after the restart")
	}
	if err := s.Tag(v.ARN, map[string]string{"k2": "v2"}); err != nil {
		t.Fatalf("tag after the restart: %v", err)
	}
	tags, err := s.Tags(v.ARN)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"k": "v1", "k2": "v2"}; !maps.Equal(tags, want) {
		t.Fatalf("tags = %v, want %v", tags, want)
	}
}

func waitPassiveVault(t *testing.T, s *Service, name string) {
	t.Helper()
	d, _ := s.scopes.Lookup(scope)
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(2 * time.Millisecond) {
		e, _, ok := d.vaults.Entry(name)
		if !ok {
			t.Fatalf("no vault %s", name)
		}
		if !e.Ref().Valid() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the vault's owner did not passivate within 5s")
		}
	}
}
