//go:build linux

package main

import "syscall"

// sysProcAttr puts a child in its own process group, so one kill reaches
// anything it starts, and asks the kernel to SIGKILL it if benchrun dies
// without cleaning up (kill -9, a crash). Pdeathsig fires when the thread
// that forked exits; Go only ends threads whose goroutine locked them, which
// exec does not, so it fires with the process.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
