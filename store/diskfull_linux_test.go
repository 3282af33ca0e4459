package store

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// inChild runs the calling test again in a child process, whose file-size
// limit nothing else shares, and reports whether this is the child (which
// then does the work); in the parent the child's result is the test's.
func inChild(t *testing.T) bool {
	t.Helper()
	const env = "STORE_DISKFULL_CHILD"
	if os.Getenv(env) == t.Name() {
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), env+"="+t.Name())
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+t.Name()) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("child:\n%s", out)
	return false
}

// fillDisk lowers the process's file-size limit to the size of the store
// file in dir, so that bbolt's growth of the file fails with EFBIG as it
// would with ENOSPC; the function it returns lifts the limit again.
func fillDisk(t *testing.T, dir string) (lift func()) {
	t.Helper()
	fi, err := os.Stat(filepath.Join(dir, "emulator.db"))
	if err != nil {
		t.Fatal(err)
	}
	var old syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
		t.Fatal(err)
	}
	full := syscall.Rlimit{Cur: uint64(fi.Size()), Max: old.Max}
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		t.Fatal(err)
	}
	return func() {
		if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &old); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBoltDiskFull fills the disk under a running store for real: the
// process's file-size limit (RLIMIT_FSIZE, which binds root too, unlike a
// read-only mode) is lowered to the store file's size, so bbolt's writes
// that grow the file fail with EFBIG as they would with ENOSPC. It runs in
// a child process, whose limit nothing else shares.
func TestBoltDiskFull(t *testing.T) {
	if !inChild(t) {
		return
	}
	dir := t.TempDir()
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	value := make([]byte, 64<<10) // overflow pages: the file must grow soon
	var acked []string
	for i := range 10 {
		k := fmt.Sprintf("before/%d", i)
		if err := s.Apply(s.Epoch(), Put(k, value)); err != nil {
			t.Fatal(err)
		}
		acked = append(acked, k)
	}
	lift := fillDisk(t, dir)
	epoch := s.Epoch()
	failed := ""
	for i := range 1000 {
		k := fmt.Sprintf("full/%d", i)
		err := s.Apply(epoch, Put(k, value))
		if err == nil {
			acked = append(acked, k) // it fitted in free pages
			continue
		}
		if !errors.Is(err, ErrUnavailable) {
			t.Fatalf("Apply on a full disk: %v, want ErrUnavailable", err)
		}
		t.Logf("write %d failed as it should: %v", i, err)
		failed = k
		break
	}
	if failed == "" {
		t.Fatal("1000 writes of 64 KiB fitted a file that may not grow")
	}
	// Still full: a second write fails the same way, and does not wedge.
	if err := s.Apply(epoch, Put("full/again", value)); !errors.Is(err, ErrUnavailable) {
		t.Fatalf("second write on a full disk: %v, want ErrUnavailable", err)
	}
	// Reads keep working and see exactly what was acknowledged.
	checkKeys(t, s, acked)
	if s.Epoch() != epoch {
		t.Fatalf("epoch moved from %d to %d", epoch, s.Epoch())
	}
	// Space returns: the same write succeeds, and survives a reopen.
	lift()
	if err := s.Apply(epoch, Put(failed, value)); err != nil {
		t.Fatalf("write after space returned: %v", err)
	}
	acked = append(acked, failed)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s2, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	checkKeys(t, s2, acked)
}

// checkKeys fails unless s holds exactly keys.
func checkKeys(t *testing.T, s Store, keys []string) {
	t.Helper()
	want := map[string]bool{}
	for _, k := range keys {
		want[k] = true
	}
	got := loadAll(t, s)
	for _, r := range got {
		if !want[r.key] {
			t.Errorf("unacknowledged record %s stored", r.key)
		}
		delete(want, r.key)
	}
	for k := range want {
		t.Errorf("acknowledged record %s missing", k)
	}
}

// TestBoltWipeOnFullDisk: a wipe (a reset) works on a disk so full that a
// write of 256 bytes is refused (bbolt's wipe needs about one page, and
// when the disk refuses even that, TestBoltWipeByNewFile's path runs);
// writes then succeed under the same limit, and a reopen finds exactly
// them at the wiped epoch.
func TestBoltWipeOnFullDisk(t *testing.T) {
	if !inChild(t) {
		return
	}
	dir := t.TempDir()
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	value := make([]byte, 64<<10)
	for i := range 40 {
		if err := s.Apply(s.Epoch(), Put(fmt.Sprintf("before/%d", i), value)); err != nil {
			t.Fatal(err)
		}
	}
	defer fillDisk(t, dir)()
	// Fill what free pages are left, until the disk refuses even a small
	// write: a wipe's commit needs a few pages too.
	for _, size := range []int{64 << 10, 4 << 10, 256} {
		for i := 0; ; i++ {
			err := s.Apply(s.Epoch(), Put(fmt.Sprintf("full/%d/%d", size, i), make([]byte, size)))
			if errors.Is(err, ErrUnavailable) {
				break
			}
			if err != nil || i == 100000 {
				t.Fatalf("filling the disk: write %d of %d bytes: %v", i, size, err)
			}
		}
	}
	epoch := s.Epoch()
	if err := s.Wipe(); err != nil {
		t.Fatalf("wipe on a full disk: %v", err)
	}
	if s.Epoch() != epoch+1 {
		t.Fatalf("epoch %d after the wipe, want %d", s.Epoch(), epoch+1)
	}
	if err := s.Apply(epoch, Put("stale", value)); !errors.Is(err, ErrStale) {
		t.Fatalf("a write of the wiped epoch: %v, want ErrStale", err)
	}
	checkKeys(t, s, nil)
	// The new file is small, and takes writes under the same limit.
	for i := range 3 {
		if err := s.Apply(s.Epoch(), Put(fmt.Sprintf("after/%d", i), value)); err != nil {
			t.Fatalf("write %d after the wipe: %v", i, err)
		}
	}
	reopenHolds(t, s, dir, epoch+1, []string{"after/0", "after/1", "after/2"})
}
