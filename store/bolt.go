package store

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// ErrInUse is wrapped by OpenBolt when another process holds the data dir.
var ErrInUse = errors.New("in use by another process")

// ErrCorrupt is wrapped by OpenBolt when the store file is truncated or not
// a valid store: the emulator refuses to start rather than start empty.
var ErrCorrupt = errors.New("corrupt store file")

// DefaultMaxBatch is the number of requests one commit takes by default.
const DefaultMaxBatch = 256

var (
	recordsBucket = []byte("records")
	metaBucket    = []byte("meta")
	epochKey      = []byte("epoch")
)

// BoltOptions configures OpenBolt.
type BoltOptions struct {
	// MaxBatch caps the requests committed in one transaction (one fsync).
	// Zero means DefaultMaxBatch; 1 means one fsync per write.
	MaxBatch int
	// Logger receives lifecycle and failure logs; nil discards them.
	Logger *slog.Logger
}

// boltStore is the EMULATOR_STATE=persistent store. Writers queue requests to
// one committer goroutine, which commits everything queued in one bbolt
// transaction: while one commit fsyncs, the next batch accumulates.
type boltStore struct {
	db       *bolt.DB // nil between a wipe's removal of the file and its re-creation
	path     string
	log      *slog.Logger
	maxBatch int
	epoch    atomic.Uint64 // committed epoch; written only by the committer

	mu     sync.RWMutex // held for reading while sending on reqs
	closed bool
	reqs   chan *request
	done   chan struct{} // closed when the committer exits
}

// request is one Apply or Wipe waiting for the committer.
type request struct {
	epoch  uint64
	ops    []Op
	wipe   bool
	err    error      // set by the committer inside the transaction
	result chan error // cap 1; the committer sends exactly once
}

var requestPool = sync.Pool{New: func() any { return &request{result: make(chan error, 1)} }}

// OpenBolt opens (creating if needed) <dir>/emulator.db and starts its
// committer. A second process on the same dir fails after one second with an
// error wrapping ErrInUse.
func OpenBolt(dir string, opts BoltOptions) (Store, error) {
	if opts.MaxBatch <= 0 {
		opts.MaxBatch = DefaultMaxBatch
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	log = log.With("component", "store")
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, fmt.Errorf("store: create data dir: %w", err)
	}
	path := filepath.Join(dir, "emulator.db")
	if err := checkFile(path); err != nil {
		return nil, err
	}
	db, epoch, err := openFile(path, nil)
	if err != nil {
		return nil, err
	}
	s := &boltStore{
		db:       db,
		path:     path,
		log:      log,
		maxBatch: opts.MaxBatch,
		reqs:     make(chan *request, opts.MaxBatch),
		done:     make(chan struct{}),
	}
	s.epoch.Store(epoch)
	go s.run()
	log.Debug("store opened", "backend", "bbolt", "path", path, "epoch", epoch)
	return s, nil
}

// openFile opens (creating if needed) the store file at path with its
// buckets, and returns its epoch: the one recorded, or *epoch when not nil
// (recorded then).
func openFile(path string, epoch *uint64) (*bolt.DB, uint64, error) {
	db, err := bolt.Open(path, 0o600, &bolt.Options{
		// Fail fast instead of hanging when another process has the file.
		Timeout: time.Second,
		// Many small commits (etcd's settings): the hashmap freelist
		// allocates and frees pages in O(1) where the array one degrades with
		// fragmentation, and not writing the freelist saves pages on every
		// commit. The price is a freelist rebuild (a scan) on open. Data and
		// meta pages are still fsynced on every commit.
		FreelistType:   bolt.FreelistMapType,
		NoFreelistSync: true,
	})
	if err != nil {
		return nil, 0, openError(path, err)
	}
	// bbolt fsyncs the file but not the directory entry of a new file.
	if err := syncDir(filepath.Dir(path)); err != nil {
		_ = db.Close()
		return nil, 0, err
	}
	var recorded uint64
	err = db.Update(func(tx *bolt.Tx) error {
		if _, err := tx.CreateBucketIfNotExists(recordsBucket); err != nil {
			return err
		}
		meta, err := tx.CreateBucketIfNotExists(metaBucket)
		if err != nil {
			return err
		}
		if epoch != nil {
			recorded = *epoch
			return meta.Put(epochKey, binary.BigEndian.AppendUint64(nil, recorded))
		}
		if v := meta.Get(epochKey); len(v) == 8 {
			recorded = binary.BigEndian.Uint64(v)
		}
		return nil
	})
	if err != nil {
		_ = db.Close()
		return nil, 0, fmt.Errorf("store: init %s: %w", path, err)
	}
	return db, recorded, nil
}

// syncDir makes a newly created file in dir survive a power loss.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("store: sync data dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("store: sync data dir: %w", err)
	}
	return nil
}

// Apply implements Store. It returns after the commit holding ops is fsynced.
func (s *boltStore) Apply(epoch uint64, ops ...Op) error {
	for i := range ops {
		if err := checkOp(&ops[i]); err != nil {
			return err
		}
	}
	r := requestPool.Get().(*request)
	r.epoch, r.ops = epoch, ops
	err := s.do(r)
	r.ops = nil
	requestPool.Put(r)
	return err
}

// checkOp rejects what bbolt would reject inside the transaction, so one bad
// request never fails the batch it shares with others.
func checkOp(op *Op) error {
	switch {
	case op.Key == "":
		return errors.New("store: empty key")
	case len(op.Key) > bolt.MaxKeySize:
		return fmt.Errorf("store: key of %d bytes exceeds %d", len(op.Key), bolt.MaxKeySize)
	case len(op.Value) > bolt.MaxValueSize:
		return fmt.Errorf("store: value of %d bytes exceeds %d", len(op.Value), bolt.MaxValueSize)
	}
	return nil
}

// do queues r for the committer and waits for its result.
func (s *boltStore) do(r *request) error {
	s.mu.RLock()
	switch {
	case s.closed:
		s.mu.RUnlock()
		return ErrClosed
	case r.wipe: // always queued: it must be ordered with the writes
	case r.epoch != s.epoch.Load():
		// Epochs only grow, and Epoch never hands out a future one, so a
		// mismatch now is a mismatch at commit time.
		s.mu.RUnlock()
		return ErrStale
	case len(r.ops) == 0:
		s.mu.RUnlock()
		return nil
	}
	s.reqs <- r
	s.mu.RUnlock()
	return <-r.result
}

// run is the committer: take one request, drain what is already queued
// without waiting, commit them together, repeat until reqs is closed.
func (s *boltStore) run() {
	defer close(s.done)
	batch := make([]*request, 0, s.maxBatch)
	for r := range s.reqs {
		batch = append(batch[:0], r)
	drain:
		for len(batch) < s.maxBatch {
			select {
			case r, ok := <-s.reqs:
				if !ok {
					break drain
				}
				batch = append(batch, r)
			default:
				break drain
			}
		}
		s.commit(batch)
		clear(batch) // drop references for the pool
	}
}

// commit applies batch in one transaction, in queue order, and wakes every
// writer with its own result.
func (s *boltStore) commit(batch []*request) {
	if s.db == nil && !s.reopen() {
		err := fmt.Errorf("%w: the store file could not be made again after a wipe", ErrUnavailable)
		for _, r := range batch {
			r.result <- err
		}
		return
	}
	var epoch uint64
	err := update(s.db, func(tx *bolt.Tx) error {
		records := tx.Bucket(recordsBucket)
		var err error
		epoch, err = walkBatch(batch, s.epoch.Load(), func(next uint64) (err error) {
			records, err = wipe(tx, next)
			return err
		}, func(r *request) error { return applyOps(records, r.ops) })
		return err
	})
	if err != nil && s.wipeByNewFile(batch) {
		return
	}
	if err != nil {
		// Nothing in the batch is durable (bbolt rolled back, and the
		// committed epoch is unchanged); checkOp makes this an I/O failure:
		// a full, read-only or failing disk. The next batch tries again.
		s.log.Error("commit failed", "requests", len(batch), "err", err)
		err = fmt.Errorf("%w: commit: %w", ErrUnavailable, err)
		for _, r := range batch {
			r.result <- err
		}
		return
	}
	s.epoch.Store(epoch)
	for _, r := range batch {
		r.result <- r.err
	}
}

// wipeByNewFile does what a batch holding a wipe asked for when the disk
// refused to commit it (a reset on a full disk): it removes the store file,
// which gives its space back, and starts a new, empty one at the epoch
// the batch ends at. Every request before a wipe is then written and
// wiped; every later one is stale, as in a committed batch. False (nothing
// changed) when the batch has no wipe or the file cannot be removed (a
// read-only file system).
func (s *boltStore) wipeByNewFile(batch []*request) bool {
	wiped, unwiped := false, false // unwiped: a write no wipe follows, which needs the file
	epoch, _ := walkBatch(batch, s.epoch.Load(),
		func(uint64) error { wiped, unwiped = true, false; return nil },
		func(*request) error { unwiped = true; return nil })
	if !wiped || unwiped {
		return false
	}
	if err := os.Remove(s.path); err != nil {
		s.log.Error("wipe failed: the store file can be neither written nor removed", "err", err)
		return false
	}
	// Unlinked while open: closing it frees its blocks.
	_ = s.db.Close()
	s.db = nil
	s.epoch.Store(epoch)
	s.log.Warn("the disk refused the wipe's commit: the store file was removed and is made anew", "epoch", epoch)
	// When even that fails, the wipe is still done (the file is gone); the
	// next commit makes the file again.
	s.reopen()
	for _, r := range batch {
		r.result <- r.err
	}
	return true
}

// reopen makes the store file anew, empty at the committed epoch, after
// wipeByNewFile removed it; false while the disk refuses even that.
func (s *boltStore) reopen() bool {
	epoch := s.epoch.Load()
	db, _, err := openFile(s.path, &epoch)
	if err != nil {
		s.log.Error("making the store file anew failed", "err", err)
		return false
	}
	s.db = db
	return true
}

// update runs a commit's transaction; tests replace it to make the disk
// refuse a commit in ways a file-size limit cannot.
var update = (*bolt.DB).Update

// walkBatch goes through batch in queue order from the committed epoch, as a
// commit does: each wipe (wipe gets the epoch it starts) moves the epoch
// on, a write of an earlier epoch is stale (a Wipe ahead of it in the
// queue), every other goes to write. It sets each request's err and
// returns the epoch the batch ends at, or the first error of wipe or
// write.
func walkBatch(batch []*request, epoch uint64, wipe func(next uint64) error, write func(*request) error) (uint64, error) {
	for _, r := range batch {
		r.err = nil
		switch {
		case r.wipe:
			if err := wipe(epoch + 1); err != nil {
				return epoch, err
			}
			epoch++
		case r.epoch != epoch:
			r.err = ErrStale
		default:
			if err := write(r); err != nil {
				return epoch, err
			}
		}
	}
	return epoch, nil
}

// applyOps writes one request's ops into records.
func applyOps(records *bolt.Bucket, ops []Op) error {
	for _, op := range ops {
		key := []byte(op.Key)
		var err error
		switch {
		case op.DeletePrefix:
			err = deletePrefix(records, key)
		case op.Delete:
			err = records.Delete(key)
		default:
			err = records.Put(key, op.Value)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deletePrefix removes every key that starts with prefix. It seeks again after
// each delete because a bbolt cursor may skip a key after Delete.
func deletePrefix(records *bolt.Bucket, prefix []byte) error {
	c := records.Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}

// wipe replaces the records bucket with an empty one and records the epoch.
func wipe(tx *bolt.Tx, epoch uint64) (*bolt.Bucket, error) {
	if err := tx.DeleteBucket(recordsBucket); err != nil {
		return nil, err
	}
	records, err := tx.CreateBucket(recordsBucket)
	if err != nil {
		return nil, err
	}
	return records, tx.Bucket(metaBucket).Put(epochKey, binary.BigEndian.AppendUint64(nil, epoch))
}

// Epoch implements Store.
func (s *boltStore) Epoch() uint64 { return s.epoch.Load() }

// Load implements Store. fn owns the value it is given.
func (s *boltStore) Load(fn func(key string, value []byte) error) error {
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	if s.db == nil {
		return nil // wiped, the file not made again yet
	}
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(recordsBucket).ForEach(func(k, v []byte) error {
			// v points into the mmap, valid only inside the transaction.
			return fn(string(k), bytes.Clone(v))
		})
	})
	if errors.Is(err, bolterrors.ErrDatabaseNotOpen) {
		return ErrClosed // Close won the race
	}
	if err != nil {
		return fmt.Errorf("store: load: %w", err)
	}
	return nil
}

// Wipe implements Store. It is queued like an Apply, so writes queued before
// it are committed first and writes queued after it get ErrStale.
func (s *boltStore) Wipe() error {
	err := s.do(&request{wipe: true, result: make(chan error, 1)})
	if err == nil {
		s.log.Info("store wiped", "epoch", s.epoch.Load())
	}
	return err
}

// Close implements Store: it refuses new work, commits what is queued, stops
// the committer and closes the file. A second Close returns ErrClosed.
func (s *boltStore) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.closed = true
	close(s.reqs) // no sender holds mu.RLock now
	s.mu.Unlock()
	<-s.done
	if s.db == nil {
		return nil
	}
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("store: close: %w", err)
	}
	s.log.Debug("store closed")
	return nil
}

// Backend implements Store.
func (s *boltStore) Backend() string { return "bbolt" }

// Durable implements Store.
func (s *boltStore) Durable() bool { return true }
