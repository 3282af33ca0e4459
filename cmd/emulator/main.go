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
	"github.com/cloudemu/emulator/httpfront"
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
		fmt.Fprintln(stderr, httpfront.Version)
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

	em, err := httpfront.Open(cfg, log)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr())
	if err != nil {
		_ = em.Shutdown(context.Background())
		return &config.Error{Var: "EMULATOR_PORT", Value: strconv.Itoa(cfg.Port), Reason: err.Error()}
	}
	log.Info("listening", "addr", ln.Addr().String(), "state", string(cfg.State), "version", httpfront.Version)

	served := make(chan error, 1)
	go func() { served <- em.Serve(ln) }()
	select {
	case err = <-served:
		if err != nil {
			_ = em.Shutdown(context.Background())
			return err
		}
	case <-ctx.Done():
	}
	stop() // a second signal kills the process at once
	log.Info("shutting down", "grace", cfg.ShutdownGrace.String())
	sctx, cancel := context.WithTimeout(context.Background(), cfg.ShutdownGrace)
	defer cancel()
	if err := em.Shutdown(sctx); err != nil {
		return err
	}
	log.Info("stopped")
	return nil
}
