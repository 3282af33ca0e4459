//go:build unix && !linux

package functions

import (
	"os/exec"
	"syscall"
)

// processAttributes puts the process in a group of its own, so one kill
// reaches everything it started. (Pdeathsig is Linux's alone.)
func processAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// peakRSS is unknown while the process lives off Linux.
func peakRSS(pid int) int64 { return 0 }

// maxRSSUnit is what Rusage.Maxrss counts in: bytes on the BSDs and macOS.
const maxRSSUnit = 1

// startProcess starts cmd; without Pdeathsig any thread may fork it.
func startProcess(cmd *exec.Cmd) error { return cmd.Start() }
