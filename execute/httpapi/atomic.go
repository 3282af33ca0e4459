package httpapi

import (
	"sync/atomic"

	"github.com/cloudemu/emulator/metrics"
)

type metricsHandle struct {
	gen   uint64
	stage string
	route metrics.Route
}

type atomicRoute = atomic.Pointer[metricsHandle]
