// Package server assembles the emulator: it opens the store and the actor
// system, builds every registered service (its owners and its handlers),
// restores persisted state, mounts the emulator's own endpoints, and owns
// the lifecycle (serve, reset, shutdown). Each service is registered once,
// in services.go, behind the small Service contract; nothing else in the
// emulator names the services one by one.
package server
