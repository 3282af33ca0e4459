// Package compat serves the emulator's own endpoints (/_emulator/...) and
// the compatibility paths existing test suites call (/_compat, /_cloud,
// /_localstack, /_aws). Rows is the one table of those paths and how each
// is answered: served, served only with EMULATOR_DEBUG=true, read-only, or
// a shaped 404 naming its replacement or why there is none; the routes,
// the fallback and the README table all come from it. It reports and
// resets state through what it is given; it owns no resource and knows
// nothing of AWS wire formats.
package compat
