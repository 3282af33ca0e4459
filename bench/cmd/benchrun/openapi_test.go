package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestOpenAPIImportAgainstEmulator(t *testing.T) {
	// The test binary plays the real emulator (see realEmulatorMain).
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := a.openAPIImport(ctx, []string{"-emulator", self, "-paths", "20", "-imports", "3"}); err != nil {
		t.Fatalf("openapi-import: %v\n%s", err, out.String())
	}
	// 20 paths make 41 resources (each /itemsN/{id}, its parent, the root).
	if f := tableRow(out.String(), "emulator"); len(f) != 7 || f[1] != "3" || f[5] != "41" || f[6] != "1.0x" {
		t.Errorf("openapi-import row %q\n%s", f, out.String())
	}
}

func TestOpenAPIImportFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-emulator", "x", "-paths", "0"}, {"-emulator", "x", "-imports", "5000"}} {
		a := newTestApp(t, &bytes.Buffer{}, nil)
		if err := a.openAPIImport(context.Background(), args); err == nil || !strings.HasPrefix(err.Error(), "benchrun: openapi-import") &&
			!strings.Contains(err.Error(), "out of range") {
			t.Errorf("%q: %v", args, err)
		}
	}
}
