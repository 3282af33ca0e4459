package rest

import (
	"github.com/cloudemu/emulator/vtl"
	"github.com/cloudemu/emulator/vtl/gateway"
)

// contextObject is $context for templates. It answers each variable when a
// template reads it, so that a template reading $context.stage does not pay
// for the twenty-odd others; the override maps and what templates write
// are kept, so that the request template's overrides reach the response
// template (docs/apigateway-execution.md §5).
type contextObject struct {
	inv *invocation
	// identity, error, authorizer: built on first read.
	identity, errMap, authMap *vtl.Map
	// requestOverride, responseOverride: created on first use.
	reqOverride, respOverride *vtl.Map
	// written holds what templates set on $context itself.
	written *vtl.Map
}

var (
	_ vtl.Object   = (*contextObject)(nil)
	_ vtl.Setter   = (*contextObject)(nil)
	_ vtl.Stringer = (*contextObject)(nil)
)

// Property implements vtl.Object.
func (c *contextObject) Property(name string) (vtl.Value, bool) {
	if c.written != nil {
		if v, ok := c.written.Get(name); ok {
			return v, true
		}
	}
	inv := c.inv
	switch name {
	case "identity":
		if c.identity == nil {
			c.identity = identityMap(inv)
		}
		return c.identity, true
	case "authorizer":
		if inv.auth == nil {
			return nil, false
		}
		if c.authMap == nil {
			c.authMap = inv.authorizerMap()
		}
		return c.authMap, true
	case "requestOverride":
		if c.reqOverride == nil {
			c.reqOverride = vtl.NewMap(3)
			c.reqOverride.Put("header", vtl.NewMap(0))
			c.reqOverride.Put("path", vtl.NewMap(0))
			c.reqOverride.Put("querystring", vtl.NewMap(0))
		}
		return c.reqOverride, true
	case "responseOverride":
		if c.respOverride == nil {
			c.respOverride = vtl.NewMap(2)
			c.respOverride.Put("header", vtl.NewMap(0))
		}
		return c.respOverride, true
	case "error":
		if inv.err == nil {
			return nil, false
		}
		if c.errMap == nil {
			g := inv.gatewayContext()
			m, _ := gateway.NewContext(gateway.Context{Error: g.Error}).Get("error")
			c.errMap, _ = m.(*vtl.Map)
		}
		return c.errMap, true
	case "isCanaryRequest":
		if !inv.canary {
			return nil, false
		}
		return inv.isCanary, true
	case "requestTimeEpoch":
		return inv.req.Received.UnixMilli(), true
	}
	if v, ok := inv.contextValue(name); ok {
		return v, true
	}
	return nil, false
}

// Call implements vtl.Object: $context.get(k) and the map methods a
// template may use on it.
func (c *contextObject) Call(name string, args []vtl.Value) (vtl.Value, bool, error) {
	switch {
	case name == "get" && len(args) == 1:
		v, _ := c.Property(vtl.String(args[0]))
		return v, true, nil
	case name == "containsKey" && len(args) == 1:
		_, ok := c.Property(vtl.String(args[0]))
		return ok, true, nil
	case name == "put" && len(args) == 2:
		prev, _ := c.Property(vtl.String(args[0]))
		c.SetProperty(vtl.String(args[0]), args[1])
		return prev, true, nil
	case name == "toString" && len(args) == 0:
		return c.String(), true, nil
	}
	return nil, false, nil
}

// SetProperty implements vtl.Setter: #set($context.name = v).
func (c *contextObject) SetProperty(name string, v vtl.Value) {
	switch name {
	case "requestOverride", "responseOverride":
		if m, ok := v.(*vtl.Map); ok {
			if name == "requestOverride" {
				c.reqOverride = m
			} else {
				c.respOverride = m
			}
			return
		}
	}
	if c.written == nil {
		c.written = vtl.NewMap(2)
	}
	c.written.Put(name, v)
}

// String renders the whole context, as printing $context does.
func (c *contextObject) String() string {
	m := gateway.NewContext(c.inv.gatewayContext())
	if c.reqOverride != nil {
		m.Put("requestOverride", c.reqOverride)
	}
	if c.respOverride != nil {
		m.Put("responseOverride", c.respOverride)
	}
	return vtl.String(m)
}

// overrides reads what templates wrote into the override maps.
func (c *contextObject) overrides() gateway.Overrides {
	if c.reqOverride == nil && c.respOverride == nil {
		return gateway.Overrides{}
	}
	m := vtl.NewMap(2)
	if c.reqOverride != nil {
		m.Put("requestOverride", c.reqOverride)
	}
	if c.respOverride != nil {
		m.Put("responseOverride", c.respOverride)
	}
	return gateway.ReadOverrides(m)
}

func identityMap(inv *invocation) *vtl.Map {
	m := vtl.NewMap(4)
	for _, k := range []string{"apiKey", "apiKeyId", "sourceIp", "userAgent"} {
		if v, ok := inv.contextValue("identity." + k); ok {
			m.Put(k, v)
		}
	}
	return m
}
