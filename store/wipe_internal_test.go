package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestBoltWipeByNewFile: when the disk refuses to commit a wipe (a reset
// on a disk so full that not even a page can be written), the store file is
// removed, which gives its space back, and made anew, empty, at the wiped
// epoch: the reset succeeds. Writes queued in the same batch before the
// wipe count as written and wiped, later ones of the old epoch are stale.
func TestBoltWipeByNewFile(t *testing.T) {
	dir := t.TempDir()
	st, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*boltStore)
	defer func() { _ = s.Close() }()
	for i := range 20 {
		if err := s.Apply(s.Epoch(), Put(fmt.Sprintf("before/%d", i), make([]byte, 8<<10))); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(dir, "emulator.db")
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	refuse := func(*bolt.DB, func(*bolt.Tx) error) error {
		return fmt.Errorf("write /data/emulator.db: %w", syscall.ENOSPC)
	}
	defer func() { update = (*bolt.DB).Update }()
	update = refuse

	// An ordinary write is refused, and nothing changes.
	epoch := s.Epoch()
	if err := s.Apply(epoch, Put("refused", []byte("x"))); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("write on a full disk: %v, want ErrUnavailable", err)
	}
	// A batch of a write, a wipe and a stale write, committed together.
	before := &request{epoch: epoch, ops: []Op{Put("written-then-wiped", []byte("x"))}, result: make(chan error, 1)}
	wipe := &request{wipe: true, result: make(chan error, 1)}
	stale := &request{epoch: epoch, ops: []Op{Put("stale", []byte("x"))}, result: make(chan error, 1)}
	s.reqs <- before // the committer takes what is queued as one batch;
	s.reqs <- wipe   // if it takes them one by one, each is answered
	s.reqs <- stale  // the same way
	if err := <-before.result; err != nil {
		t.Errorf("the write before the wipe: %v, want nil (written, then wiped)", err)
	}
	if err := <-wipe.result; err != nil {
		t.Fatalf("the wipe on a full disk: %v", err)
	}
	if err := <-stale.result; !errors.Is(err, ErrStale) {
		t.Errorf("the write after the wipe: %v, want ErrStale", err)
	}
	if s.Epoch() != epoch+1 {
		t.Fatalf("epoch %d, want %d", s.Epoch(), epoch+1)
	}
	after, err := os.Stat(path)
	if err != nil || after.Size() >= fi.Size() { // (a new file may get the old inode number)
		t.Fatalf("the store file was not made anew: %v, %d bytes (was %d)", err, after.Size(), fi.Size())
	}

	// The disk has room again: writes go to the new file and survive.
	update = (*bolt.DB).Update
	if err := s.Apply(s.Epoch(), Put("after", []byte("y"))); err != nil {
		t.Fatal(err)
	}
	checkKeys(t, s, []string{"after"})
	reopenHolds(t, s, dir, epoch+1, []string{"after"})
}

// reopenHolds closes s, opens the store in dir again and checks that it
// is at epoch and holds exactly keys.
func reopenHolds(t *testing.T, s Store, dir string, epoch uint64, keys []string) {
	t.Helper()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s2.Close() }()
	if s2.Epoch() != epoch {
		t.Fatalf("epoch %d after a reopen, want %d", s2.Epoch(), epoch)
	}
	checkKeys(t, s2, keys)
}
