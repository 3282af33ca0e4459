package servertest

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"os"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/smithy-go"

	"github.com/cloudemu/emulator/config"
	"github.com/cloudemu/emulator/server"
)

// Server is a running emulator.
type Server struct {
	URL      string
	Addr     string
	Config   config.Config
	Emulator *server.Emulator
}

// Option changes the configuration of a test server.
type Option func(*config.Config)

// WithPersistence keeps state in dir.
func WithPersistence(dir string) Option {
	return func(c *config.Config) {
		c.State = config.StatePersistent
		c.DataDir = dir
	}
}

// WithMaxBody bounds request bodies.
func WithMaxBody(n int) Option { return func(c *config.Config) { c.MaxBodyBytes = n } }

// WithConfig edits the configuration freely.
func WithConfig(f func(*config.Config)) Option { return Option(f) }

// Logger returns a logger that is silent unless EMULATOR_TEST_LOG names a
// level (EMULATOR_TEST_LOG=debug).
func Logger() *slog.Logger {
	lvl := os.Getenv("EMULATOR_TEST_LOG")
	if lvl == "" {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	var l slog.Level
	_ = l.UnmarshalText([]byte(lvl))
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: l}))
}

// Start runs an emulator on 127.0.0.1:0 until the test ends.
func Start(t testing.TB, opts ...Option) *Server {
	t.Helper()
	return StartWithLog(t, Logger(), opts...)
}

// StartWithLog is Start with the emulator logging to log.
func StartWithLog(t testing.TB, log *slog.Logger, opts ...Option) *Server {
	t.Helper()
	cfg := config.Default()
	cfg.Host, cfg.Port = "127.0.0.1", 0
	for _, o := range opts {
		o(&cfg)
	}
	em, err := server.Open(cfg, log)
	if err != nil {
		t.Fatalf("open emulator: %v", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	go func() { _ = em.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := em.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	addr := ln.Addr().String()
	return &Server{URL: "http://" + addr, Addr: addr, Config: cfg, Emulator: em}
}

// AWSConfig returns an SDK configuration for the server: static
// credentials (accessKey decides the account: 12 digits is that account),
// the region, and no retries, so that a test sees the first answer.
// It does not call config.LoadDefaultConfig, which fails here when
// AWS_CA_BUNDLE is set and a custom client is passed.
func AWSConfig(region, accessKey string) aws.Config {
	return aws.Config{
		Region:      region,
		Credentials: credentials.NewStaticCredentialsProvider(accessKey, "secret", ""),
		HTTPClient:  awshttp.NewBuildableClient(),
		Retryer:     func() aws.Retryer { return aws.NopRetryer{} },
	}
}

// WantAPIError fails the test unless err is an AWS SDK API error with code
// and, when msg is not empty, exactly that message.
func WantAPIError(t testing.TB, err error, code, msg string) {
	t.Helper()
	var ae smithy.APIError
	if !errors.As(err, &ae) {
		t.Fatalf("want %s %q, got %v", code, msg, err)
	}
	if ae.ErrorCode() != code || (msg != "" && ae.ErrorMessage() != msg) {
		t.Fatalf("want %s %q, got %s %q", code, msg, ae.ErrorCode(), ae.ErrorMessage())
	}
}

// MissingTool ends a test that needs a tool this machine lacks: skipped
// on a developer's machine, failed in CI (CI set), where .ci/run installs
// every tool a test needs.
func MissingTool(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is required in CI (CI=%s) and was not found", what, os.Getenv("CI"))
	}
	t.Skipf("%s not found: skipped here (CI fails instead)", what)
}
