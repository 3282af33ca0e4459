package functions

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// processAttributes puts the process in a group of its own, so one kill
// reaches everything it started, and has the kernel kill it if the
// emulator dies without a chance to (Pdeathsig).
func processAttributes() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// peakRSS is a live process's peak resident memory in bytes (VmHWM), 0 if
// it cannot be read.
func peakRSS(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0
	}
	i := bytes.Index(b, []byte("VmHWM:"))
	if i < 0 {
		return 0
	}
	f := bytes.Fields(b[i+len("VmHWM:"):])
	if len(f) < 1 {
		return 0
	}
	kb, _ := strconv.ParseInt(string(f[0]), 10, 64)
	return kb << 10
}

// maxRSSUnit is what Rusage.Maxrss counts in: kilobytes on Linux.
const maxRSSUnit = 1024
