package functions

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
)

// Lambda's limits on a deployment package once unzipped.
const (
	MaxUnzippedSize = 262144000 // bytes, Lambda's 250 MB
	maxZipEntries   = 200000    // files; bounds inodes a small zip can make
	maxSymlinkLen   = 4096
)

// codeStore unpacks each code zip once, into dir/<hex SHA-256>. A directory
// there is complete: unpacking happens beside it and is renamed into place.
type codeStore struct {
	dir     string
	entries sync.Map // hex SHA → *codeEntry
}

type codeEntry struct {
	once sync.Once
	dir  string
	err  error
}

// dirFor returns fn's unpacked code, fetching and unpacking it if no other
// invocation did already. Concurrent cold starts of one SHA share one unpack.
func (s *codeStore) dirFor(fn *Function) (string, error) {
	sum, err := base64.StdEncoding.DecodeString(fn.CodeSHA256)
	if err != nil || len(sum) != sha256.Size {
		return "", newError(CodeInvalidParameterValue, err, "CodeSHA256 %q is not the base64 of a SHA-256", fn.CodeSHA256)
	}
	name := hex.EncodeToString(sum)
	v, _ := s.entries.LoadOrStore(name, &codeEntry{})
	e := v.(*codeEntry)
	e.once.Do(func() { e.dir, e.err = s.unpack(name, sum, fn) })
	if e.err != nil {
		// Forget a failure so the next cold start tries again: Code may
		// have failed for a passing reason.
		s.entries.CompareAndDelete(name, e)
	}
	return e.dir, e.err
}

func (s *codeStore) unpack(name string, sum []byte, fn *Function) (string, error) {
	final := path.Join(s.dir, name)
	if st, err := os.Stat(final); err == nil && st.IsDir() {
		return final, nil // unpacked by an earlier Runtime on the same WorkDir
	}
	if fn.Code == nil {
		return "", newError(CodeInvalidParameterValue, nil, "function %s has no code to fetch", fn.ARN)
	}
	data, err := fn.Code()
	if err != nil {
		return "", newError(CodeService, err, "fetching the code of %s", fn.ARN)
	}
	if got := sha256.Sum256(data); !bytes.Equal(got[:], sum) {
		return "", newError(CodeInvalidParameterValue, nil, "the code's SHA-256 is %s, not CodeSHA256 %s",
			base64.StdEncoding.EncodeToString(got[:]), fn.CodeSHA256)
	}
	tmp, err := os.MkdirTemp(s.dir, ".unpack-")
	if err != nil {
		return "", newError(CodeService, err, "unpacking the code")
	}
	if err := extractZip(data, tmp, MaxUnzippedSize); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		os.RemoveAll(tmp)
		if st, serr := os.Stat(final); serr == nil && st.IsDir() {
			return final, nil // another process of the same WorkDir won the race
		}
		return "", newError(CodeService, err, "unpacking the code")
	}
	return final, nil
}

const errUnzip = "Could not unzip uploaded file. Please check your file, then try to upload again."

// extractZip unpacks data into dir. Every write goes through an os.Root, so
// no entry — by "..", an absolute name or a symbolic link unpacked before it
// — lands outside dir. The unpacked bytes are counted as written, not as
// the headers claim, against limit. File modes are kept: the bootstrap's
// exec bit matters.
func extractZip(data []byte, dir string, limit int64) error {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) { // insecure names are refused below, naming the entry
		return newError(CodeInvalidZipFile, err, "%s", errUnzip)
	}
	if len(zr.File) > maxZipEntries {
		return newError(CodeInvalidZipFile, nil, "the zip has %d entries, more than the %d this emulator unpacks", len(zr.File), maxZipEntries)
	}
	var declared uint64
	for _, f := range zr.File {
		declared += f.UncompressedSize64
	}
	if declared > uint64(limit) {
		return tooBig()
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return newError(CodeService, err, "unpacking the code")
	}
	defer root.Close()
	budget := limit
	for _, f := range zr.File {
		name, err := entryName(f.Name)
		if err != nil {
			return newError(CodeInvalidZipFile, nil, "%s (entry %q: %v)", errUnzip, f.Name, err)
		}
		if name == "" {
			continue // the root itself
		}
		if err := extractEntry(root, f, name, &budget); err != nil {
			var e *Error
			if errors.As(err, &e) {
				return e
			}
			return newError(CodeInvalidZipFile, err, "%s (entry %q)", errUnzip, f.Name)
		}
	}
	return nil
}

// entryName cleans a zip entry's name into a relative slash path, refusing
// names that point outside the archive's root.
func entryName(raw string) (string, error) {
	if strings.ContainsRune(raw, 0) {
		return "", errors.New("NUL in name")
	}
	if strings.HasPrefix(raw, "/") {
		return "", errors.New("absolute path")
	}
	clean := path.Clean(raw)
	if clean == ".." || strings.HasPrefix(clean, "../") {
		return "", errors.New("path leaves the archive")
	}
	if clean == "." {
		return "", nil
	}
	return clean, nil
}

func extractEntry(root *os.Root, f *zip.File, name string, budget *int64) error {
	mode := f.Mode()
	if dir := path.Dir(name); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	switch {
	case mode.IsDir():
		return root.MkdirAll(name, 0o755)
	case mode&fs.ModeSymlink != 0:
		rc, err := f.Open()
		if err != nil {
			return err
		}
		target, err := io.ReadAll(io.LimitReader(rc, maxSymlinkLen+1))
		rc.Close()
		if err != nil {
			return err
		}
		if len(target) == 0 || len(target) > maxSymlinkLen {
			return fmt.Errorf("symbolic link target of %d bytes", len(target))
		}
		// A link may point anywhere (Lambda keeps links as they are);
		// writes of later entries through it stay inside the root.
		return root.Symlink(string(target), name)
	case mode.IsRegular():
		rc, err := f.Open()
		if err != nil {
			return err
		}
		defer rc.Close()
		// Owner read and write always, so the code can be read and the
		// directory removed; no setuid or sticky bits.
		perm := mode.Perm() | 0o600
		out, err := root.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
		if err != nil {
			return err
		}
		n, err := io.Copy(out, io.LimitReader(rc, *budget+1))
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
		*budget -= n
		if *budget < 0 {
			return tooBig()
		}
		// OpenFile's mode passed through the umask; set the zip's own.
		return root.Chmod(name, perm)
	default:
		return nil // devices, pipes: not code, skipped as Lambda's unzip would
	}
}

func tooBig() *Error {
	return newError(CodeInvalidParameterValue, nil, "Unzipped size must be smaller than %d bytes", MaxUnzippedSize)
}
