package sqs

// FIFO receive index: a FIFO receive takes, in send order, the visible
// messages at the front of each message group, up to the group's first
// message in flight or delayed. The owner keeps each group's messages in
// send order and a heap of the groups that may have a visible front, so a
// receive costs what it takes, not the queue's length. Both are part of
// ownerState (rebuilt from the published state when a change failed).

// fifoGroup is one message group: the sequences of its messages in send
// order, removed ones dropped lazily from the front.
type fifoGroup struct {
	name string
	seqs []uint64
	// queued: the group has an entry in ownerState.groupHeads.
	queued bool
}

// groupHead is a group whose front may be visible, by the sequence of its
// front (stale entries have a smaller key: the front only moves forward).
type groupHead struct {
	seq uint64
	g   *fifoGroup
}

func (h groupHead) before(o groupHead) bool { return h.seq < o.seq }

// rebuildGroups indexes a FIFO queue's messages by group.
func (rt *ownerState) rebuildGroups(q *Queue) {
	rt.groups = nil
	rt.groupHeads = rt.groupHeads[:0]
	if !q.FIFO {
		return
	}
	rt.groups = map[string]*fifoGroup{}
	for _, m := range q.Messages.All() {
		name := m.extra().Group
		g := rt.groups[name]
		if g == nil {
			g = &fifoGroup{name: name, queued: true}
			rt.groups[name] = g
			rt.groupHeads.push(groupHead{m.Seq, g})
		}
		g.seqs = append(g.seqs, m.Seq)
	}
}

// front is g's first message still in the queue, nil (and g forgotten)
// when it has none.
func (w *work) front(g *fifoGroup) *Message {
	for len(g.seqs) > 0 {
		if m, ok := w.get(g.seqs[0]); ok {
			return m
		}
		g.seqs = g.seqs[1:]
	}
	if !g.queued && w.rt.groups[g.name] == g {
		delete(w.rt.groups, g.name)
	}
	return nil
}

// touchGroup notes that the group of a FIFO message may have a visible
// front now (a message arrived, turned visible or left).
func (w *work) touchGroup(name string) {
	g := w.rt.groups[name]
	if g == nil || g.queued {
		return
	}
	w.rtChanged = true
	if m := w.front(g); m != nil {
		g.queued = true
		w.rt.groupHeads.push(groupHead{m.Seq, g})
	}
}

// addToGroup appends a new FIFO message to its group.
func (w *work) addToGroup(m *Message) {
	name := m.extra().Group
	if w.rt.groups == nil {
		w.rt.groups = map[string]*fifoGroup{}
	}
	g := w.rt.groups[name]
	if g == nil {
		g = &fifoGroup{name: name}
		w.rt.groups[name] = g
	}
	g.seqs = append(g.seqs, m.Seq)
	w.rtChanged = true
	w.touchGroup(name)
}

// fifoCandidates are up to limit visible messages of a FIFO queue in send
// order, each from the visible front of its group. The groups taken from
// the heap go back into it with their front: a receive that takes nothing
// from them (a claim that failed, a move to the dead-letter queue) leaves
// them available, and one in flight is dropped at its next turn.
func (w *work) fifoCandidates(limit int) []*Message {
	rt := w.rt
	w.rtChanged = true
	// cursor: a group taken from the heap and its next candidate.
	type cursor struct {
		g   *fifoGroup
		pos int
		m   *Message
	}
	var cursors []cursor
	var cands []*Message
	defer func() {
		for _, c := range cursors {
			c.g.queued = false
			w.touchGroup(c.g.name)
		}
	}()
	for len(cands) < limit {
		// The heap's first group with a visible front, if any.
		var head *Message
		for len(rt.groupHeads) > 0 {
			top := rt.groupHeads[0]
			m := w.front(top.g)
			if m == nil || m.State != stateVisible {
				rt.groupHeads.pop()
				top.g.queued = false
				if m == nil {
					w.front(top.g) // forgets the empty group
				}
				continue
			}
			if m.Seq != top.seq {
				rt.groupHeads.pop()
				rt.groupHeads.push(groupHead{m.Seq, top.g})
				continue
			}
			head = m
			break
		}
		best := -1
		for i, c := range cursors {
			if c.m != nil && (best < 0 || c.m.Seq < cursors[best].m.Seq) {
				best = i
			}
		}
		switch {
		case head != nil && (best < 0 || head.Seq < cursors[best].m.Seq):
			g := rt.groupHeads.pop().g
			cands = append(cands, head)
			cursors = append(cursors, cursor{g: g, pos: 0})
			best = len(cursors) - 1
		case best >= 0:
			cands = append(cands, cursors[best].m)
		default:
			return cands
		}
		// The group's next message is a candidate if visible.
		c := &cursors[best]
		c.m = nil
		for c.pos++; c.pos < len(c.g.seqs); c.pos++ {
			if m, ok := w.get(c.g.seqs[c.pos]); ok {
				if m.State == stateVisible {
					c.m = m
				}
				break
			}
		}
	}
	return cands
}
