package apigatewayv2

import (
	"strings"

	"github.com/cloudemu/emulator/pmap"
)

// RouteIndex indexes an API's routes so that the checks of a new route key
// cost O(log n), whatever the number of routes: route key → route id, and,
// for every level of an HTTP route's path that is a variable, the variable's
// name under the path leading to it.
type RouteIndex struct {
	keys pmap.Map[string] // route key → route id
	vars pmap.Map[string] // varKey(prefix, name, route id) → route key
}

// varKey names a variable at one level of a route: the path before it (each
// variable written "{name}"), its name and the route holding it.
func varKey(prefix, name, routeID string) string { return prefix + "\x00" + name + "\x00" + routeID }

// pathLevels calls fn for each variable level of an HTTP route key, with the
// path before it; WebSocket keys and $default have none.
func pathLevels(key string, fn func(prefix, name string)) {
	_, path, ok := strings.Cut(key, " ")
	if !ok || !strings.HasPrefix(path, "/") {
		return
	}
	var prefix strings.Builder
	for _, p := range strings.Split(strings.Trim(path, "/"), "/") {
		name, _, isVar := routePathVar(p)
		if isVar {
			fn(prefix.String(), name)
			p = "{" + name + "}"
		}
		prefix.WriteByte('/')
		prefix.WriteString(p)
	}
}

// update returns the index with route old replaced by new (either may be
// nil).
func (x RouteIndex) update(old, new *Route) RouteIndex {
	if old != nil && new != nil && old.RouteKey == new.RouteKey && old.RouteID == new.RouteID {
		return x // the key did not change
	}
	if old != nil {
		if id, _ := x.keys.Get(old.RouteKey); id == old.RouteID {
			x.keys = x.keys.Delete(old.RouteKey)
		}
		pathLevels(old.RouteKey, func(prefix, name string) { x.vars = x.vars.Delete(varKey(prefix, name, old.RouteID)) })
	}
	if new != nil {
		x.keys = x.keys.Set(new.RouteKey, new.RouteID)
		pathLevels(new.RouteKey, func(prefix, name string) {
			x.vars = x.vars.Set(varKey(prefix, name, new.RouteID), new.RouteKey)
		})
	}
	return x
}

// keyTaken reports whether a route other than self has key.
func (x RouteIndex) keyTaken(key, self string) bool {
	id, ok := x.keys.Get(key)
	return ok && id != self
}

// clash returns the key of a route other than self whose path reaches a
// level of key's path with a variable of another name: an API's resource
// tree has one variable per level.
func (x RouteIndex) clash(key, self string) (string, bool) {
	var other string
	pathLevels(key, func(prefix, name string) {
		if other != "" {
			return
		}
		for k, routeKey := range x.vars.Prefix(prefix + "\x00") {
			rest := k[len(prefix)+1:]
			n, id, _ := strings.Cut(rest, "\x00")
			if n != name && id != self {
				other = routeKey
				return
			}
		}
	})
	return other, other != ""
}

// indexRoutes builds c.RouteIndex from the routes (restores).
func indexRoutes(c *Config) {
	var x RouteIndex
	for _, r := range c.Routes.All() {
		x = x.update(nil, r)
	}
	c.RouteIndex = x
}
