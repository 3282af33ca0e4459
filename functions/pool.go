package functions

import (
	"slices"
	"sync"
	"time"
)

// pool is the warm instances of one function version with one code and
// one configuration. It grows on demand up to MaxConcurrency instances
// (starting ones count), and each idle instance is reaped after IdleTimeout.
type pool struct {
	key     string
	arn     string
	runtime *Runtime

	mu   sync.Mutex
	idle []*instance // most recently used last: reuse keeps caches warm, the rest age out
	all  map[*instance]struct{}
	dead bool // evicted or closed: instances are stopped, not kept
	// waiters are the invocations waiting for an instance, first come
	// first served: a released instance, or a freed place, goes to the
	// first of them directly, so a release wakes one waiter, not all.
	waiters []chan grant
}

// grant is what a waiter is handed: an instance (cold when it is new and
// unstarted), or errPoolGone.
type grant struct {
	in   *instance
	cold bool
	err  error
}

// acquire takes an idle instance, or a new (unstarted) one when the pool
// may grow; a full pool is waited on until wait ends (AWS would have
// scaled out: the cap is the emulator's, so a load test past it queues
// instead of failing), and then answers TooManyRequestsException. A dead
// pool answers errPoolGone: the caller looks it up again.
func (p *pool) acquire(wait <-chan struct{}) (in *instance, cold bool, err error) {
	p.mu.Lock()
	if p.dead {
		p.mu.Unlock()
		return nil, false, errPoolGone
	}
	for n := len(p.idle); n > 0; n = len(p.idle) {
		in = p.idle[n-1]
		p.idle = p.idle[:n-1]
		in.idle = false
		if !in.hasExited() {
			p.mu.Unlock()
			return in, false, nil
		}
		// Died while idle and not yet retired by its wait: it retires itself.
	}
	if len(p.all) < p.runtime.cfg.MaxConcurrency {
		in = p.grow()
		p.mu.Unlock()
		return in, true, nil
	}
	ch := make(chan grant, 1)
	p.waiters = append(p.waiters, ch)
	p.mu.Unlock()
	select {
	case g := <-ch:
		return g.in, g.cold, g.err
	case <-wait:
	}
	p.mu.Lock()
	if i := slices.Index(p.waiters, ch); i >= 0 {
		p.waiters = slices.Delete(p.waiters, i, i+1)
		p.mu.Unlock()
		return nil, false, errTooManyRequests()
	}
	p.mu.Unlock()
	// Granted as the wait ended: the grant is passed on.
	if g := <-ch; g.in != nil {
		if g.cold {
			p.retire(g.in)
			g.in.stop()
		} else {
			p.release(g.in)
		}
	}
	return nil, false, errTooManyRequests()
}

// grow adds a new, unstarted instance. p.mu is held.
func (p *pool) grow() *instance {
	in := newInstance(p)
	p.all[in] = struct{}{}
	return in
}

// nextWaiter takes the first waiter, or nil. p.mu is held.
func (p *pool) nextWaiter() chan grant {
	if len(p.waiters) == 0 {
		return nil
	}
	ch := p.waiters[0]
	p.waiters[0] = nil
	p.waiters = p.waiters[1:]
	return ch
}

// placeFreed hands a freed place to the first waiter as a new instance, or
// tells every waiter of a dead pool to look again. p.mu is held.
func (p *pool) placeFreed() {
	if p.dead {
		for ch := p.nextWaiter(); ch != nil; ch = p.nextWaiter() {
			ch <- grant{err: errPoolGone}
		}
		return
	}
	if len(p.all) < p.runtime.cfg.MaxConcurrency {
		if ch := p.nextWaiter(); ch != nil {
			ch <- grant{in: p.grow(), cold: true}
		}
	}
}

// release returns an instance after an invocation it answered.
func (p *pool) release(in *instance) {
	p.mu.Lock()
	if p.dead || in.retired || in.hasExited() {
		p.mu.Unlock()
		p.retire(in)
		in.stop()
		return
	}
	if ch := p.nextWaiter(); ch != nil {
		p.mu.Unlock()
		ch <- grant{in: in}
		return
	}
	in.idle = true
	in.idleSince = time.Now()
	p.idle = append(p.idle, in)
	if in.idleTimer == nil {
		in.idleTimer = time.AfterFunc(p.runtime.cfg.IdleTimeout, func() { p.reap(in) })
	} else {
		in.idleTimer.Reset(p.runtime.cfg.IdleTimeout)
	}
	p.mu.Unlock()
}

// reap stops an instance that has been idle for IdleTimeout. A timer that
// fires for an instance used since is ignored: release has set it again.
func (p *pool) reap(in *instance) {
	p.mu.Lock()
	if !in.idle || in.retired || time.Since(in.idleSince) < p.runtime.cfg.IdleTimeout {
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	p.retire(in)
	in.stop()
}

// retire takes an instance out of the pool for good, freeing its place.
// It does not stop the process; callers do (or it has exited).
func (p *pool) retire(in *instance) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if in.retired {
		return
	}
	in.retired = true
	delete(p.all, in)
	if in.idle {
		in.idle = false
		for i, x := range p.idle {
			if x == in {
				p.idle = append(p.idle[:i], p.idle[i+1:]...)
				break
			}
		}
	}
	if in.idleTimer != nil {
		in.idleTimer.Stop()
	}
	// An empty pool leaves the directory, so pools of replaced code or
	// configuration do not pile up.
	if len(p.all) == 0 && len(p.waiters) == 0 && !p.dead {
		p.dead = true
		p.runtime.pools.CompareAndDelete(p.key, p)
	}
	p.placeFreed()
}

// kill marks the pool dead and stops its idle instances, or every instance
// when all is set. Busy ones that are spared stop when released.
func (p *pool) kill(all bool) []*instance {
	p.mu.Lock()
	p.dead = true
	p.placeFreed()
	var victims []*instance
	if all {
		for in := range p.all {
			victims = append(victims, in)
		}
	} else {
		victims = append(victims, p.idle...)
	}
	p.mu.Unlock()
	for _, in := range victims {
		p.retire(in)
		in.stop()
	}
	return victims
}
