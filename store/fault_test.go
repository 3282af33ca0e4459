package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fillStore writes n records of size bytes each into a store in dir and
// closes it, returning the store file's path.
func fillStore(t *testing.T, dir string, n, size int) string {
	t.Helper()
	s, err := OpenBolt(dir, BoltOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ops := make([]Op, n)
	for i := range ops {
		ops[i] = Put(fmt.Sprintf("k/%06d", i), make([]byte, size))
	}
	if err := s.Apply(s.Epoch(), ops...); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "emulator.db")
}

// TestBoltRefusesCorruptFile checks that a truncated, garbage or damaged
// store file fails OpenBolt with ErrCorrupt and the file's path, instead of
// a crash inside bbolt or an empty start.
func TestBoltRefusesCorruptFile(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, path string)
		want   string
	}{
		{"truncated", func(t *testing.T, path string) {
			fi, _ := os.Stat(path)
			if err := os.Truncate(path, fi.Size()/3); err != nil {
				t.Fatal(err)
			}
		}, "truncated"},
		{"cut-in-header", func(t *testing.T, path string) {
			if err := os.Truncate(path, 100); err != nil {
				t.Fatal(err)
			}
		}, "not a valid store file"},
		{"garbage", func(t *testing.T, path string) {
			b := make([]byte, 64<<10)
			for i := range b {
				b[i] = byte(i * 7)
			}
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}, "not a valid store file"},
		{"damaged-page", func(t *testing.T, path string) {
			// Overwrite pages past the two meta pages: the header is
			// intact, the tree is not.
			f, err := os.OpenFile(path, os.O_RDWR, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			junk := []byte(strings.Repeat("\xa5", 8<<10))
			if _, err := f.WriteAt(junk, 2*4096); err != nil {
				t.Fatal(err)
			}
		}, "corrupt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := fillStore(t, dir, 2000, 200)
			tc.damage(t, path)
			s, err := OpenBolt(dir, BoltOptions{})
			if err == nil {
				n := 0
				_ = s.Load(func(string, []byte) error { n++; return nil })
				s.Close()
				t.Fatalf("OpenBolt accepted a %s file (%d records loaded)", tc.name, n)
			}
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrCorrupt naming %s and saying %q", err, path, tc.want)
			}
			t.Log(err)
		})
	}
}

// TestBoltOpensEmptyAndExisting checks that the file check lets a missing,
// an empty and a healthy file through.
func TestBoltOpensEmptyAndExisting(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "emulator.db"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	openBolt(t, dir).Close()
	dir = t.TempDir()
	fillStore(t, dir, 100, 10)
	if got := len(loadAll(t, openBolt(t, dir))); got != 100 {
		t.Fatalf("loaded %d records, want 100", got)
	}
}
