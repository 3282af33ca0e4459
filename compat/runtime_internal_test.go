package compat

import (
	"net"
	"path/filepath"
	"strings"
	"testing"
)

// TestProbeRuntime: no socket is a fact, not an error; a socket that
// answers is connected; one that exists and refuses is the only error.
func TestProbeRuntime(t *testing.T) {
	t.Setenv("DOCKER_HOST", "")
	dir := t.TempDir()
	missing := probeRuntime(filepath.Join(dir, "docker.sock"))
	if missing.Error != "" || missing.Connected || missing.Required || !strings.Contains(missing.Note, "no container runtime socket") {
		t.Errorf("missing socket: %+v", missing)
	}
	sock := filepath.Join(dir, "live.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if r := probeRuntime(sock); !r.Connected || r.Error != "" {
		t.Errorf("live socket: %+v", r)
	}
	ln.Close() // removes the socket file
	if r := probeRuntime(sock); r.Connected {
		t.Errorf("closed socket: %+v", r)
	}
}
