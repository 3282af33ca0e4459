package httpfront

import (
	"encoding/binary"
	"testing"
)

// frame returns a masked client frame header for a payload of n bytes,
// and the payload.
func frameBytes(n int) []byte {
	b := []byte{0x81}
	switch {
	case n < 126:
		b = append(b, 0x80|byte(n))
	case n < 1<<16:
		b = append(b, 0x80|126)
		b = binary.BigEndian.AppendUint16(b, uint16(n))
	default:
		b = append(b, 0x80|127)
		b = binary.BigEndian.AppendUint64(b, uint64(n))
	}
	b = append(b, 1, 2, 3, 4)
	return append(b, make([]byte, n)...)
}

func TestFrameGuard(t *testing.T) {
	for _, tc := range []struct {
		name   string
		frames []int
		chunk  int
		ok     bool
	}{
		{"frames=small", []int{0, 10, 125}, 1, true},
		{"frames=ext16", []int{126, 32 << 10}, 7, true},
		{"frames=over", []int{10, 32<<10 + 1}, 3, false},
		{"frames=ext64", []int{70000}, 4096, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := &frameGuard{limit: 32 << 10}
			var stream []byte
			for _, n := range tc.frames {
				stream = append(stream, frameBytes(n)...)
			}
			var err error
			for len(stream) > 0 && err == nil {
				k := min(tc.chunk, len(stream))
				err = g.observe(stream[:k])
				stream = stream[k:]
			}
			if (err == nil) != tc.ok {
				t.Fatalf("err %v, want ok %v", err, tc.ok)
			}
			if tc.ok && (g.remaining != 0 || g.hn != 0) {
				t.Fatalf("state left: remaining %d, header %d", g.remaining, g.hn)
			}
		})
	}
}
