// Command emulator runs the local cloud emulator: AWS Backup and API Gateway
// on one port, configured by EMULATOR_* variables (see the README).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/server"
)

func main() {
	os.Exit(cli(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, os.LookupEnv))
}

// cli runs one command line and returns the exit status: 0 for success and
// help, 2 for a wrong command line or configuration, 1 for anything else.
func cli(args []string, stdin io.Reader, stdout, stderr io.Writer, lookup func(string) (string, bool)) int {
	cmd, rest := "serve", args
	if len(args) > 0 && wantsHelp(args[:1]) {
		cmd, rest = "help", nil
	} else if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, rest = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return exitStatus(stderr, "", run(rest, lookup, stdout, stderr))
	case "template":
		return exitStatus(stderr, "template", runTemplate(rest, stdin, stdout, stderr))
	case "stats":
		return exitStatus(stderr, "stats", runStats(rest, stdout, stderr, lookup))
	case "version":
		if len(rest) > 0 {
			return exitStatus(stderr, "version", usageError{fmt.Sprintf("unexpected argument %q", rest[0])})
		}
		fmt.Fprintln(stdout, server.Version)
		return 0
	case "help":
		switch {
		case len(rest) == 0:
			usage(stdout)
		case rest[0] == "serve":
			serveUsage(stdout, newServeFlags(&flags{}, io.Discard))
		case rest[0] == "template":
			_ = runTemplate([]string{"render", "-h"}, stdin, stdout, stderr)
		case rest[0] == "stats":
			_ = runStats([]string{"-h"}, stdout, stderr, lookup)
		default:
			fmt.Fprintf(stderr, "emulator help: no command %q\n\n", rest[0])
			usage(stderr)
			return 2
		}
		return 0
	}
	fmt.Fprintf(stderr, "emulator: unknown command %q\n\n", cmd)
	usage(stderr)
	return 2
}

// usageError is a wrong command line: exit status 2, like a flag error.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func exitStatus(stderr io.Writer, cmd string, err error) int {
	if err == nil {
		return 0
	}
	prefix := "emulator"
	if cmd != "" {
		prefix += " " + cmd
	}
	var cerr *config.Error
	var uerr usageError
	switch {
	case errors.As(err, &cerr), errors.As(err, &uerr):
		fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
		return 2
	case errors.Is(err, errFlags):
		return 2 // the flag package has printed the error and the usage
	}
	fmt.Fprintf(stderr, "%s: %v\n", prefix, err)
	return 1
}

// wantsHelp reports a help flag among the flags (before "--"), which
// prints the help on stdout and exits 0.
func wantsHelp(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help", "-h=true", "--help=true":
			return true
		}
	}
	return false
}

// errFlags marks a flag error the flag package already printed.
var errFlags = errors.New("bad flags")

func usage(w io.Writer) {
	fmt.Fprintf(w, `emulator %s: a local emulator of AWS Backup and API Gateway on one port:
the control planes of REST, HTTP and WebSocket APIs, and deployed REST APIs that answer.

Usage:
  emulator [serve] [flags]       run the emulator (the default command)
  emulator template render ...   render an API Gateway mapping template offline
  emulator stats [flags]         live request, throttle and latency rates of deployed APIs
  emulator version               print the version
  emulator help [command]        this help, or a command's

Flags of serve (they override the environment):
`, server.Version)
	fs := newServeFlags(&flags{}, w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	printVariables(w)
}

func serveUsage(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintln(w, "Usage: emulator [serve] [flags]")
	fmt.Fprintln(w, "\nRuns the emulator until SIGINT or SIGTERM. Flags override the environment.")
	fmt.Fprintln(w, "\nFlags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fmt.Fprintln(w)
	printVariables(w)
}

func printVariables(w io.Writer) {
	fmt.Fprintln(w, "Environment (default in brackets):")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, v := range config.Variables {
		def := v.Default
		if def == "" {
			def = "unset"
		}
		fmt.Fprintf(tw, "  %s\t%s [%s]\n", v.Name, v.Help, def)
	}
	_ = tw.Flush()
}

// flags override the environment.
type flags struct {
	addr    string
	time    string
	version bool
}

func newServeFlags(f *flags, stderr io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet("emulator serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.addr, "addr", "", "listen address host:port (overrides EMULATOR_HOST and EMULATOR_PORT; port 0 picks one)")
	fs.StringVar(&f.time, "time", "", "freeze the clock at this RFC 3339 time (overrides EMULATOR_FIXED_TIME)")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
	return fs
}

func run(args []string, lookup func(string) (string, bool), stdout, stderr io.Writer) error {
	var f flags
	fs := newServeFlags(&f, stderr)
	fs.Usage = func() { serveUsage(stderr, fs) }
	if wantsHelp(args) {
		serveUsage(stdout, fs)
		return nil
	}
	if err := fs.Parse(args); err != nil {
		return errFlags
	}
	if fs.NArg() > 0 {
		return usageError{fmt.Sprintf("unexpected argument %q (see emulator help)", fs.Arg(0))}
	}
	if f.version {
		fmt.Fprintln(stdout, server.Version)
		return nil
	}
	cfg, err := config.FromEnv(lookup)
	if err != nil {
		return err
	}
	if f.addr != "" {
		host, port, err := net.SplitHostPort(f.addr)
		p, perr := strconv.Atoi(port)
		if err != nil || perr != nil || p < 0 || p > 65535 {
			return &config.Error{Var: "-addr", Value: f.addr, Reason: "must be host:port"}
		}
		cfg.Host, cfg.Port = host, p
	}
	if f.time != "" {
		t, err := time.Parse(time.RFC3339, f.time)
		if err != nil {
			return &config.Error{Var: "-time", Value: f.time, Reason: "must be an RFC 3339 time"}
		}
		cfg.FixedTime = t
	}

	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	for _, w := range config.Unknown(os.Environ()) {
		log.Warn(w)
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	// BOOT runs before anything else: before the store is opened, before
	// the port is.
	hooks := newHooks(cfg, log)
	hooks.Run(ctx, inithook.Boot)
	em, err := server.Open(cfg, log, server.WithInit(hooks))
	if err != nil {
		return err
	}
	hooks.Run(ctx, inithook.Start)
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		_ = em.Shutdown(context.Background())
		return listenError(err, cfg, f.addr)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	hooks.SetEndpoint(inithook.EndpointURL(cfg.Host, port))
	started := []any{"addr", ln.Addr().String(), "version", server.Version, "state", string(cfg.State)}
	if cfg.State == config.StatePersistent {
		started = append(started, "data_dir", cfg.DataDir)
	}
	log.Info("listening", append(started, "services", strings.Join(em.ServiceNames(), ","))...)

	served := make(chan error, 1)
	go func() { served <- em.Serve(ln) }()
	stopReady := runInBackground(ctx, hooks, inithook.Ready)
	select {
	case err = <-served:
		stopReady()
		if err != nil {
			_ = em.Shutdown(context.Background())
			return err
		}
	case <-ctx.Done():
	}
	stop() // a second signal kills the process at once
	stopReady()
	return shutdown(cfg, log, hooks, em)
}

// listenError blames what was set wrong: -addr when it was given, else
// the port for a port in use or out of reach, else the host.
func listenError(err error, cfg config.Config, addrFlag string) error {
	if addrFlag != "" {
		return &config.Error{Var: "-addr", Value: addrFlag, Reason: err.Error()}
	}
	if errors.Is(err, syscall.EADDRINUSE) || errors.Is(err, syscall.EACCES) {
		return &config.Error{Var: "EMULATOR_PORT", Value: strconv.Itoa(cfg.Port), Reason: err.Error()}
	}
	return &config.Error{Var: "EMULATOR_HOST", Value: cfg.Host, Reason: err.Error()}
}

// newHooks finds the init scripts. Scripts get the emulator's environment
// plus the endpoint, region and dummy credentials of the AWS CLI; with
// EMULATOR_PORT=0 the endpoint is known only from READY on.
func newHooks(cfg config.Config, log *slog.Logger) *inithook.Runner {
	return inithook.New(inithook.Options{
		Disabled: !cfg.InitEnabled,
		Dirs:     cfg.InitDirs,
		Timeout:  cfg.InitTimeout,
		Endpoint: inithook.EndpointURL(cfg.Host, cfg.Port),
		Region:   cfg.DefaultRegion,
		Log:      log,
	})
}

// runInBackground runs a stage while the server serves, so that its status
// can be read meanwhile. The returned function stops the stage (the running
// script is killed) and waits for it.
func runInBackground(ctx context.Context, hooks *inithook.Runner, stage inithook.Stage) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		hooks.Run(ctx, stage)
	}()
	return func() {
		cancel()
		<-done
	}
}

// shutdown runs the SHUTDOWN hooks while requests are still served (so that
// a hook can still read or save state through the API), then drains the
// server, stops every owner and closes the store.
func shutdown(cfg config.Config, log *slog.Logger, hooks *inithook.Runner, em *server.Emulator) error {
	hooks.Run(context.Background(), inithook.Shutdown)
	log.Info("shutting down", "grace", cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := em.Shutdown(sctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}
