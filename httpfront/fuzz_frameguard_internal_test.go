package httpfront

import (
	"encoding/binary"
	"testing"
)

// FuzzFrameGuard: however a client's bytes are cut into reads, the guard
// refuses exactly when a frame of the stream declares a payload over the
// limit, at that frame's header, and never reads past an array's end.
func FuzzFrameGuard(f *testing.F) {
	f.Add(frameBytes(10), uint16(1), uint16(100))
	f.Add(append(frameBytes(126), frameBytes(200)...), uint16(7), uint16(150))
	f.Add([]byte{0x81, 0x7f, 0, 0, 0, 0, 0, 1, 0, 0}, uint16(3), uint16(65535))
	f.Add([]byte{0x01, 0x7e, 0xff, 0xff}, uint16(2), uint16(1))
	f.Fuzz(func(t *testing.T, stream []byte, chunk, limit uint16) {
		if chunk == 0 {
			chunk = 1
		}
		want, at := tooLargeAt(stream, uint64(limit))
		g := &frameGuard{limit: uint64(limit)}
		var err error
		read := 0
		for len(stream) > 0 && err == nil {
			k := min(int(chunk), len(stream))
			err = g.observe(stream[:k])
			stream = stream[k:]
			read += k
		}
		if (err != nil) != want {
			t.Fatalf("refused %v (%v), want %v", err != nil, err, want)
		}
		// Refused in the read that completed the oversized header.
		if want && (read < at || read-int(chunk) >= at) {
			t.Fatalf("refused after %d bytes, the header ends at %d (reads of %d)", read, at, chunk)
		}
	})
}

// tooLargeAt follows the frames of a whole stream: whether one declares a
// payload over limit, and the offset just past that frame's header.
func tooLargeAt(b []byte, limit uint64) (bool, int) {
	off := 0
	for len(b)-off >= 2 {
		hdr := 2
		n := uint64(b[off+1] & 0x7f)
		switch n {
		case 126:
			hdr += 2
		case 127:
			hdr += 8
		}
		if b[off+1]&0x80 != 0 {
			hdr += 4
		}
		if len(b)-off < hdr {
			return false, 0
		}
		switch n {
		case 126:
			n = uint64(binary.BigEndian.Uint16(b[off+2:]))
		case 127:
			n = binary.BigEndian.Uint64(b[off+2:])
		}
		if n > limit {
			return true, off + hdr
		}
		if uint64(len(b)-off-hdr) <= n {
			return false, 0
		}
		off += hdr + int(n)
	}
	return false, 0
}
