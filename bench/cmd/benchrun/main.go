package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/netip"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/cloudemu/emulator/bench"
)

func main() {
	if err := run(); err != nil {
		if msg := err.Error(); !errors.Is(err, flag.ErrHelp) {
			if !strings.HasPrefix(msg, "benchrun") {
				msg = "benchrun: " + msg
			}
			fmt.Fprintln(os.Stderr, msg)
		}
		os.Exit(1)
	}
}

func run() error {
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: logLevel()}))
	// bench.ServeBare logs through the default logger.
	slog.SetDefault(log)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	self, err := os.Executable()
	if err != nil {
		return fmt.Errorf("benchrun: find own binary: %w", err)
	}
	a := &app{stdout: os.Stdout, self: self, log: log, scenarios: scenarios(), grace: defaultGrace}
	return a.dispatch(ctx, os.Args[1:])
}

// logLevel reads BENCHRUN_LOG (debug, info, warn, error); info by default.
func logLevel() slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(os.Getenv("BENCHRUN_LOG"))); err != nil {
		return slog.LevelInfo
	}
	return l
}

// app is one invocation: where the report goes, how to re-exec itself and
// which scenarios exist. Tests build their own.
type app struct {
	stdout    io.Writer
	self      string
	log       *slog.Logger
	scenarios []scenario
	grace     time.Duration // SIGTERM to SIGKILL for children
}

const usage = `usage:
  benchrun serve-bare [-addr 127.0.0.1:0] [-proxy-to HOST:PORT]
  benchrun compare [-conns 32] [-duration 5s] [-warmup 1s] [-runs 3] [-emulator BIN] [-moto BIN] [-only a,b]
  benchrun startup -emulator BIN [-runs 5] [-idle 1s]
  benchrun overload -emulator BIN [-conns 64] [-duration 10s] [-rate 2000] [-burst 1000] [-runs 3]
  benchrun sqs-longpoll [-emulator BIN] [-moto BIN] [-samples 1000] [-limit 1m] [-park 10ms]
  benchrun sqs-memory [-emulator BIN] [-moto BIN] [-messages 100000] [-moto-messages 2000] [-size 256]
  benchrun openapi-import [-emulator BIN] [-moto BIN] [-paths 200] [-imports 10]
  benchrun crash -emulator BIN [-trials 20] [-writers 32] [-writes-before-kill 1500]
  benchrun soak -emulator BIN [-duration 10m] [-rate auto|N] [-conns 32] [-sample 10s] [-out DIR] [-reset-every 30s] [-faults name=share,...] [-function auto|none]
  benchrun footprint -emulator BIN [-count 100000] [-kinds restapi,vault,queue] [-modes passive,live] [-idle 2s]
  benchrun reset-cycle -emulator BIN [-rounds 20] [-resources 50000] [-kinds restapi,vault,queue] [-conns 32]`

func (a *app) dispatch(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	switch args[0] {
	case "serve-bare":
		return a.serveBare(ctx, args[1:])
	case "compare":
		return a.compare(ctx, args[1:])
	case "startup":
		return a.startup(ctx, args[1:])
	case "overload":
		return a.overload(ctx, args[1:])
	case "sqs-longpoll":
		return a.sqsLongPoll(ctx, args[1:])
	case "sqs-memory":
		return a.sqsMemory(ctx, args[1:])
	case "openapi-import":
		return a.openAPIImport(ctx, args[1:])
	case "crash":
		return a.crash(ctx, args[1:])
	case "soak":
		return a.soak(ctx, args[1:])
	case "footprint":
		return a.footprint(ctx, args[1:])
	case "reset-cycle":
		return a.resetCycle(ctx, args[1:])
	case "-h", "-help", "--help", "help":
		fmt.Fprintln(os.Stderr, usage)
		return flag.ErrHelp
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}

func newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("benchrun "+name, flag.ContinueOnError)
	fs.SetOutput(os.Stderr)
	return fs
}

// serveBare runs bench.ServeBare until ctx ends (SIGTERM from the parent).
// Its first line on stdout is "listening <addr>", which the parent reads.
func (a *app) serveBare(ctx context.Context, args []string) error {
	fs := newFlagSet("serve-bare")
	addr := fs.String("addr", "127.0.0.1:0", "loopback `host:port` to listen on (port 0 picks one)")
	proxyTo := fs.String("proxy-to", "", "serve as a bare reverse proxy to this loopback `host:port`")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := checkListenLoopback(*addr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fmt.Errorf("benchrun: listen: %w", err)
	}
	var s *fasthttp.Server
	if *proxyTo != "" {
		if err := checkListenLoopback(*proxyTo); err != nil {
			return err
		}
		s = bench.ServeProxy(ln, *proxyTo)
	} else {
		s = bench.ServeBare(ln)
	}
	fmt.Fprintf(a.stdout, "listening %s\n", ln.Addr())
	<-ctx.Done()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := s.ShutdownWithContext(sctx); err != nil {
		return fmt.Errorf("benchrun: shutdown: %w", err)
	}
	return nil
}

// checkListenLoopback refuses to listen anywhere but a loopback IP or
// localhost: the bare server must not be reachable from the network.
func checkListenLoopback(addr string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("benchrun: -addr: %w", err)
	}
	if host == "localhost" {
		return nil
	}
	ip, err := netip.ParseAddr(host)
	if err != nil || !ip.Unmap().IsLoopback() {
		return fmt.Errorf("benchrun: -addr %q: want a loopback IP or localhost", addr)
	}
	return nil
}
