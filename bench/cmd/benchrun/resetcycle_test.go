package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestResetCycleAgainstEmulator(t *testing.T) {
	// The test binary plays the real emulator (see realEmulatorMain).
	t.Setenv(realEnv, "1")
	self, _ := os.Executable()
	var out bytes.Buffer
	a := newTestApp(t, &out, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// A generous slack: the test binary's own heap is noisier than the
	// emulator's, and the figure that matters comes from the real binary.
	err := a.resetCycle(ctx, []string{"-emulator", self, "-rounds", "2", "-resources", "300", "-conns", "4",
		"-kinds", strings.Join(resetKindNames(), ","), "-slack", "4194304", "-after", "1500ms"})
	if err != nil {
		t.Fatalf("reset-cycle: %v\n%s", err, out.String())
	}
	for _, round := range []string{"1", "2"} {
		if f := tableRow(out.String(), round); len(f) < 2 || f[1] != "300" {
			t.Errorf("round %s row %q\n%s", round, f, out.String())
		}
	}
	if f := tableRow(out.String(), "fresh"); len(f) == 0 {
		t.Errorf("no fresh row\n%s", out.String())
	}
	if !strings.Contains(out.String(), "PASS:") {
		t.Errorf("no PASS line\n%s", out.String())
	}
}

func TestResetCycleFailsOverSlack(t *testing.T) {
	var out bytes.Buffer
	rounds := []resetRound{{Round: 1, Created: 10, HeapAfter: 5 << 20}, {Round: 2, Created: 10, HeapAfter: 8 << 20}}
	err := writeResetCycle(&out, 5<<20, 30<<20, 1<<20, rounds)
	if err == nil || !strings.Contains(err.Error(), "round 2") || !strings.Contains(out.String(), "FAIL:") {
		t.Errorf("err %v\n%s", err, out.String())
	}
	out.Reset()
	if err := writeResetCycle(&out, 5<<20, 30<<20, 4<<20, rounds); err != nil || !strings.Contains(out.String(), "PASS:") {
		t.Errorf("err %v\n%s", err, out.String())
	}
}

func TestResetCycleFlags(t *testing.T) {
	for _, args := range [][]string{{}, {"-emulator", "x", "-rounds", "0"}, {"-emulator", "x", "-kinds", "restapi,nope"},
		{"-emulator", "x", "-conns", "0"}, {"-emulator", "x", "-after", "-1s"}} {
		a := newTestApp(t, &bytes.Buffer{}, nil)
		if err := a.resetCycle(context.Background(), args); err == nil || !strings.HasPrefix(err.Error(), "benchrun: ") {
			t.Errorf("%q: %v", args, err)
		}
	}
}
