package lambda

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"maps"
	"time"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// A code package is stored once per SHA-256 in each account and region,
// in a record of its own that its owner writes once and deletes when no
// function holds it any more. Holding follows the references protocol of
// package actors: the function about to run the code records itself as a
// holder (acquire) before its own owner changes; once that change is
// published, the code's owner settles the acquisition, then keeps the
// holder only if the function's published snapshot still runs the code.
// A function that drops code (an update, a deleted version, a delete)
// asks the code's owner to check it in the same way. Restore rebuilds the
// holders from the functions and drops the packages none holds.

// CodeInput is a FunctionCode: only an inline zip is taken.
type CodeInput struct {
	ZipFile         []byte
	S3Bucket, S3Key *string
	S3ObjectVersion *string
	ImageURI        *string
}

// checkCodeSource refuses the code sources this emulator does not take
// (S3, container images) and a FunctionCode without a zip.
func checkCodeSource(c CodeInput) error {
	switch {
	case c.S3Bucket != nil || c.S3Key != nil || c.S3ObjectVersion != nil:
		return Invalid("Code from S3 (S3Bucket, S3Key) is not supported by this emulator, which has no S3: send the zip inline in ZipFile.")
	case c.ImageURI != nil:
		return Invalid("Container images (ImageUri) are not supported by this emulator: send a zip in ZipFile.")
	case len(c.ZipFile) == 0:
		return Invalid("Please provide a source for function code.")
	}
	return nil
}

// readCode checks a FunctionCode's source and reads its zip.
func readCode(c CodeInput) (*CodeRecord, error) {
	if err := checkCodeSource(c); err != nil {
		return nil, err
	}
	return readZip(c.ZipFile)
}

// readZip checks a zip as Lambda does and returns its record.
func readZip(b []byte) (*CodeRecord, error) {
	if len(b) > maxZipped {
		return nil, awswire.Errorf(awswire.Lambda, awswire.CodeRequestEntityTooLarge,
			"Zipped size must be smaller than %d bytes", maxZipped)
	}
	r, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return nil, Invalid("Could not unzip uploaded file. Please check your file, then try to upload again.")
	}
	var unzipped uint64
	for _, f := range r.File {
		unzipped += f.UncompressedSize64
	}
	if unzipped >= maxUnzipped {
		return nil, Invalid("Unzipped size must be smaller than %d bytes", maxUnzipped)
	}
	sum := sha256.Sum256(b)
	return &CodeRecord{Hash: hex.EncodeToString(sum[:]), SHA256: base64.StdEncoding.EncodeToString(sum[:]),
		Size: int64(len(b)), Zip: b}, nil
}

func codeKey(sc awswire.Scope, hash string) string { return recordKey(sc, kindCode, hash) }

var (
	errCodeTaken = errors.New("lambda: code being created")
	errCodeGone  = errors.New("lambda: code gone")
)

// acquireCode makes fn a holder of c in sc, creating (and persisting) the
// package when it is new. Call settleCode once fn's change is published or
// has failed.
func (s *Service) acquireCode(sc awswire.Scope, d *dirs, c *CodeRecord, fn string) error {
	for attempt := 0; attempt < 50; attempt++ {
		if e, ok := d.codes.Lookup(c.Hash); ok {
			_, err := actors.Update(s.sys, e, func(cur *Code) (actors.Change[Code], error) {
				if cur == nil {
					return actors.Change[Code]{}, errCodeGone
				}
				h := maps.Clone(cur.Holders)
				h[fn]++
				return actors.Change[Code]{Next: &Code{CodeRecord: cur.CodeRecord, Holders: h}}, nil
			})
			switch {
			case err == nil:
				return nil
			case errors.Is(err, errCodeGone) || actors.IsGone(err):
				// Ending right now: once it has, create it anew.
				time.Sleep(time.Millisecond)
				continue
			case errors.Is(err, actors.ErrNoAnswer):
				return s.busy()
			}
			return err
		}
		_, err := actors.Create(s.records(), actors.NewRecord[Code]{
			Kind: "lambda.code", Key: codeKey(sc, c.Hash), Dir: d.codes, ID: c.Hash,
			Taken: func() error { return errCodeTaken },
			Build: func() (*Code, error) {
				return &Code{CodeRecord: *c, Holders: map[string]int{fn: 1}}, nil
			},
		})
		if err == nil || !errors.Is(err, errCodeTaken) {
			return err
		}
	}
	return s.busy()
}

// settleCode ends one acquisition of hash by fn and checks the holder.
func (s *Service) settleCode(sc awswire.Scope, d *dirs, hash, fn string) {
	s.checkCode(sc, d, hash, fn, true)
}

// checkCode drops fn as a holder of hash unless an acquisition is pending
// or fn's published snapshot runs the code; the last holder gone, the
// package is deleted. Failures are logged: restore reconciles.
func (s *Service) checkCode(sc awswire.Scope, d *dirs, hash, fn string, settle bool) {
	e, ok := d.codes.Lookup(hash)
	if !ok {
		return
	}
	_, err := actors.Update(s.sys, e, s.codeCheck(sc, d, hash, fn, settle))
	if err != nil && !actors.IsGone(err) {
		s.log.Warn("code holder check failed", "function", fn, "code", hash, "error", err)
	}
}

func (s *Service) codeCheck(sc awswire.Scope, d *dirs, hash, fn string, settle bool) actors.Mutation[Code] {
	return func(cur *Code) (actors.Change[Code], error) {
		if cur == nil {
			return actors.Change[Code]{}, nil
		}
		n, held := cur.Holders[fn]
		if settle && n > 0 {
			n--
		}
		keep := n > 0
		if !keep {
			if f, ok := d.functions.Get(fn); ok && f.uses(hash) {
				keep = true
			}
		}
		if keep == held && (!held || n == cur.Holders[fn]) {
			return actors.Change[Code]{}, nil
		}
		h := maps.Clone(cur.Holders)
		if h == nil {
			h = map[string]int{}
		}
		if keep {
			h[fn] = n
		} else {
			delete(h, fn)
		}
		if len(h) == 0 {
			return actors.Change[Code]{End: true, Records: []actors.Record{actors.Del(codeKey(sc, hash))}}, nil
		}
		return actors.Change[Code]{Next: &Code{CodeRecord: cur.CodeRecord, Holders: h}}, nil
	}
}

// code returns the published package hash of sc.
func (d *dirs) code(hash string) (*Code, bool) { return d.codes.Get(hash) }
