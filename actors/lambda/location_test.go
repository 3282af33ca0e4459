package lambda_test

import (
	"bytes"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
)

// TestCodeLocationSignedForTenMinutes: the URL names the package, works
// for ten minutes, and refuses another package's path, a changed
// signature or a changed date.
func TestCodeLocationSignedForTenMinutes(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC).UnixNano())
	svc, _ := newService(t, nil, actorstest.WithClock(func() time.Time { return time.Unix(0, now.Load()) }))
	s := createFn(t, svc, "located", "print(1)", false)
	raw := svc.CodeLocation(sc, s.Config.CodeHash, "127.0.0.1:4566")
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	wantPath := "/_emulator/lambda/code/" + sc.Account + "/" + sc.Region + "/" + s.Config.CodeHash
	q := u.Query()
	if u.Scheme != "http" || u.Host != "127.0.0.1:4566" || u.Path != wantPath ||
		q.Get("X-Amz-Date") != "20260501T120000Z" || q.Get("X-Amz-Expires") != "600" || len(q.Get("X-Amz-Signature")) != 64 {
		t.Fatalf("location %s", raw)
	}
	download := func(hash, date, sig string) ([]byte, error) {
		return svc.DownloadCode(sc.Account, sc.Region, hash, date, sig)
	}
	date, sig := q.Get("X-Amz-Date"), q.Get("X-Amz-Signature")
	zip, err := download(s.Config.CodeHash, date, sig)
	if err != nil || !bytes.Equal(zip, zipOf(t, "print(1)")) {
		t.Fatalf("download: %v (%d bytes)", err, len(zip))
	}
	wantErr := func(err error, status int, code string) {
		t.Helper()
		e, ok := err.(*awswire.Error)
		if !ok || e.Status != status || e.Code != code {
			t.Fatalf("want %d %s, got %v", status, code, err)
		}
	}
	_, err = download(strings.Repeat("0", 64), date, sig)
	wantErr(err, 403, "SignatureDoesNotMatch")
	_, err = download(s.Config.CodeHash, "20260501T120500Z", sig)
	wantErr(err, 403, "SignatureDoesNotMatch")
	_, err = download(s.Config.CodeHash, date, strings.Repeat("a", 64))
	wantErr(err, 403, "SignatureDoesNotMatch")
	_, err = svc.DownloadCode("111111111111", sc.Region, s.Config.CodeHash, date, sig)
	wantErr(err, 403, "SignatureDoesNotMatch")

	now.Add(int64(10 * time.Minute))
	if _, err := download(s.Config.CodeHash, date, sig); err != nil {
		t.Fatalf("at ten minutes: %v", err)
	}
	now.Add(int64(time.Second))
	_, err = download(s.Config.CodeHash, date, sig)
	wantErr(err, 403, "AccessDenied")

	// A package no function holds any more is gone.
	fresh := svc.CodeLocation(sc, s.Config.CodeHash, "h")
	if err := svc.DeleteFunction(sc, "located", ""); err != nil {
		t.Fatal(err)
	}
	fq, _ := url.Parse(fresh)
	_, err = download(s.Config.CodeHash, fq.Query().Get("X-Amz-Date"), fq.Query().Get("X-Amz-Signature"))
	wantErr(err, 404, "NoSuchKey")
}
