//go:build race

package httpfront_test

// raceEnabled: the race detector adds allocations of its own.
const raceEnabled = true
