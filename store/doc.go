// Package store is the durable record store behind EMULATOR_STATE: with
// "memory" it keeps nothing (the actors hold all state), with "persistent" it
// writes records to an embedded bbolt file in EMULATOR_DATA_DIR and loads
// them back on start. Owners write only the records they changed, and Apply
// returns only once those changes are durable; concurrent writes are group
// committed. The package must not take whole-state snapshots and must know
// nothing about services: it sees opaque keys (built with Key) and bytes.
package store
