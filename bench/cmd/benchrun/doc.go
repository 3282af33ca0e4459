// Command benchrun drives the comparisons behind bench/README.md.
//
//	benchrun serve-bare -addr 127.0.0.1:0
//	benchrun compare -conns 32 -duration 5s -runs 3 [-emulator BIN] [-moto BIN]
//	benchrun startup -emulator BIN -runs 5
//	benchrun overload -emulator BIN -runs 3
//	benchrun sqs-longpoll [-emulator BIN] [-moto BIN] -samples 1000
//	benchrun sqs-memory [-emulator BIN] [-moto BIN] -messages 100000
//	benchrun crash -emulator BIN -trials 20 -writers 32 -writes-before-kill 1500
//	benchrun soak -emulator BIN [-duration 10m] [-rate auto|N] [-out DIR]
//
// serve-bare runs the bare fasthttp server (the ceiling) and prints
// "listening <addr>" as its first line of stdout. compare re-executes itself
// as serve-bare, starts the emulator binary for scenarios that need it, and
// loads each target in turn; startup measures how long the emulator takes
// to answer its health check and how much memory it then holds; overload
// drives a keyed method far past its usage plan's rate and compares the
// requests admitted with burst + rate × elapsed.
//
// Peers: a scenario with a moto twin (the in-memory SQS ones) also runs, when compare
// has -moto BIN (moto_server), against its own fresh `moto_server -H
// 127.0.0.1 -p PORT`, started with the emulators and ready once GET /
// answers 200. Its row is NAME@moto, measured right after NAME in every
// round so that both see the same machine; NAME's ratio column is
// emulator / moto, and the per-round ratios follow the table. Without
// -moto the twin is skipped with a note, as an emulator scenario is
// without -emulator; either side runs without the other. A spread
// scenario (16 queues) is also compared with its one-queue scenario under
// the table. SQSReceiveDelete's operation is a ReceiveMessage and the
// DeleteMessage of its receipt handle (bench.Target.Step); its queues are
// topped up before every run, unmeasured, with what the run can take at
// the best rate seen so far, and an empty receive is reported, not
// counted. sqs-longpoll measures how soon a long-polling ReceiveMessage
// answers once a message is sent; sqs-memory how much memory a queued
// message costs (resident memory, and the emulator's live heap through
// /_emulator/debug/health with EMULATOR_DEBUG=true). crash kills a
// persistent emulator with SIGKILL under concurrent writers across
// services, restarts it on the same data dir and fails if any write it
// acknowledged is missing. soak drives a mixed control-plane, data-plane
// and SQS load with periodic resets at a target rate for minutes, samples
// the emulator's memory, goroutines and the answers into DIR/soak.csv and
// DIR/soak.png, and fails on an unexpected answer or growth (soak.go).
//
// It owns its child processes: each runs in its own process group and is
// killed (SIGTERM, then SIGKILL after a grace period) when benchrun returns,
// fails or is interrupted. It must not send traffic anywhere but loopback.
// The report goes to stdout; logs and the children's output go to stderr
// (moto's, one line per request, only into error messages).
package main
