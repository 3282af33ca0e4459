package store

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// checkFile refuses a store file that bbolt would open and then crash on:
// a file shorter than the pages its header counts (bbolt reads past the
// end of the mapping, a fault no recover catches) or whose pages fail
// bbolt's consistency check (bbolt panics in a goroutine of its own while
// rebuilding the free list). It opens the file read-only, so a missing or
// empty file, which OpenBolt creates, passes.
func checkFile(path string) error {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("store: %s is not a regular file: %w", path, ErrCorrupt)
	}
	if fi.Size() == 0 {
		return nil
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		return openError(path, err)
	}
	defer db.Close()
	return db.View(func(tx *bolt.Tx) error {
		if need := tx.Size(); fi.Size() < need {
			return fmt.Errorf("store: %s is truncated: %d bytes, its header counts %d: %w (restore it from a backup, or move it away to start empty)",
				path, fi.Size(), need, ErrCorrupt)
		}
		if err := walk(tx); err != nil {
			return fmt.Errorf("store: %s is corrupt: %v: %w (restore it from a backup, or move it away to start empty)",
				path, err, ErrCorrupt)
		}
		return nil
	})
}

// walk reads every page of the tree on this goroutine, where bbolt's
// assertions on a damaged page and a fault on a bad mapping can be
// recovered (bbolt's own Check first rebuilds the free list in a goroutine
// of bbolt's, which crashes on the same damage). It also checks that keys
// are in order, as bbolt's free-list rebuild does.
func walk(tx *bolt.Tx) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%v", r)
		}
	}()
	return tx.ForEach(func(name []byte, b *bolt.Bucket) error {
		if err := walkBucket(b); err != nil {
			return fmt.Errorf("bucket %q: %w", name, err)
		}
		return nil
	})
}

func walkBucket(b *bolt.Bucket) error {
	var prev []byte
	c := b.Cursor()
	for k, v := c.First(); k != nil; k, v = c.Next() {
		if prev != nil && bytes.Compare(prev, k) >= 0 {
			return fmt.Errorf("key %q out of order after %q", k, prev)
		}
		prev = k
		if v == nil {
			if nested := b.Bucket(k); nested != nil {
				if err := walkBucket(nested); err != nil {
					return fmt.Errorf("bucket %q: %w", k, err)
				}
			}
		}
	}
	return nil
}

// openError names what is wrong with the file at path when bbolt refuses
// it.
func openError(path string, err error) error {
	switch {
	case errors.Is(err, bolterrors.ErrTimeout):
		return fmt.Errorf("store: data dir %s is %w", filepath.Dir(path), ErrInUse)
	case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrChecksum),
		errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrInvalidMapping):
		return fmt.Errorf("store: %s is not a valid store file (%v): %w (restore it from a backup, or move it away to start empty)",
			path, err, ErrCorrupt)
	}
	return fmt.Errorf("store: open %s: %w", path, err)
}
