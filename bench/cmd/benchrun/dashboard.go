package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"time"
)

// executeMockKeyedWatched is ExecuteMockKeyed with the dashboard open on
// the traffic page: a live feed subscribed for the whole run (reconnecting
// as a browser does when a stream ends) and the pages a person looks at
// loaded every few seconds. Its ratio is against ExecuteMockKeyed, the
// same requests with nobody watching.
func executeMockKeyedWatched() scenario {
	sc := executeMockKeyed()
	sc.Name = "ExecuteMockKeyed/watched"
	sc.Baseline = "ExecuteMockKeyed"
	setup := sc.Setup
	sc.Setup = func(ctx context.Context, addr string) error {
		if err := setup(ctx, addr); err != nil {
			return err
		}
		go watchDashboard(ctx, addr)
		return nil
	}
	return sc
}

// executeMockKeyedUIOff is ExecuteMockKeyed with EMULATOR_UI=false: no
// request inspector sampling at all. Its ratio against ExecuteMockKeyed
// is what the dashboard costs the data plane when nobody watches.
func executeMockKeyedUIOff() scenario {
	sc := executeMockKeyed()
	sc.Name = "ExecuteMockKeyed/ui=off"
	sc.Baseline = "ExecuteMockKeyed"
	sc.Env = append(append([]string(nil), sc.Env...), "EMULATOR_UI=false")
	return sc
}

// watchDashboard reads the traffic feed of the emulator at addr until ctx
// ends or the emulator goes away, and loads the traffic and requests pages
// every five seconds.
func watchDashboard(ctx context.Context, addr string) {
	base := "http://" + addr + "/_emulator/ui"
	c := &http.Client{}
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			for _, p := range []string{"/traffic?window=60", "/requests"} {
				req, _ := http.NewRequestWithContext(ctx, "GET", base+p, nil)
				resp, err := c.Do(req)
				if err != nil {
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	}()
	for ctx.Err() == nil {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/feed/traffic?window=60", nil)
		resp, err := c.Do(req)
		if err != nil {
			return // the emulator stopped
		}
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
		}
		resp.Body.Close()
	}
}
