package apigateway

import (
	"testing"

	"github.com/cloudemu/emulator/actors/actorstest"
)

// testService starts a service in a fresh actor system (on a memory store
// unless an option says otherwise).
func testService(t testing.TB, opts ...actorstest.Option) *Service {
	t.Helper()
	env := actorstest.New(t, opts...)
	return New(env.Sys, env.Store, env.Now, env.Log)
}
