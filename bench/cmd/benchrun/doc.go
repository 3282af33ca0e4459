// Command benchrun drives the comparisons behind bench/README.md.
//
//	benchrun serve-bare -addr 127.0.0.1:0
//	benchrun compare -conns 32 -duration 5s -runs 3 [-emulator BIN]
//	benchrun startup -emulator BIN -runs 5
//	benchrun overload -emulator BIN -runs 3
//
// serve-bare runs the bare fasthttp server (the ceiling) and prints
// "listening <addr>" as its first line of stdout. compare re-executes itself
// as serve-bare, starts the emulator binary for scenarios that need it, and
// loads each target in turn; startup measures how long the emulator takes
// to answer its health check and how much memory it then holds; overload
// drives a keyed method far past its usage plan's rate and compares the
// requests admitted with burst + rate × elapsed.
//
// It owns its child processes: each runs in its own process group and is
// killed (SIGTERM, then SIGKILL after a grace period) when benchrun returns,
// fails or is interrupted. It must not send traffic anywhere but loopback.
// The report goes to stdout; logs and the children's output go to stderr.
package main
