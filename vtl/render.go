package vtl

import (
	"fmt"
	"sync"
	"time"
)

// Render renders t with vars as the top-level variables. vars is not
// modified: #set writes into the render's own scope, except through
// references into mutable values (#set($context.responseOverride.status
// = 400) changes the map vars holds, which is how overrides come out).
// Host objects' Call receives arguments that are valid only during the
// call.
func (t *Template) Render(vars map[string]Value, lim Limits) (out string, err error) {
	r := rendererPool.Get().(*renderer)
	r.reset(t, lim)
	for i, name := range t.names {
		r.slots[i] = vars[name]
	}
	defer func() {
		if p := recover(); p != nil {
			out, err = "", &Error{Line: 1, Col: 1, Msg: fmt.Sprint("internal error: ", p)}
		}
		r.release()
	}()
	if err := r.block(t.root); err != nil {
		return "", err
	}
	return string(r.out), nil
}

var rendererPool = sync.Pool{New: func() any { return new(renderer) }}

// renderer is one render's state, reused through a pool.
type renderer struct {
	t        *Template
	slots    []Value
	out      []byte
	args     []Value // a stack of method arguments
	lim      Limits
	steps    int
	depth    int
	deadline time.Time
	stopped  bool // #stop
	breaking bool // #break, until the loop it leaves
	budget   int  // work left for deep comparisons
}

func (r *renderer) reset(t *Template, lim Limits) {
	if lim.MaxSteps <= 0 {
		lim.MaxSteps = DefaultLimits.MaxSteps
	}
	if lim.MaxDepth <= 0 {
		lim.MaxDepth = DefaultLimits.MaxDepth
	}
	if lim.MaxOutput <= 0 {
		lim.MaxOutput = DefaultLimits.MaxOutput
	}
	if lim.Timeout <= 0 {
		lim.Timeout = DefaultLimits.Timeout
	}
	r.t, r.lim = t, lim
	r.steps, r.depth, r.stopped, r.breaking = 0, 0, false, false
	r.deadline = time.Now().Add(lim.Timeout)
	if cap(r.slots) < len(t.names) {
		r.slots = make([]Value, len(t.names))
	}
	r.slots = r.slots[:len(t.names)]
	r.out = r.out[:0]
	r.args = r.args[:0]
}

func (r *renderer) release() {
	clear(r.slots)
	clear(r.args[:cap(r.args)])
	r.t = nil
	if cap(r.out) > 256<<10 {
		r.out = nil // do not keep a hostile render's memory
	}
	rendererPool.Put(r)
}

func (r *renderer) errAt(pos int, msg string) *Error {
	line, col := position(r.t.src, pos)
	return &Error{Line: line, Col: col, Msg: msg}
}

func (r *renderer) limitAt(pos int, msg string) *Error {
	e := r.errAt(pos, msg)
	e.cause = ErrLimit
	return e
}

// charge counts n steps of work and checks the clock now and then.
func (r *renderer) charge(n int, pos int) error {
	r.steps += n
	if r.steps > r.lim.MaxSteps {
		return r.limitAt(pos, "the template ran too many steps")
	}
	if r.steps&255 < n || n > 255 {
		if time.Now().After(r.deadline) {
			return r.limitAt(pos, "the template ran too long")
		}
	}
	return nil
}

func (r *renderer) checkOutput(pos int) error {
	if len(r.out) > r.lim.MaxOutput {
		return r.limitAt(pos, "the template's output is too large")
	}
	return nil
}

func (r *renderer) block(b block) error {
	for _, n := range b {
		if r.stopped || r.breaking {
			return nil
		}
		switch n := n.(type) {
		case *textNode:
			r.out = append(r.out, n.s...)
			if err := r.checkOutput(0); err != nil {
				return err
			}
		case *refNode:
			if err := r.charge(1, n.ref.pos); err != nil {
				return err
			}
			v, err := r.ref(n.ref)
			if err != nil {
				return err
			}
			if err := r.write(v, n.ref.pos); err != nil {
				return err
			}
		case *setNode:
			if err := r.charge(1, n.pos); err != nil {
				return err
			}
			if err := r.set(n); err != nil {
				return err
			}
		case *ifNode:
			if err := r.ifNode(n); err != nil {
				return err
			}
		case *foreachNode:
			if err := r.foreach(n); err != nil {
				return err
			}
		case *defineNode:
			r.slots[n.slot] = &defined{body: n.body}
		case *macroCall:
			if err := r.macroCall(n); err != nil {
				return err
			}
		case *breakNode:
			r.breaking = true
		case *stopNode:
			r.stopped = true
		}
	}
	return nil
}

// defined is the value #define gives a variable: its block, rendered
// where the variable is used.
type defined struct{ body block }

func (r *renderer) write(v Value, pos int) error {
	switch v := v.(type) {
	case string:
		r.out = append(r.out, v...)
	case *defined:
		if err := r.nest(pos); err != nil {
			return err
		}
		err := r.block(v.body)
		r.depth--
		if err != nil {
			return err
		}
	default:
		r.out = appendString(r.out, v, 0, r.lim.MaxOutput)
	}
	return r.checkOutput(pos)
}

func (r *renderer) nest(pos int) error {
	r.depth++
	if r.depth > r.lim.MaxDepth {
		r.depth--
		return r.limitAt(pos, "the template nests too deeply")
	}
	return nil
}

// str is v as text, rendering #define blocks.
func (r *renderer) str(v Value, pos int) (string, error) {
	switch v := v.(type) {
	case string:
		return v, nil
	case *defined:
		start := len(r.out)
		if err := r.write(v, pos); err != nil {
			return "", err
		}
		s := string(r.out[start:])
		r.out = r.out[:start]
		return s, nil
	}
	if err := r.charge(1, pos); err != nil {
		return "", err
	}
	b := appendString(nil, v, 0, r.lim.MaxOutput)
	if len(b) > r.lim.MaxOutput {
		return "", r.limitAt(pos, "a string grew too large")
	}
	return string(b), nil
}

func (r *renderer) ifNode(n *ifNode) error {
	for i, c := range n.conds {
		v, err := r.eval(c)
		if err != nil {
			return err
		}
		if err := r.charge(1, exprPos(c)); err != nil {
			return err
		}
		if truthy(v) {
			return r.block(n.blocks[i])
		}
	}
	return r.block(n.orElse)
}

// truthy is Velocity's condition: null and false are false, anything else
// (an empty string too) is true. Undefined references evaluate to "" on
// API Gateway, so they are true.
func truthy(v Value) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	}
	return true
}

// ref evaluates a reference. A null anywhere along it makes the whole
// reference the empty string: API Gateway answers invalid references
// with "" where Java Velocity would keep the text.
func (r *renderer) ref(x *refExpr) (Value, error) {
	v := r.slots[x.slot]
	for i := range x.parts {
		if v == nil {
			return "", nil
		}
		p := &x.parts[i]
		var err error
		switch p.kind {
		case partProp:
			v = r.prop(v, p.name)
		case partMethod:
			v, err = r.method(v, p)
		case partIndex:
			var idx Value
			if idx, err = r.eval(p.idx); err == nil {
				v = index(v, idx)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	if v == nil {
		return "", nil
	}
	return v, nil
}

func (r *renderer) method(v Value, p *refPart) (Value, error) {
	start := len(r.args)
	for _, a := range p.args {
		x, err := r.eval(a)
		if err != nil {
			r.args = r.args[:start]
			return nil, err
		}
		r.args = append(r.args, x)
	}
	args := r.args[start:]
	res, err := r.call(v, p.name, args, p.pos)
	clear(args)
	r.args = r.args[:start]
	if err != nil {
		if e, ok := err.(*Error); ok {
			return nil, e
		}
		return nil, r.errAt(p.pos, fmt.Sprintf("%s(): %v", p.name, err))
	}
	return res, nil
}

func index(v, idx Value) Value {
	switch c := v.(type) {
	case *List:
		i, ok := toInt(idx)
		if !ok || i < 0 || i >= int64(len(c.Items)) {
			return nil
		}
		return c.Items[i]
	case *Map:
		x, _ := c.Get(String(idx))
		return x
	case Object:
		x, _, _ := c.Call("get", []Value{idx})
		return x
	}
	return nil
}

func (r *renderer) set(n *setNode) error {
	v, err := r.eval(n.value)
	if err != nil {
		return err
	}
	t := n.target
	if len(t.parts) == 0 {
		r.slots[t.slot] = v
		return nil
	}
	// Walk to the container, then assign its last part.
	c := r.slots[t.slot]
	last := len(t.parts) - 1
	for i := 0; i < last && c != nil; i++ {
		p := &t.parts[i]
		switch p.kind {
		case partProp:
			c = r.prop(c, p.name)
		case partMethod:
			if c, err = r.method(c, p); err != nil {
				return err
			}
		case partIndex:
			idx, err := r.eval(p.idx)
			if err != nil {
				return err
			}
			c = index(c, idx)
		}
	}
	p := &t.parts[last]
	var key Value
	switch p.kind {
	case partProp:
		key = p.name
	case partIndex:
		if key, err = r.eval(p.idx); err != nil {
			return err
		}
	default:
		return r.errAt(n.pos, "#set cannot assign to a method call")
	}
	switch c := c.(type) {
	case *Map:
		ks, err := r.str(key, n.pos)
		if err != nil {
			return err
		}
		c.Put(ks, v)
	case *List:
		i, ok := toInt(key)
		if !ok || i < 0 || i >= int64(len(c.Items)) {
			return r.errAt(n.pos, fmt.Sprintf("#set: index %s out of bounds for a list of %d", String(key), len(c.Items)))
		}
		c.Items[i] = v
	case Setter:
		ks, err := r.str(key, n.pos)
		if err != nil {
			return err
		}
		c.SetProperty(ks, v)
	}
	// Anything else (null, a string) cannot take a property; Velocity
	// logs and goes on.
	return nil
}

// Setter is implemented by host objects with writable properties.
type Setter interface {
	SetProperty(name string, v Value)
}

// loop is $foreach inside a #foreach.
type loop struct {
	index   int
	hasNext bool
}

func (l *loop) property(name string) (Value, bool) {
	switch name {
	case "index":
		return int64(l.index), true
	case "count":
		return int64(l.index + 1), true
	case "hasNext":
		return l.hasNext, true
	case "first":
		return l.index == 0, true
	case "last":
		return !l.hasNext, true
	}
	return nil, false
}

func (r *renderer) foreach(n *foreachNode) error {
	var (
		items    []Value
		entries  []mapEntry
		from, to int64
		count    int
		isRange  bool
	)
	if rg, ok := n.iter.(*rangeLit); ok {
		var ok bool
		var err error
		if from, to, ok, err = r.rangeBounds(rg); err != nil || !ok {
			return err
		}
		isRange = true
		if from <= to {
			count = int(min(to-from, int64(r.lim.MaxSteps))) + 1
		} else {
			count = int(min(from-to, int64(r.lim.MaxSteps))) + 1
		}
	} else {
		v, err := r.eval(n.iter)
		if err != nil {
			return err
		}
		switch c := v.(type) {
		case *List:
			items = c.Items
			count = len(items)
		case *Map:
			entries = c.entries
			count = len(entries)
		case Iterable:
			items = c.Values()
			count = len(items)
		default:
			return nil // Velocity skips what it cannot iterate
		}
	}
	s := r.slots
	savedVar, savedLoop, savedCount, savedHasNext := s[n.slot], s[r.t.foreachSlot], s[r.t.countSlot], s[r.t.hasNextSlot]
	state := &loop{}
	s[r.t.foreachSlot] = state
	var err error
	for i := 0; i < count; i++ {
		if err = r.charge(1, n.pos); err != nil {
			break
		}
		var item Value
		switch {
		case isRange && from <= to:
			item = from + int64(i)
		case isRange:
			item = from - int64(i)
		case entries != nil:
			item = entries[i].val
		default:
			item = items[i]
		}
		state.index, state.hasNext = i, i < count-1
		s[n.slot] = item
		s[r.t.countSlot] = int64(i + 1)
		s[r.t.hasNextSlot] = state.hasNext
		if err = r.block(n.body); err != nil {
			break
		}
		if r.breaking {
			r.breaking = false
			break
		}
		if r.stopped {
			break
		}
	}
	s[n.slot], s[r.t.foreachSlot], s[r.t.countSlot], s[r.t.hasNextSlot] = savedVar, savedLoop, savedCount, savedHasNext
	return err
}

// Iterable is implemented by host objects #foreach can walk.
type Iterable interface {
	Values() []Value
}

func (r *renderer) macroCall(n *macroCall) error {
	m := r.t.macros[n.name]
	if !r.t.opts.Macros || m == nil {
		r.out = append(r.out, n.raw...)
		return r.checkOutput(n.pos)
	}
	if err := r.charge(1, n.pos); err != nil {
		return err
	}
	vals := make([]Value, len(m.params))
	for i := range m.params {
		if i < len(n.args) {
			v, err := r.eval(n.args[i])
			if err != nil {
				return err
			}
			vals[i] = v
		}
	}
	saved := make([]Value, len(m.params))
	for i, sl := range m.params {
		saved[i] = r.slots[sl]
		r.slots[sl] = vals[i]
	}
	if err := r.nest(n.pos); err != nil {
		return err
	}
	err := r.block(m.body)
	r.depth--
	for i, sl := range m.params {
		r.slots[sl] = saved[i]
	}
	return err
}
