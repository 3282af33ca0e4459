// Package awswiretest checks the errors owners and handlers return in
// tests: by code, and by message only where the message is what AWS says.
package awswiretest

import (
	"errors"
	"testing"

	"github.com/cloudemu/emulator/awswire"
)

// WantError fails the test unless err is an *awswire.Error with code and,
// when msg is not empty, exactly that message.
func WantError(t testing.TB, err error, code, msg string) {
	t.Helper()
	var we *awswire.Error
	if !errors.As(err, &we) {
		t.Fatalf("want %s %q, got %#v", code, msg, err)
	}
	if we.Code != code || (msg != "" && we.Message != msg) {
		t.Fatalf("want %s %q, got %s %q", code, msg, we.Code, we.Message)
	}
}
