// Package httpfronttest starts a real emulator on a loopback port for tests,
// and builds AWS SDK clients that talk to it.
package httpfronttest
