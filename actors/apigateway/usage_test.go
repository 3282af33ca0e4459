package apigateway

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/cloudemu/emulator/actors/actorstest"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/awswire/awswiretest"
	"github.com/cloudemu/emulator/throttle"
)

var keysScope = awswire.Scope{Account: "000000000000", Region: "us-east-1"}

func keysDay(t *testing.T, s string) time.Time {
	t.Helper()
	d, err := time.Parse("2006-01-02", s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// keysService starts a service whose clock reads *now.
func keysService(t *testing.T, now *time.Time) *Service {
	t.Helper()
	return testService(t, actorstest.WithClock(func() time.Time { return *now }))
}

// keysAPI creates an API with the given stages, as CreateDeployment would
// leave them.
func keysAPI(t *testing.T, s *Service, stages ...string) string {
	t.Helper()
	r, err := s.CreateRestAPI(keysScope, API{Name: "usage"}, func(tx *Tx) error {
		for _, st := range stages {
			tx.PutStage(&Stage{StageName: st, DeploymentID: "d1"})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return r.API.ID
}

func TestPeriodDays(t *testing.T) {
	for _, c := range []struct {
		name       string
		period     string
		day        string
		start, end string
	}{
		{"period=DAY", PeriodDay, "2024-05-15", "2024-05-15", "2024-05-15"},
		{"period=WEEK", PeriodWeek, "2024-05-15", "2024-05-12", "2024-05-18"},
		{"period=WEEK/on-sunday", PeriodWeek, "2024-05-12", "2024-05-12", "2024-05-18"},
		{"period=WEEK/on-saturday", PeriodWeek, "2024-05-18", "2024-05-12", "2024-05-18"},
		{"period=MONTH", PeriodMonth, "2024-05-15", "2024-05-01", "2024-05-31"},
		{"period=MONTH/leap", PeriodMonth, "2024-02-29", "2024-02-01", "2024-02-29"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, e := periodDays(c.period, throttle.DayOf(keysDay(t, c.day)))
			if got := s.String() + ".." + e.String(); got != c.start+".."+c.end {
				t.Fatalf("got %s, want %s..%s", got, c.start, c.end)
			}
		})
	}
}

func TestGetUsage(t *testing.T) {
	now := keysDay(t, "2024-05-11").Add(10 * time.Hour)
	s := keysService(t, &now)
	api := keysAPI(t, s, "prod")
	plan, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p",
		APIStages: []ApiStage{{APIID: api, Stage: "prod"}}, Quota: &QuotaSettings{Limit: 10, Period: PeriodWeek}})
	if err != nil {
		t.Fatal(err)
	}
	bare, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "no-quota"})
	if err != nil {
		t.Fatal(err)
	}
	k1, err := s.CreateAPIKey(keysScope, APIKey{Name: "a"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k2, err := s.CreateAPIKey(keysScope, APIKey{Name: "b"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{plan.Plan.ID, bare.Plan.ID} {
		if _, err := s.CreateUsagePlanKey(keysScope, p, k1.Key.ID, KeyTypeAPIKey); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateUsagePlanKey(keysScope, plan.Plan.ID, k2.Key.ID, KeyTypeAPIKey); err != nil {
		t.Fatal(err)
	}
	limits := func(planID string) *KeyLimits {
		t.Helper()
		k, ok := s.KeyLimits(keysScope, planID, k1.Key.ID)
		if !ok {
			t.Fatalf("no limits for %s under %s", k1.Key.ID, planID)
		}
		return k
	}
	// Saturday 11th (last week), then Monday 13th twice and Wednesday 15th
	// three times (this week: Sunday 12th to Saturday 18th), as the data
	// plane counts them.
	for _, c := range []struct {
		day string
		n   int
	}{{"2024-05-11", 4}, {"2024-05-13", 2}, {"2024-05-15", 3}} {
		at := keysDay(t, c.day).Add(12 * time.Hour)
		for range c.n {
			if !limits(plan.Plan.ID).Quota.Take(at) || !limits(bare.Plan.ID).Quota.Take(at) {
				t.Fatalf("refused on %s", c.day)
			}
		}
	}
	now = keysDay(t, "2024-05-15").Add(13 * time.Hour)
	rows, err := s.GetUsage(keysScope, plan.Plan.ID, "", keysDay(t, "2024-05-11"), keysDay(t, "2024-05-15"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	want := map[string]string{
		k1.Key.ID: "[[4 6] [0 10] [2 8] [0 8] [3 5]]",
		k2.Key.ID: "[[0 10] [0 10] [0 10] [0 10] [0 10]]",
	}
	for _, r := range rows {
		if got := fmt.Sprint(r.Days); got != want[r.KeyID] {
			t.Errorf("key %s: got %s, want %s", r.KeyID, got, want[r.KeyID])
		}
	}
	for _, c := range []struct {
		name       string
		plan, key  string
		start, end string
		code, want string
	}{
		{name: "filter=key", plan: plan.Plan.ID, key: k2.Key.ID, start: "2024-05-15", end: "2024-05-15", want: "[{" + k2.Key.ID + " [[0 10]]}]"},
		{name: "quota=none", plan: bare.Plan.ID, start: "2024-05-13", end: "2024-05-13", want: "[{" + k1.Key.ID + " [[2 0]]}]"},
		{name: "key=unlinked", plan: bare.Plan.ID, key: k2.Key.ID, start: "2024-05-13", end: "2024-05-13", want: "[]"},
		{name: "plan=unknown", plan: "nope", start: "2024-05-13", end: "2024-05-13", code: awswire.CodeNotFound},
		{name: "range=reversed", plan: plan.Plan.ID, start: "2024-05-13", end: "2024-05-12", code: awswire.CodeBadRequest},
		{name: "range=too-long", plan: plan.Plan.ID, start: "2000-01-01", end: "2024-05-12", code: awswire.CodeBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			rows, err := s.GetUsage(keysScope, c.plan, c.key, keysDay(t, c.start), keysDay(t, c.end))
			if c.code != "" {
				awswiretest.WantError(t, err, c.code, "")
				return
			}
			if err != nil || fmt.Sprint(rows) != c.want {
				t.Fatalf("got %v %v, want %s", rows, err, c.want)
			}
		})
	}

	t.Run("update-usage", func(t *testing.T) {
		start, end, ku, err := s.UpdateUsage(keysScope, plan.Plan.ID, k1.Key.ID,
			[]PatchOp{{Op: "replace", Path: "/remaining", Value: keysPtr("50")}})
		if err != nil {
			t.Fatal(err)
		}
		if start.Format("2006-01-02") != "2024-05-12" || end.Format("2006-01-02") != "2024-05-18" ||
			fmt.Sprint(ku.Days) != "[[5 50]]" {
			t.Fatalf("got %s..%s %v", start, end, ku.Days)
		}
		rows, err := s.GetUsage(keysScope, plan.Plan.ID, k1.Key.ID, keysDay(t, "2024-05-15"), keysDay(t, "2024-05-15"))
		if err != nil || fmt.Sprint(rows[0].Days) != "[[3 50]]" {
			t.Fatalf("usage after the grant: %v %v", rows, err)
		}
	})
	for _, c := range []struct {
		name      string
		plan, key string
		ops       []PatchOp
		code, msg string
	}{
		{"op=bad", plan.Plan.ID, k1.Key.ID, []PatchOp{{Op: "bad", Path: "/remaining"}}, awswire.CodeValidation, ""},
		{"path=bad", plan.Plan.ID, k1.Key.ID, []PatchOp{{Op: "replace", Path: "/used", Value: keysPtr("1")}}, awswire.CodeBadRequest,
			"Invalid patch path  '/used' specified for op 'replace'. Must be one of: [/remaining]"},
		{"op=add", plan.Plan.ID, k1.Key.ID, []PatchOp{{Op: "add", Path: "/remaining", Value: keysPtr("1")}}, awswire.CodeBadRequest,
			"Invalid patch path  '/remaining' specified for op 'add'. Please choose supported operations"},
		{"value=nan", plan.Plan.ID, k1.Key.ID, []PatchOp{{Op: "replace", Path: "/remaining", Value: keysPtr("x")}}, awswire.CodeBadRequest, ""},
		{"value=negative", plan.Plan.ID, k1.Key.ID, []PatchOp{{Op: "replace", Path: "/remaining", Value: keysPtr("-1")}}, awswire.CodeBadRequest, ""},
		{"plan=unknown", "nope", k1.Key.ID, nil, awswire.CodeNotFound, "Invalid Usage Plan ID specified"},
		{"key=unlinked", bare.Plan.ID, k2.Key.ID, nil, awswire.CodeNotFound, "Invalid API Key identifier specified"},
		{"quota=none", bare.Plan.ID, k1.Key.ID, []PatchOp{{Op: "replace", Path: "/remaining", Value: keysPtr("1")}}, awswire.CodeBadRequest, ""},
	} {
		t.Run("update-usage/"+c.name, func(t *testing.T) {
			_, _, _, err := s.UpdateUsage(keysScope, c.plan, c.key, c.ops)
			awswiretest.WantError(t, err, c.code, c.msg)
		})
	}
}

func keysPtr(s string) *string { return &s }

func TestDropPlanStages(t *testing.T) {
	now := time.Now()
	s := keysService(t, &now)
	a1 := keysAPI(t, s, "dev", "prod")
	a2 := keysAPI(t, s, "prod")
	plan, err := s.CreateUsagePlan(keysScope, UsagePlan{Name: "p", APIStages: []ApiStage{
		{APIID: a1, Stage: "dev"}, {APIID: a1, Stage: "prod"}, {APIID: a2, Stage: "prod"}}})
	if err != nil {
		t.Fatal(err)
	}
	stages := func() string {
		p, _ := s.UsagePlan(keysScope, plan.Plan.ID)
		out := ""
		for _, st := range p.Plan.APIStages {
			out += st.APIID + ":" + st.Stage + " "
		}
		return out
	}
	if err := s.DeleteStage(keysScope, a1, "dev"); err != nil {
		t.Fatal(err)
	}
	if got, want := stages(), a1+":prod "+a2+":prod "; got != want {
		t.Fatalf("after dropping a stage: %q, want %q", got, want)
	}
	if err := s.DeleteRestAPI(keysScope, a1); err != nil {
		t.Fatal(err)
	}
	if got, want := stages(), a2+":prod "; got != want {
		t.Fatalf("after deleting the API: %q, want %q", got, want)
	}
	if err := s.DeleteRestAPI(keysScope, a2); err != nil {
		t.Fatal(err)
	}
	p, _ := s.UsagePlan(keysScope, plan.Plan.ID)
	if b, _ := json.Marshal(p.Plan); string(b) != `{"id":"`+plan.Plan.ID+`","name":"p","apiStages":[]}` {
		t.Fatalf("plan %s", b)
	}
}

func TestRateJSON(t *testing.T) {
	for _, c := range []struct {
		in   float64
		want string
	}{
		{0, "0.0"}, {2, "2.0"}, {200, "200.0"}, {0.5, "0.5"}, {1234.25, "1234.25"},
		{1e7, "1.0E7"}, {12345678.5, "1.23456785E7"}, {0.0001, "1.0E-4"}, {-3, "-3.0"},
	} {
		t.Run(fmt.Sprintf("rate=%v", c.in), func(t *testing.T) {
			b, err := json.Marshal(ThrottleSettings{RateLimit: Rate(c.in)})
			if err != nil {
				t.Fatal(err)
			}
			if want := `{"burstLimit":0,"rateLimit":` + c.want + `}`; string(b) != want {
				t.Fatalf("got %s, want %s", b, want)
			}
			var back ThrottleSettings
			if err := json.Unmarshal(b, &back); err != nil || float64(back.RateLimit) != c.in {
				t.Fatalf("round trip: %v %v", back, err)
			}
		})
	}
}
