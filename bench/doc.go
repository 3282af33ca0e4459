// Package bench holds the load generator and the side-by-side comparisons
// behind bench/README.md.
//
// It owns: the closed-loop HTTP load generator (Run), the bare fasthttp
// server that is the ceiling every emulator figure is compared with
// (ServeBare), and small helpers to summarise and print results (Median,
// Summarize, Table) and to observe a process (ProcRSS, ProcCPU, WaitHTTP).
//
// It must not: send traffic anywhere but loopback (every address is
// resolved and refused unless all of its IPs are loopback), run unbounded
// loops (every run stops at a duration or a request count), or be imported
// by the emulator itself.
package bench
