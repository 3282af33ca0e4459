package functions

import (
	"bytes"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
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

// startProcess starts cmd from the one OS thread that forks every
// function's process. Pdeathsig fires when the thread that forked the child
// ends, not the process (Go issue 27505); a goroutine that locks a thread
// and returns ends it, so a child forked from an arbitrary thread could be
// killed when some unrelated goroutine exits. The spawner's thread is
// locked and never ends.
func startProcess(cmd *exec.Cmd) error {
	spawnerOnce.Do(func() {
		spawns = make(chan spawn)
		go func() {
			runtime.LockOSThread() // and never unlocked: the thread lives as long as the process
			for s := range spawns {
				s.done <- s.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawns <- spawn{cmd, done}
	return <-done
}

type spawn struct {
	cmd  *exec.Cmd
	done chan error
}

var (
	spawnerOnce sync.Once
	spawns      chan spawn
)
