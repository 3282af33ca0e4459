// Package compat serves the emulator's own endpoints (/_emulator/...) and
// the compatibility paths existing test suites call (/_compat, /_cloud,
// /_localstack, /_aws). It reports and resets state through what it is
// given; it owns no resource and knows nothing of AWS wire formats.
package compat
