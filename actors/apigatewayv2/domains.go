package apigatewayv2

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// Domain names, with their API mappings, are inert metadata (docs/apigatewayv2.md): each
// domain is one record with its own owner, and nothing routes through it.
// They are not the v1 package's domain names, although AWS has a single
// kind of domain name behind both APIs.

// Domain name defaults and fixed values, as AWS answers them.
const (
	// DomainMappingSelection is every v2 domain's
	// apiMappingSelectionExpression.
	DomainMappingSelection = "$request.basepath"
	// DomainRoutingDefault is the routingMode of a domain created without
	// one.
	DomainRoutingDefault = "API_MAPPING_ONLY"
)

// Enums of the model, in its order. (Its EndpointType and SecurityPolicy
// also list EDGE and TLS_1_0, which AWS refuses for v2 domain names.)
var (
	DomainIPAddressTypes = []string{"ipv4", "dualstack"}
	DomainRoutingModes   = []string{"API_MAPPING_ONLY", "ROUTING_RULE_ONLY", "ROUTING_RULE_THEN_API_MAPPING"}
)

// domainsHostedZones are execute-api's Route 53 hosted zones by region, as
// AWS publishes them (the v1 package keeps the same table); Terraform and
// CDK alias DNS records to them.
var domainsHostedZones = map[string]string{
	"us-east-1": "Z1UJRXOUMOOFQ8", "us-east-2": "ZOJJZC49E0EPZ",
	"us-west-1": "Z2MUQ32089INYE", "us-west-2": "Z2OJLYMUO9EFXC",
	"ca-central-1": "Z19DQILCV0OWEC", "sa-east-1": "ZCMLWB8V5SYIT",
	"eu-west-1": "ZLY8HYME6SFDD", "eu-west-2": "ZJ5UAJN8Y3Z2Q", "eu-west-3": "Z3KY65QIEKYHQQ",
	"eu-central-1": "Z1U9ULNL0V5AJ3", "eu-north-1": "Z3UWIKFBOOGXPP",
	"ap-northeast-1": "Z1YSHQZHG15GKL", "ap-northeast-2": "Z20JF4UZKIW1U8",
	"ap-south-1": "Z3VO1THU9YC4UR", "ap-southeast-1": "ZL327KTPIQFUL", "ap-southeast-2": "Z2RPCDW04V8134",
}

// DomainNotFound is the error for an unknown domain name, as AWS words it.
func DomainNotFound() *awswire.Error {
	return NotFound("DomainName", "Invalid domain name identifier specified")
}

// MappingNotFound is the error for an unknown API mapping.
func MappingNotFound() *awswire.Error {
	return NotFound("ApiMapping", "The api mapping resource specified in the request was not found.")
}

// DomainARN is the ARN of a domain name.
func DomainARN(region, name string) string {
	return "arn:aws:apigateway:" + region + "::/domainnames/" + name
}

func domainKey(sc awswire.Scope, name string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindDomain, name)
}

// domainsValidName accepts DNS names (a leading "*" label for wildcards),
// which also keeps the name usable as a store key.
func domainsValidName(name string) bool {
	if len(name) > 253 {
		return false
	}
	for i, label := range strings.Split(name, ".") {
		if label == "*" && i == 0 {
			continue
		}
		if label == "" || len(label) > 63 {
			return false
		}
		for _, c := range label {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
				return false
			}
		}
	}
	return true
}

// domainsConfig checks the one configuration a v2 domain takes and fills in
// what AWS computes; cur is the configuration it replaces (nil on create),
// whose computed names and unsent members it keeps.
func domainsConfig(sc awswire.Scope, in []DomainNameConfiguration, cur *DomainNameConfiguration) (DomainNameConfiguration, error) {
	if len(in) != 1 {
		return DomainNameConfiguration{}, BadRequest("Invalid input. Expected one domain name configuration")
	}
	c := in[0]
	switch c.EndpointType {
	case "", "REGIONAL":
		c.EndpointType = "REGIONAL"
	case "EDGE":
		return c, BadRequest("EDGE endpoint type is not supported for APIGatewayV2 domainName")
	default:
		return c, BadRequest("Invalid endpoint type specified. Valid options are REGIONAL")
	}
	switch c.SecurityPolicy {
	case "":
		c.SecurityPolicy = "TLS_1_2"
		if cur != nil {
			c.SecurityPolicy = cur.SecurityPolicy
		}
	case "TLS_1_2":
	case "TLS_1_0":
		return c, BadRequest("TLS_1_0 is not supported for APIGatewayV2 domainName.")
	default:
		return c, BadRequest("Invalid security policy specified. Valid options are TLS_1_2")
	}
	switch {
	case c.IPAddressType == "" && cur != nil:
		c.IPAddressType = cur.IPAddressType
	case c.IPAddressType == "":
		c.IPAddressType = "ipv4"
	case !slices.Contains(DomainIPAddressTypes, c.IPAddressType):
		return c, BadRequest("Invalid ipAddressType specified. Valid options are ipv4,dualstack")
	}
	if cur != nil {
		// PATCH semantics: a certificate not sent stays.
		c.CertificateARN = cmp.Or(c.CertificateARN, cur.CertificateARN)
		c.CertificateName = cmp.Or(c.CertificateName, cur.CertificateName)
		c.OwnershipVerificationCertificateARN = cmp.Or(c.OwnershipVerificationCertificateARN, cur.OwnershipVerificationCertificateARN)
	}
	// Computed members are AWS's, whatever the request said.
	c.CertificateUploadDate = nil
	c.DomainNameStatus, c.DomainNameStatusMessage = "AVAILABLE", ""
	c.HostedZoneID = cmp.Or(domainsHostedZones[sc.Region], domainsHostedZones["us-east-1"])
	if cur != nil && cur.APIGatewayDomainName != "" {
		c.APIGatewayDomainName = cur.APIGatewayDomainName
	} else {
		c.APIGatewayDomainName = "d-" + awswire.ShortID(10) + ".execute-api." + sc.Region + ".amazonaws.com"
	}
	return c, nil
}

// domainsMutualTLS checks a mutual TLS input: an empty truststore turns
// mutual TLS off (nil).
func domainsMutualTLS(in *MutualTLSAuthentication) (*MutualTLSAuthentication, error) {
	if in == nil || in.TruststoreURI == "" {
		if in != nil && in.TruststoreVersion != "" {
			return nil, BadRequest("Cannot set a truststore version without a truststore URI")
		}
		return nil, nil
	}
	if !strings.HasPrefix(in.TruststoreURI, "s3://") {
		return nil, BadRequest("Truststore URI must be an S3 URI, e.g. s3://bucket-name/key-name")
	}
	return &MutualTLSAuthentication{TruststoreURI: in.TruststoreURI, TruststoreVersion: in.TruststoreVersion}, nil
}

func domainsRoutingMode(mode string) error {
	if !slices.Contains(DomainRoutingModes, mode) {
		return BadRequest("Invalid routing mode specified. Valid options are %s", strings.Join(DomainRoutingModes, ","))
	}
	return nil
}

// CreateDomainName creates the domain dn (its user-given members set) and
// fills in what AWS computes: the configuration's names and status, the
// ARN, the selection expression and the routing mode.
func (s *Service) CreateDomainName(sc awswire.Scope, dn DomainName) (*DomainState, error) {
	if dn.DomainName == "" {
		return nil, BadRequest("Missing required parameter: domainName")
	}
	if !domainsValidName(dn.DomainName) {
		return nil, BadRequest("Invalid domain name specified: %s", dn.DomainName)
	}
	c, err := domainsConfig(sc, dn.DomainNameConfigurations, nil)
	if err != nil {
		return nil, err
	}
	dn.DomainNameConfigurations = []DomainNameConfiguration{c}
	if dn.MutualTLSAuthentication, err = domainsMutualTLS(dn.MutualTLSAuthentication); err != nil {
		return nil, err
	}
	if dn.RoutingMode == "" {
		dn.RoutingMode = DomainRoutingDefault
	} else if err := domainsRoutingMode(dn.RoutingMode); err != nil {
		return nil, err
	}
	if err := CheckTags(dn.Tags); err != nil {
		return nil, err
	}
	dn.Tags = maps.Clone(dn.Tags)
	dn.APIMappingSelectionExpression = DomainMappingSelection
	dn.DomainNameARN = DomainARN(sc.Region, dn.DomainName)
	d := s.scopes.Get(sc)
	st := &DomainState{Domain: dn, Seq: s.seq.Next()}
	return actors.CreateRecord(s.records(), "apigatewayv2."+kindDomain, domainKey(sc, dn.DomainName), d.domains,
		dn.DomainName, st, errFn(func() *awswire.Error {
			return Conflict("The domain name you provided already exists.")
		}))
}

// Domain returns the published domain name.
func (s *Service) Domain(sc awswire.Scope, name string) (*DomainState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.domains.Get(name)
}

// Domains returns every domain name of the scope, by name.
func (s *Service) Domains(sc awswire.Scope) []*DomainState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.domains.Snapshots(func(a, b *DomainState) int { return cmp.Compare(a.Domain.DomainName, b.Domain.DomainName) })
}

// DomainUpdate is an UpdateDomainName request: nil members were not sent.
type DomainUpdate struct {
	Configurations *[]DomainNameConfiguration
	MutualTLS      *MutualTLSAuthentication
	RoutingMode    *string
}

// UpdateDomainName changes the members u carries.
func (s *Service) UpdateDomainName(sc awswire.Scope, name string, u DomainUpdate) (*DomainState, error) {
	if u.RoutingMode != nil {
		if err := domainsRoutingMode(*u.RoutingMode); err != nil {
			return nil, err
		}
	}
	var mtls *MutualTLSAuthentication
	if u.MutualTLS != nil {
		var err error
		if mtls, err = domainsMutualTLS(u.MutualTLS); err != nil {
			return nil, err
		}
	}
	return s.mutateDomain(sc, name, func(cur *DomainState) (*DomainState, *DomainState, error) {
		next := *cur
		dn := &next.Domain
		if u.Configurations != nil {
			var old *DomainNameConfiguration
			if len(cur.Domain.DomainNameConfigurations) > 0 {
				old = &cur.Domain.DomainNameConfigurations[0]
			}
			c, err := domainsConfig(sc, *u.Configurations, old)
			if err != nil {
				return nil, nil, err
			}
			dn.DomainNameConfigurations = []DomainNameConfiguration{c}
		}
		if u.MutualTLS != nil {
			dn.MutualTLSAuthentication = mtls
		}
		if u.RoutingMode != nil {
			dn.RoutingMode = *u.RoutingMode
		}
		return &next, &next, nil
	})
}

// mutateDomain runs fn in the owner of the domain name; fn returns the new
// state (nil to keep it) and the reply.
func (s *Service) mutateDomain(sc awswire.Scope, name string, fn func(cur *DomainState) (*DomainState, *DomainState, error)) (*DomainState, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, DomainNotFound()
	}
	return actors.MutateRecord(s.records(), domainKey(sc, name), d.domains, name, errFn(DomainNotFound),
		func(cur *DomainState) (*DomainState, *DomainState, error) {
			if cur == nil {
				return nil, nil, DomainNotFound()
			}
			return fn(cur)
		})
}

// DeleteDomainName deletes a domain name and its API mappings.
func (s *Service) DeleteDomainName(sc awswire.Scope, name string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return DomainNotFound()
	}
	_, _, err := actors.EndRecord(s.records(), domainKey(sc, name), d.domains, name, errFn(DomainNotFound),
		func(last *DomainState) []actors.Pending {
			for id, m := range last.Mappings {
				d.refs.Remove(stageTarget(m.APIID, m.Stage), mappingReferrer(name, id))
			}
			return nil
		})
	return err
}

// ---- API mappings ----

// domainsKeyChars are the characters an API mapping key may hold besides
// letters, digits and the "/" between levels.
const domainsKeyChars = "$-_.+!*'(),"

// checkMappingKey checks an API mapping key: empty (the root) or path
// segments of letters, digits and domainsKeyChars.
func checkMappingKey(key string) error {
	for _, c := range key {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '/' ||
			strings.ContainsRune(domainsKeyChars, c)) {
			return BadRequest("An ApiMapping key may contain only letters, numbers and one of %s", domainsKeyChars)
		}
	}
	switch {
	case strings.HasPrefix(key, "/") || strings.Contains(key, "//"):
		return BadRequest("API mapping key should not start with a '/' or have consecutive '/'s.")
	case strings.HasSuffix(key, "/"):
		return BadRequest("API mapping key should not end with a '/'.")
	}
	return nil
}

// checkMappingTarget checks, inside the domain's owner and after the
// mapping's reference is recorded (refs.go), that the API and stage a
// mapping names exist.
func (s *Service) checkMappingTarget(sc awswire.Scope, d *dirs, domain, id, apiID, stage string) error {
	d.refs.Add(stageTarget(apiID, stage), mappingReferrer(domain, id))
	api, ok := s.API(sc, apiID)
	if !ok {
		return APINotFound(sc, apiID)
	}
	if _, ok := api.Stages.Get(stage); !ok {
		return BadRequest("Invalid stage identifier specified")
	}
	return nil
}

// mappingsEdit is what a change of a domain's mappings decided: the reply,
// whether anything changed, and the references to forget once the change
// is durable (or, when it fails, those it recorded).
type mappingsEdit[R any] struct {
	reply   R
	changed bool
	forget  []mappingRef
}

// mappingRef is one mapping's reference to an API stage.
type mappingRef struct{ id, apiID, stage string }

// mutateMappings runs fn on a copy of the domain's mappings inside its
// owner.
func mutateMappings[R any](s *Service, sc awswire.Scope, domain string,
	fn func(d *dirs, next map[string]*APIMapping) (mappingsEdit[R], error)) (R, error) {
	var zero R
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return zero, DomainNotFound()
	}
	forget := func(refs []mappingRef) {
		for _, r := range refs {
			d.refs.Remove(stageTarget(r.apiID, r.stage), mappingReferrer(domain, r.id))
		}
	}
	return actors.EditRecord(s.records(), domainKey(sc, domain), d.domains, domain, errFn(DomainNotFound),
		func(cur *DomainState) (actors.Edit[DomainState, R], error) {
			var none actors.Edit[DomainState, R]
			if cur == nil {
				return none, DomainNotFound()
			}
			m := maps.Clone(cur.Mappings)
			if m == nil {
				m = map[string]*APIMapping{}
			}
			ed, err := fn(d, m)
			if err != nil {
				forget(ed.forget)
				return none, err
			}
			if !ed.changed {
				return actors.Edit[DomainState, R]{Reply: ed.reply}, nil
			}
			next := *cur
			next.Mappings = m
			if len(m) == 0 {
				next.Mappings = nil
			}
			return actors.Edit[DomainState, R]{Next: &next, Reply: ed.reply, After: func() { forget(ed.forget) }}, nil
		})
}

// mappingKeyTaken is the error for a key another mapping of the domain has.
func mappingKeyTaken(m map[string]*APIMapping, key, except string) error {
	for id, o := range m {
		if id != except && o.APIMappingKey == key {
			return Conflict("ApiMapping key already exists for this domain name")
		}
	}
	return nil
}

// CreateAPIMapping maps a key of a domain to an API stage.
func (s *Service) CreateAPIMapping(sc awswire.Scope, domain string, in APIMapping) (*APIMapping, error) {
	if in.APIID == "" {
		return nil, BadRequest("Missing required parameter: apiId")
	}
	if in.Stage == "" {
		return nil, BadRequest("Missing required parameter: stage")
	}
	if err := checkMappingKey(in.APIMappingKey); err != nil {
		return nil, err
	}
	return mutateMappings(s, sc, domain, func(d *dirs, next map[string]*APIMapping) (mappingsEdit[*APIMapping], error) {
		m := in
		m.APIMappingID = NewID(10, func(id string) bool { _, taken := next[id]; return taken })
		// Checked in the owner, so that the domain's existence decides
		// first, as on AWS.
		if err := s.checkMappingTarget(sc, d, domain, m.APIMappingID, m.APIID, m.Stage); err != nil {
			return mappingsEdit[*APIMapping]{forget: []mappingRef{{m.APIMappingID, m.APIID, m.Stage}}}, err
		}
		if err := mappingKeyTaken(next, in.APIMappingKey, ""); err != nil {
			return mappingsEdit[*APIMapping]{forget: []mappingRef{{m.APIMappingID, m.APIID, m.Stage}}}, err
		}
		next[m.APIMappingID] = &m
		return mappingsEdit[*APIMapping]{reply: &m, changed: true}, nil
	})
}

// APIMapping returns one mapping of a domain.
func (s *Service) APIMapping(sc awswire.Scope, domain, id string) (*APIMapping, error) {
	st, ok := s.Domain(sc, domain)
	if !ok {
		return nil, DomainNotFound()
	}
	m, ok := st.Mappings[id]
	if !ok {
		return nil, MappingNotFound()
	}
	return m, nil
}

// APIMappings returns the mappings of a domain, by id.
func (s *Service) APIMappings(sc awswire.Scope, domain string) ([]*APIMapping, error) {
	st, ok := s.Domain(sc, domain)
	if !ok {
		return nil, DomainNotFound()
	}
	out := slices.Collect(maps.Values(st.Mappings))
	slices.SortFunc(out, func(a, b *APIMapping) int { return cmp.Compare(a.APIMappingID, b.APIMappingID) })
	return out, nil
}

// MappingUpdate is an UpdateApiMapping request: apiId is required, nil
// members were not sent.
type MappingUpdate struct {
	APIID         string
	APIMappingKey *string
	Stage         *string
}

// UpdateAPIMapping re-points or re-keys a mapping.
func (s *Service) UpdateAPIMapping(sc awswire.Scope, domain, id string, u MappingUpdate) (*APIMapping, error) {
	if u.APIID == "" {
		return nil, BadRequest("Missing required parameter: apiId")
	}
	if u.APIMappingKey != nil {
		if err := checkMappingKey(*u.APIMappingKey); err != nil {
			return nil, err
		}
	}
	if u.Stage != nil && *u.Stage == "" {
		return nil, BadRequest("Invalid stage identifier specified")
	}
	return mutateMappings(s, sc, domain, func(d *dirs, next map[string]*APIMapping) (mappingsEdit[*APIMapping], error) {
		var none mappingsEdit[*APIMapping]
		cur, ok := next[id]
		if !ok {
			return none, MappingNotFound()
		}
		m := *cur
		m.APIID = u.APIID
		if u.Stage != nil {
			m.Stage = *u.Stage
		}
		if u.APIMappingKey != nil {
			m.APIMappingKey = *u.APIMappingKey
		}
		// The new reference goes if the change fails; the old one once
		// the change is durable.
		moved := m.APIID != cur.APIID || m.Stage != cur.Stage
		failed := none
		if moved {
			failed.forget = []mappingRef{{id, m.APIID, m.Stage}}
		}
		if err := s.checkMappingTarget(sc, d, domain, id, m.APIID, m.Stage); err != nil {
			return failed, err
		}
		if err := mappingKeyTaken(next, m.APIMappingKey, id); err != nil {
			return failed, err
		}
		next[id] = &m
		ed := mappingsEdit[*APIMapping]{reply: &m, changed: m != *cur}
		if moved {
			ed.forget = []mappingRef{{id, cur.APIID, cur.Stage}}
		}
		return ed, nil
	})
}

// DeleteAPIMapping removes one mapping of a domain.
func (s *Service) DeleteAPIMapping(sc awswire.Scope, domain, id string) error {
	_, err := mutateMappings(s, sc, domain, func(_ *dirs, next map[string]*APIMapping) (mappingsEdit[struct{}], error) {
		m, ok := next[id]
		if !ok {
			return mappingsEdit[struct{}]{}, MappingNotFound()
		}
		delete(next, id)
		return mappingsEdit[struct{}]{changed: true, forget: []mappingRef{{id, m.APIID, m.Stage}}}, nil
	})
	return err
}
