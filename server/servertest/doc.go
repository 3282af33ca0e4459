// Package servertest starts whole emulators on loopback for tests, and
// builds AWS SDK configurations that talk to them.
package servertest
