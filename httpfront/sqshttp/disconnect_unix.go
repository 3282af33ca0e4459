//go:build unix

package sqshttp

import "syscall"

// peerClosed waits until the socket is readable and reports whether the
// peer closed it (nothing to read, or an error), without consuming a byte.
// Data (a pipelined request) or a deadline ends the watch as not closed.
func peerClosed(raw syscall.RawConn) bool {
	var buf [1]byte
	closed := false
	_ = raw.Read(func(fd uintptr) bool {
		n, _, err := syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		switch {
		case err == syscall.EAGAIN || err == syscall.EWOULDBLOCK || err == syscall.EINTR:
			return false
		case err != nil || n == 0:
			closed = true
		}
		return true
	})
	return closed
}
