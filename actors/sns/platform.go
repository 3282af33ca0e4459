package sns

import (
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/pmap"
)

// AppRecord is a platform application as persisted (its endpoints are
// records of their own).
type AppRecord struct {
	Seq      uint64            `json:"seq"`
	ID       string            `json:"id"` // <platform>:<name>
	Name     string            `json:"name"`
	Platform string            `json:"platform"`
	ARN      string            `json:"arn"`
	Attrs    map[string]string `json:"attrs,omitempty"`
}

// App is a platform application as its owner publishes it, with its
// endpoints by id. A published application never changes.
type App struct {
	AppRecord
	Endpoints pmap.Map[*Endpoint] `json:"-"`
}

// Endpoint is one platform endpoint (a device).
type Endpoint struct {
	Seq   uint64            `json:"seq"`
	ID    string            `json:"id"`
	ARN   string            `json:"arn"`
	Attrs map[string]string `json:"attrs"` // Enabled, Token, CustomUserData
}

// platforms are the push services SNS knows.
var platforms = map[string]bool{"ADM": true, "APNS": true, "APNS_SANDBOX": true, "APNS_VOIP": true,
	"APNS_VOIP_SANDBOX": true, "BAIDU": true, "GCM": true, "MPNS": true, "WNS": true, "MACOS": true, "MACOS_SANDBOX": true}

// hiddenAppAttributes are kept but never read back, as on AWS.
var hiddenAppAttributes = map[string]bool{"PlatformCredential": true, "PlatformPrincipal": true}

func checkAppName(name string) error {
	if name == "" {
		return InvalidParameter(" Reason: cannot be empty")
	}
	if len(name) > 256 {
		return InvalidParameter(name + " Reason: must be at most 256 characters long")
	}
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return InvalidParameter(name + " Reason: must contain only characters 'a'-'z', 'A'-'Z', '0'-'9', '_', '-', and '.'")
		}
	}
	return nil
}

func checkCredentials(attrs map[string]string) error {
	_, principal := attrs["PlatformPrincipal"]
	_, credential := attrs["PlatformCredential"]
	switch {
	case principal && !credential:
		return InvalidParameter("Attributes Reason: PlatformPrincipal attribute provided without PlatformCredential")
	case credential && !principal && attrs["PlatformCredential"] == "":
		return InvalidParameter("Attributes Reason: PlatformCredential attribute provided without PlatformPrincipal")
	}
	return nil
}

// CreatePlatformApplication creates a platform application; one of that
// platform and name already existing is returned.
func (s *Service) CreatePlatformApplication(sc awswire.Scope, name, platform string, attrs map[string]string) (string, error) {
	if err := checkAppName(name); err != nil {
		return "", err
	}
	if !platforms[platform] {
		return "", InvalidParameter("Platform Reason: " + platform + " is not supported")
	}
	if err := checkCredentials(attrs); err != nil {
		return "", err
	}
	id := platform + ":" + name
	arn := "arn:aws:sns:" + sc.Region + ":" + sc.Account + ":app/" + platform + "/" + name
	d := s.scopes.Get(sc)
	if cur, ok := d.apps.Get(id); ok {
		return cur.ARN, nil
	}
	stored := maps.Clone(attrs)
	if stored == nil {
		stored = map[string]string{}
	}
	if _, ok := stored["Enabled"]; !ok {
		stored["Enabled"] = "true"
	}
	seq := s.seq.Next()
	a := &App{AppRecord: AppRecord{Seq: seq, ID: id, Name: name, Platform: platform, ARN: arn, Attrs: stored},
		Endpoints: pmap.New[*Endpoint]()}
	errTaken := invalid("taken")
	_, err := actors.Create(s.records(), actors.NewRecord[App]{
		Kind: "sns.app", Key: appKey(sc, id), Dir: d.apps, ID: id, Order: actors.SeqKey(seq),
		Taken: func() error { return errTaken }, Build: func() (*App, error) { return a, nil }})
	if err == errTaken {
		if cur := settled(d.apps, id); cur != nil {
			return cur.ARN, nil
		}
		return "", busy()
	}
	if err != nil {
		return "", err
	}
	return arn, nil
}

// appRef is a platform application named by ARN.
type appRef struct {
	sc awswire.Scope
	id string
	d  *dirs
}

func (s *Service) resolveApp(arn string) (appRef, bool, error) {
	a, err := parseARN("PlatformApplicationArn", arn)
	if err != nil {
		return appRef{}, false, err
	}
	parts := strings.Split(a.Resource, "/")
	if a.Service != "sns" || len(parts) != 3 || parts[0] != "app" {
		return appRef{}, false, InvalidParameter("PlatformApplicationArn Reason: Wrong number of slashes in relative portion of the ARN.")
	}
	sc := awswire.Scope{Account: a.Account, Region: a.Region}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return appRef{}, false, nil
	}
	return appRef{sc: sc, id: parts[1] + ":" + parts[2], d: d}, true, nil
}

func (s *Service) app(arn string) (appRef, *App, error) {
	ref, ok, err := s.resolveApp(arn)
	if err != nil {
		return appRef{}, nil, err
	}
	if !ok {
		return appRef{}, nil, appNotFound()
	}
	a, ok := ref.d.apps.Get(ref.id)
	if !ok {
		return appRef{}, nil, appNotFound()
	}
	return ref, a, nil
}

func (s *Service) updateApp(ref appRef, fn actors.Mutation[App]) (any, error) {
	e, _, ok := ref.d.apps.Entry(ref.id)
	if !ok {
		return nil, appNotFound()
	}
	v, err := actors.Update(s.sys, e, func(cur *App) (actors.Change[App], error) {
		if cur == nil {
			return actors.Change[App]{}, appNotFound()
		}
		return fn(cur)
	})
	return actors.Result[any](v, err, func() error { return appNotFound() }, s.records().Busy)
}

func visibleAppAttributes(a *App) map[string]string {
	out := map[string]string{}
	for k, v := range a.Attrs {
		if !hiddenAppAttributes[k] {
			out[k] = v
		}
	}
	return out
}

// GetPlatformApplicationAttributes returns an application's attributes
// (its credentials are not read back).
func (s *Service) GetPlatformApplicationAttributes(arn string) (map[string]string, error) {
	_, a, err := s.app(arn)
	if err != nil {
		return nil, err
	}
	return visibleAppAttributes(a), nil
}

// SetPlatformApplicationAttributes merges attributes into an
// application's.
func (s *Service) SetPlatformApplicationAttributes(arn string, attrs map[string]string) error {
	ref, _, err := s.app(arn)
	if err != nil {
		return err
	}
	if err := checkCredentials(attrs); err != nil {
		return err
	}
	_, err = s.updateApp(ref, func(cur *App) (actors.Change[App], error) {
		next := *cur
		next.Attrs = maps.Clone(cur.Attrs)
		maps.Copy(next.Attrs, attrs)
		return actors.Change[App]{Next: &next, Records: []actors.Record{actors.Put(appKey(ref.sc, ref.id), &next.AppRecord)}}, nil
	})
	return err
}

// AppSummary is one row of ListPlatformApplications.
type AppSummary struct {
	ARN        string
	Attributes map[string]string
}

// ListPlatformApplications lists the scope's applications in creation
// order, 100 a page.
func (s *Service) ListPlatformApplications(sc awswire.Scope, token string) ([]AppSummary, string, error) {
	from, err := pageStart(token)
	if err != nil {
		return nil, "", err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, "", nil
	}
	var out []AppSummary
	for k, a := range d.apps.Ordered(from) {
		if len(out) == listPage {
			return out, k, nil
		}
		out = append(out, AppSummary{ARN: a.ARN, Attributes: visibleAppAttributes(a)})
	}
	return out, "", nil
}

// DeletePlatformApplication deletes an application and its endpoints;
// one that does not exist is already gone.
func (s *Service) DeletePlatformApplication(arn string) error {
	ref, ok, err := s.resolveApp(arn)
	if err != nil || !ok {
		return err
	}
	if _, ok := ref.d.apps.Get(ref.id); !ok {
		return nil
	}
	_, err = s.updateApp(ref, func(*App) (actors.Change[App], error) {
		return actors.Change[App]{End: true, Records: []actors.Record{
			actors.Del(appKey(ref.sc, ref.id)), actors.DelPrefix(appKey(ref.sc, ref.id) + "/")}}, nil
	})
	if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
		return nil
	}
	return err
}

// ---- endpoints ----

var endpointAttributes = map[string]bool{"Enabled": true, "Token": true, "CustomUserData": true}

func checkEndpointAttributes(attrs map[string]string) error {
	for k, v := range attrs {
		if !endpointAttributes[k] {
			return InvalidParameter("Attributes Reason: Invalid attribute name: " + k)
		}
		switch k {
		case "CustomUserData":
			if len(v) > 2048 {
				return InvalidParameter("Attributes Reason: Invalid value for attribute: CustomUserData: must be at most 2048 bytes long in UTF-8 encoding")
			}
		case "Enabled":
			if v != "true" && v != "false" {
				return InvalidParameter("Attributes Reason: Invalid value for attribute: Enabled: must be true or false")
			}
		case "Token":
			if v == "" {
				return InvalidParameter("Attributes Reason: Invalid value for attribute: Token: cannot be empty")
			}
		}
	}
	return nil
}

// CreatePlatformEndpoint creates an endpoint for a device token; the
// token's endpoint is returned when it exists with the same attributes.
func (s *Service) CreatePlatformEndpoint(appARN, token, customUserData string, attrs map[string]string) (string, error) {
	ref, a, err := s.app(appARN)
	if err != nil {
		return "", err
	}
	if token == "" {
		return "", InvalidParameter("Token Reason: cannot be empty")
	}
	if err := checkEndpointAttributes(attrs); err != nil {
		return "", err
	}
	want := maps.Clone(attrs)
	if want == nil {
		want = map[string]string{}
	}
	if customUserData != "" {
		want["CustomUserData"] = customUserData
	}
	if err := checkEndpointAttributes(want); err != nil {
		return "", err
	}
	want["Token"] = token
	if _, ok := want["Enabled"]; !ok {
		want["Enabled"] = "true"
	}
	id := awswire.UUID()
	ep := &Endpoint{Seq: s.seq.Next(), ID: id,
		ARN:   "arn:aws:sns:" + ref.sc.Region + ":" + ref.sc.Account + ":endpoint/" + a.Platform + "/" + a.Name + "/" + id,
		Attrs: want}
	v, err := s.updateApp(ref, func(cur *App) (actors.Change[App], error) {
		for _, old := range cur.Endpoints.All() {
			if old.Attrs["Token"] != token {
				continue
			}
			if !maps.Equal(old.Attrs, want) {
				return actors.Change[App]{}, InvalidParameter("Token Reason: Endpoint " + old.ARN + " already exists with the same Token, but different attributes.")
			}
			return actors.Change[App]{Reply: old.ARN}, nil
		}
		next := *cur
		next.Endpoints = cur.Endpoints.Set(id, ep)
		return actors.Change[App]{Next: &next, Reply: ep.ARN,
			Records: []actors.Record{actors.Put(endpointKey(ref.sc, ref.id, id), ep)}}, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}

// endpointRef is an endpoint named by ARN.
type endpointRef struct {
	app appRef
	id  string
}

func (s *Service) resolveEndpoint(arn string) (endpointRef, bool, error) {
	a, err := parseARN("EndpointArn", arn)
	if err != nil {
		return endpointRef{}, false, err
	}
	parts := strings.Split(a.Resource, "/")
	if a.Service != "sns" || len(parts) != 4 || parts[0] != "endpoint" {
		return endpointRef{}, false, InvalidParameter("EndpointArn Reason: Wrong number of slashes in relative portion of the ARN.")
	}
	sc := awswire.Scope{Account: a.Account, Region: a.Region}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return endpointRef{}, false, nil
	}
	return endpointRef{app: appRef{sc: sc, id: parts[1] + ":" + parts[2], d: d}, id: parts[3]}, true, nil
}

// endpoint returns the published endpoint an ARN names, or NotFound.
func (s *Service) endpoint(arn string) (endpointRef, *App, *Endpoint, error) {
	ref, ok, err := s.resolveEndpoint(arn)
	if err != nil {
		return endpointRef{}, nil, nil, err
	}
	if !ok {
		return endpointRef{}, nil, nil, endpointNotFound()
	}
	a, ok := ref.app.d.apps.Get(ref.app.id)
	if !ok {
		return endpointRef{}, nil, nil, endpointNotFound()
	}
	ep, ok := a.Endpoints.Get(ref.id)
	if !ok {
		return endpointRef{}, nil, nil, endpointNotFound()
	}
	return ref, a, ep, nil
}

// GetEndpointAttributes returns an endpoint's attributes.
func (s *Service) GetEndpointAttributes(arn string) (map[string]string, error) {
	_, _, ep, err := s.endpoint(arn)
	if err != nil {
		return nil, err
	}
	return maps.Clone(ep.Attrs), nil
}

// SetEndpointAttributes merges attributes into an endpoint's.
func (s *Service) SetEndpointAttributes(arn string, attrs map[string]string) error {
	ref, _, _, err := s.endpoint(arn)
	if err != nil {
		return err
	}
	if err := checkEndpointAttributes(attrs); err != nil {
		return err
	}
	_, err = s.updateApp(ref.app, func(cur *App) (actors.Change[App], error) {
		old, ok := cur.Endpoints.Get(ref.id)
		if !ok {
			return actors.Change[App]{}, endpointNotFound()
		}
		ep := *old
		ep.Attrs = maps.Clone(old.Attrs)
		maps.Copy(ep.Attrs, attrs)
		next := *cur
		next.Endpoints = cur.Endpoints.Set(ref.id, &ep)
		return actors.Change[App]{Next: &next, Records: []actors.Record{actors.Put(endpointKey(ref.app.sc, ref.app.id, ref.id), &ep)}}, nil
	})
	if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
		return endpointNotFound()
	}
	return err
}

// DeleteEndpoint deletes an endpoint; one that does not exist is already
// gone.
func (s *Service) DeleteEndpoint(arn string) error {
	ref, ok, err := s.resolveEndpoint(arn)
	if err != nil || !ok {
		return err
	}
	a, ok := ref.app.d.apps.Get(ref.app.id)
	if !ok || !a.Endpoints.Has(ref.id) {
		return nil
	}
	_, err = s.updateApp(ref.app, func(cur *App) (actors.Change[App], error) {
		if !cur.Endpoints.Has(ref.id) {
			return actors.Change[App]{}, nil
		}
		next := *cur
		next.Endpoints = cur.Endpoints.Delete(ref.id)
		return actors.Change[App]{Next: &next, Records: []actors.Record{actors.Del(endpointKey(ref.app.sc, ref.app.id, ref.id))}}, nil
	})
	if e, ok := err.(*awswire.Error); ok && e.Code == codeNotFound {
		return nil
	}
	return err
}

// EndpointSummary is one row of ListEndpointsByPlatformApplication.
type EndpointSummary struct {
	ARN        string
	Attributes map[string]string
}

// ListEndpoints lists an application's endpoints in creation order, 100
// a page.
func (s *Service) ListEndpoints(appARN, token string) ([]EndpointSummary, string, error) {
	_, a, err := s.app(appARN)
	if err != nil {
		return nil, "", err
	}
	if token != "" && !validPageKey(token, 16) {
		return nil, "", InvalidParameter("NextToken")
	}
	eps := slices.Collect(a.Endpoints.Values())
	slices.SortFunc(eps, func(x, y *Endpoint) int { return cmpSeq(x.Seq, y.Seq) })
	var out []EndpointSummary
	for _, ep := range eps {
		key := actors.SeqKey(ep.Seq)
		if key < token {
			continue
		}
		if len(out) == listPage {
			return out, key, nil
		}
		out = append(out, EndpointSummary{ARN: ep.ARN, Attributes: maps.Clone(ep.Attrs)})
	}
	return out, "", nil
}
