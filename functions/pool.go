package functions

import (
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
	// freed is closed (and replaced) when an instance comes back or a
	// place frees: invocations waiting for one look again.
	freed chan struct{}
}

// acquire takes an idle instance, or a new (unstarted) one when the pool
// may grow; a full pool is waited on until wait ends (AWS would have
// scaled out: the cap is the emulator's, so a load test past it queues
// instead of failing), and then answers TooManyRequestsException. A dead
// pool answers errPoolGone: the caller looks it up again.
func (p *pool) acquire(wait <-chan struct{}) (in *instance, cold bool, err error) {
	for {
		in, cold, freed, err := p.tryAcquire()
		if freed == nil {
			return in, cold, err
		}
		select {
		case <-freed:
		case <-wait:
			return nil, false, errTooManyRequests()
		}
	}
}

// tryAcquire is acquire without waiting: a full pool answers the channel
// to wait on.
func (p *pool) tryAcquire() (in *instance, cold bool, freed <-chan struct{}, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.dead {
		return nil, false, nil, errPoolGone
	}
	for n := len(p.idle); n > 0; n = len(p.idle) {
		in = p.idle[n-1]
		p.idle = p.idle[:n-1]
		in.idle = false
		if !in.hasExited() {
			return in, false, nil, nil
		}
		// Died while idle and not yet retired by its wait: it retires itself.
	}
	if len(p.all) >= p.runtime.cfg.MaxConcurrency {
		if p.freed == nil {
			p.freed = make(chan struct{})
		}
		return nil, false, p.freed, nil
	}
	in = newInstance(p)
	p.all[in] = struct{}{}
	return in, true, nil, nil
}

// signal wakes the invocations waiting for an instance. p.mu is held.
func (p *pool) signal() {
	if p.freed != nil {
		close(p.freed)
		p.freed = nil
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
	in.idle = true
	in.idleSince = time.Now()
	p.idle = append(p.idle, in)
	p.signal()
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
	p.signal()
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
	if len(p.all) == 0 && !p.dead {
		p.dead = true
		p.runtime.pools.CompareAndDelete(p.key, p)
	}
}

// kill marks the pool dead and stops its idle instances, or every instance
// when all is set. Busy ones that are spared stop when released.
func (p *pool) kill(all bool) []*instance {
	p.mu.Lock()
	p.dead = true
	p.signal()
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
