package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// footprintRows returns the table rows of a footprint report by mode and
// kind.
func footprintRows(out string) map[string][]string {
	rows := map[string][]string{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) > 1 && (f[0] == "passive" || f[0] == "live") {
			rows[f[0]+"/"+f[1]] = f
		}
	}
	return rows
}

func TestFootprintCommand(t *testing.T) {
	// The test binary plays the real emulator (see realEmulatorMain).
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := a.footprint(ctx, []string{"-emulator", self, "-count", "200", "-warm", "500", "-idle", "200ms", "-settle", "30s"}); err != nil {
		t.Fatalf("footprint: %v\n%s", err, out.String())
	}
	rows := footprintRows(out.String())
	for _, mode := range []string{"passive", "live"} {
		for _, kind := range footprintKinds {
			// mode kind count create before (2) after (2) per resource (2)
			f := rows[mode+"/"+kind]
			if len(f) != 10 || f[2] != "200" || f[9] != "B" {
				t.Errorf("%s %s row %q\n%s", mode, kind, f, out.String())
			}
		}
	}
}

func TestFootprintFlags(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"-emulator", "x", "-kinds", "restapi,table"},
		{"-emulator", "x", "-modes", "sleepy"},
		{"-emulator", "x", "-count", "0"},
		{"-emulator", "x", "-idle", "0s"},
		{"-emulator", "x", "-conns", "0"},
		{"-emulator", "x", "-warm", "-1"},
	} {
		a := newTestApp(t, &bytes.Buffer{}, nil)
		if err := a.footprint(context.Background(), args); err == nil {
			t.Errorf("footprint %q: no error", args)
		}
	}
}

func TestWriteFootprint(t *testing.T) {
	var out bytes.Buffer
	err := writeFootprint(&out, []footprintRun{
		{Mode: "passive", Kind: "vault", Count: 1000, Create: time.Second, HeapBefore: 1 << 20, HeapAfter: 1<<20 + 512000},
	})
	if err != nil {
		t.Fatal(err)
	}
	if f := footprintRows(out.String())["passive/vault"]; len(f) != 10 || f[8] != "512" {
		t.Errorf("row %q\n%s", f, out.String())
	}
}
