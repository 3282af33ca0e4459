// Package config owns the emulator's one Config: read from the EMULATOR_*
// environment variables (flags may override), validated in one place, then
// passed explicitly. It holds no mutable globals and starts nothing.
package config
