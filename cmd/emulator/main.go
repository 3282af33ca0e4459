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
	"syscall"
	"time"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/inithook"
	"github.com/cloudemu/emulator/server"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "template" {
		if err := runTemplate(os.Args[2:], os.Stdin, os.Stdout, os.Stderr); err != nil {
			fmt.Fprintf(os.Stderr, "emulator template: %v\n", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Args[1:], os.LookupEnv, os.Stderr); err != nil {
		var cerr *config.Error
		if errors.As(err, &cerr) {
			fmt.Fprintf(os.Stderr, "emulator: %v\n", cerr)
			os.Exit(2)
		}
		fmt.Fprintf(os.Stderr, "emulator: %v\n", err)
		os.Exit(1)
	}
}

// flags override the environment.
type flags struct {
	addr    string
	time    string
	version bool
}

func (f *flags) attach(fs *flag.FlagSet) {
	fs.StringVar(&f.addr, "addr", "", "listen address host:port (overrides EMULATOR_HOST and EMULATOR_PORT; port 0 picks one)")
	fs.StringVar(&f.time, "time", "", "freeze the clock at this RFC 3339 time (overrides EMULATOR_FIXED_TIME)")
	fs.BoolVar(&f.version, "version", false, "print the version and exit")
}

func run(args []string, lookup func(string) (string, bool), stderr io.Writer) error {
	fs := flag.NewFlagSet("emulator", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var f flags
	f.attach(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if f.version {
		fmt.Fprintln(stderr, server.Version)
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
			return fmt.Errorf("-addr %q: must be host:port", f.addr)
		}
		cfg.Host, cfg.Port = host, p
	}
	if f.time != "" {
		t, err := time.Parse(time.RFC3339, f.time)
		if err != nil {
			return fmt.Errorf("-time %q: must be an RFC 3339 time", f.time)
		}
		cfg.FixedTime = t
	}

	log := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
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
		return &config.Error{Var: "EMULATOR_PORT", Value: strconv.Itoa(cfg.Port), Reason: err.Error()}
	}
	port := ln.Addr().(*net.TCPAddr).Port
	hooks.SetEndpoint(inithook.EndpointURL(cfg.Host, port))
	log.Info("listening", "addr", ln.Addr().String(), "state", string(cfg.State), "version", server.Version)

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
