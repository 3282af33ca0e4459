package main

import (
	"archive/zip"
	"bytes"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestZipBootstrap(t *testing.T) {
	b, err := zipBootstrap([]byte("\x7fELF..."))
	if err != nil {
		t.Fatal(err)
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		t.Fatal(err)
	}
	if len(zr.File) != 1 || zr.File[0].Name != "bootstrap" || zr.File[0].Mode().Perm() != 0o755 {
		t.Fatalf("entries %+v", zr.File)
	}
	r, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if got, _ := io.ReadAll(r); string(got) != "\x7fELF..." {
		t.Fatalf("content %q", got)
	}
}

func TestModuleRoot(t *testing.T) {
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	// The test runs in bench/cmd/benchrun of the module.
	if _, err := os.Stat(filepath.Join(root, "bench", "cmd", "benchrun", "lambda.go")); err != nil {
		t.Fatalf("moduleRoot() = %s: %v", root, err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/other\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if isEmulatorModule(filepath.Join(dir, "go.mod")) || !isEmulatorModule(filepath.Join(root, "go.mod")) {
		t.Fatal("isEmulatorModule tells the modules apart wrongly")
	}
}
