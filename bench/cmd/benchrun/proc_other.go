//go:build unix && !linux

package main

import "syscall"

// sysProcAttr puts a child in its own process group, so one kill reaches
// anything it starts. Without Pdeathsig, a benchrun killed with -9 leaves
// its children running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
