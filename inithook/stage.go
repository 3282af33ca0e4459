package inithook

import "strings"

// Stage is a moment of the emulator's life at which hooks run.
type Stage int

// The stages, in the order the emulator passes them.
const (
	// Boot runs before the emulator opens its store or serves anything.
	Boot Stage = iota
	// Start runs once the configuration is loaded and the store opened,
	// before the port is opened.
	Start
	// Ready runs once the server is listening and serving.
	Ready
	// Shutdown runs on a graceful shutdown, while requests are still served.
	Shutdown
)

// Stages lists every stage in order.
var Stages = [...]Stage{Boot, Start, Ready, Shutdown}

var stageNames = [...]string{"BOOT", "START", "READY", "SHUTDOWN"}

// String is the stage's name as the status reports it: BOOT, START, READY or
// SHUTDOWN.
func (s Stage) String() string {
	if s < 0 || int(s) >= len(stageNames) {
		return "UNKNOWN"
	}
	return stageNames[s]
}

// Dir is the stage's directory under an init directory, e.g. "ready.d".
func (s Stage) Dir() string { return strings.ToLower(s.String()) + ".d" }

// ParseStage returns the stage called name, in any case ("ready", "READY").
func ParseStage(name string) (Stage, bool) {
	for _, s := range Stages {
		if strings.EqualFold(name, s.String()) {
			return s, true
		}
	}
	return 0, false
}

// State is where one script is.
type State string

// The states of a script.
const (
	StateUnknown    State = "UNKNOWN" // found, not run yet
	StateRunning    State = "RUNNING"
	StateSuccessful State = "SUCCESSFUL"
	StateError      State = "ERROR" // non-zero exit, could not start, timed out or interrupted
)
