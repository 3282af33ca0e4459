package inithook

import (
	"context"
	"io/fs"
	"os/exec"
	"strconv"
	"syscall"
)

// command runs the script through cmd.exe /c, as a native Windows container
// daemon does, so a .sh script needs a POSIX shell on the path. Cancelling
// ends the whole process tree.
func command(ctx context.Context, path string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "cmd.exe", "/c", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
	cmd.Cancel = func() error {
		kill := exec.Command("taskkill", "/T", "/F", "/PID", strconv.Itoa(cmd.Process.Pid))
		if err := kill.Run(); err != nil {
			return cmd.Process.Kill()
		}
		return nil
	}
	return cmd
}

// executable is always true: Windows has no executable bit.
func executable(fs.FileInfo) bool { return true }
