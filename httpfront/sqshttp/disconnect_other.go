//go:build !unix

package sqshttp

import "syscall"

// peerClosed cannot peek at a socket here: a client that leaves is noticed
// when its wait ends.
func peerClosed(syscall.RawConn) bool { return false }
