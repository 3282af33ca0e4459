// Package functions runs Lambda functions as native processes that speak
// the real Lambda Runtime API, without containers: each execution
// environment is a process in its own process group with a Runtime API
// server of its own on loopback; provided.* functions run their zip's
// bootstrap, python3.x and nodejs*.x functions run the machine's
// interpreter with a small bootstrap embedded here. Code is unpacked once
// per SHA-256; instances are kept warm per function version, code and
// configuration, grow on demand up to a limit (past it invocations wait
// for a free instance, then TooManyRequests), are
// reaped when idle and killed, group and all, on timeout and Close.
package functions
