package bench

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"time"
)

// ProcRSS returns the resident set size of process pid, from the VmRSS line
// of /proc/<pid>/status (Linux only).
func ProcRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, fmt.Errorf("bench: rss: %w", err)
	}
	for line := range bytes.SplitSeq(b, []byte("\n")) {
		rest, ok := bytes.CutPrefix(line, []byte("VmRSS:"))
		if !ok {
			continue
		}
		// "VmRSS:	   12345 kB": the kernel always reports kB.
		f := bytes.Fields(rest)
		if len(f) != 2 || string(f[1]) != "kB" {
			return 0, fmt.Errorf("bench: rss: odd VmRSS line %q", line)
		}
		kb, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: rss: %w", err)
		}
		return kb * 1024, nil
	}
	// Zombies and kernel threads have no VmRSS line.
	return 0, fmt.Errorf("bench: rss: no VmRSS for pid %d", pid)
}

// clockTicks is USER_HZ, the unit of utime and stime in /proc/<pid>/stat. It
// is 100 on every Linux architecture Go supports; reading it properly needs
// sysconf and so cgo.
const clockTicks = 100

// ProcCPU returns the CPU time (user plus system, all threads) that process
// pid has used so far, from /proc/<pid>/stat (Linux only). Its resolution is
// 10ms, so compare it over runs of a second or more.
func ProcCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("bench: cpu: %w", err)
	}
	// The command name (field 2) is in parentheses and may hold spaces, so
	// count fields from the last ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("bench: cpu: odd stat for pid %d", pid)
	}
	f := bytes.Fields(b[i+1:])
	// f[0] is field 3 (state); utime and stime are fields 14 and 15.
	if len(f) < 13 {
		return 0, fmt.Errorf("bench: cpu: short stat for pid %d", pid)
	}
	var ticks int64
	for _, s := range f[11:13] {
		n, err := strconv.ParseInt(string(s), 10, 64)
		if err != nil {
			return 0, fmt.Errorf("bench: cpu: %w", err)
		}
		ticks += n
	}
	return time.Duration(ticks) * time.Second / clockTicks, nil
}
