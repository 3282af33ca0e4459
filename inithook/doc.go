// Package inithook runs the emulator's init hooks: the executable *.sh
// scripts under <dir>/boot.d, start.d, ready.d and shutdown.d of each init
// directory, one at a time, each bounded by a timeout, and publishes their
// states for the status endpoints. It finds scripts once, when the Runner is
// built, and runs a stage when told to; it knows nothing of HTTP or of the
// services, and a failing script never stops the emulator.
package inithook
