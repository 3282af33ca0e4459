//go:build unix

package inithook

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"syscall"
)

// command runs the script file itself (its #! line picks the interpreter)
// in a process group of its own, so that cancelling kills its children too.
func command(ctx context.Context, path string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
	return cmd
}

// executable reports whether any executable bit is set.
func executable(fi fs.FileInfo) bool { return fi.Mode().Perm()&0o111 != 0 }
