package ses

import (
	"slices"
	"sync/atomic"
	"time"

	"github.com/cloudemu/emulator/awswire"
)

// The sandbox quotas GetSendQuota reports.
const (
	Max24HourSend = 200
	MaxSendRate   = 1
)

// quarters is how many 15-minute intervals a day holds.
const quarters = 96

// sendCounter counts the messages one scope sent in the last 24 hours, by
// 15-minute interval (GetSendStatistics' granularity). Each slot packs its
// interval number (high 32 bits) with its count, so that a send is one
// compare-and-swap and nothing locks.
type sendCounter struct {
	slots [quarters]atomic.Uint64
}

func quarterOf(t time.Time) uint64 { return uint64(t.Unix() / 900) }

func (c *sendCounter) add(now time.Time) {
	q := quarterOf(now) & 0xffffffff
	slot := &c.slots[q%quarters]
	for {
		old := slot.Load()
		next := q<<32 | 1
		if old>>32 == q {
			next = old + 1
		}
		if slot.CompareAndSwap(old, next) {
			return
		}
	}
}

// SendPoint is one 15-minute interval's count.
type SendPoint struct {
	Start time.Time
	Sent  int64
}

// points returns the intervals of the last 24 hours that sent something,
// oldest first.
func (c *sendCounter) points(now time.Time) []SendPoint {
	cur := quarterOf(now) & 0xffffffff
	var out []SendPoint
	for i := range c.slots {
		v := c.slots[i].Load()
		q, n := v>>32, v&0xffffffff
		if n == 0 || q > cur || q+quarters <= cur {
			continue
		}
		out = append(out, SendPoint{Start: time.Unix(int64(q)*900, 0).UTC(), Sent: int64(n)})
	}
	slices.SortFunc(out, func(a, b SendPoint) int { return a.Start.Compare(b.Start) })
	return out
}

func (c *sendCounter) reset() {
	for i := range c.slots {
		c.slots[i].Store(0)
	}
}

// SentLast24Hours is how many messages the scope sent in the last 24 hours.
func (s *Service) SentLast24Hours(sc awswire.Scope) int64 {
	var n int64
	for _, p := range s.SendStatistics(sc) {
		n += p.Sent
	}
	return n
}

// SendStatistics returns the scope's sends of the last 24 hours by
// 15-minute interval, oldest first.
func (s *Service) SendStatistics(sc awswire.Scope) []SendPoint {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.sent.points(s.now())
}
