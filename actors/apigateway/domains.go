package apigateway

import (
	"cmp"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Domain names (with their base path mappings) and VPC links are inert
// metadata (docs/apigateway.md): each is one record with its own owner, and nothing
// routes through them.

// NoneBasePath is how AWS names the empty base path, in replies and in the
// base_path label.
const NoneBasePath = "(none)"

// VpcLinkReady is the status message of an AVAILABLE VPC link.
const VpcLinkReady = "Your vpc link is ready for use"

// edgeHostedZoneID is CloudFront's hosted zone, the same in every region.
const edgeHostedZoneID = "Z2FDTNDATAQYW2"

// regionalHostedZones are execute-api's Route 53 hosted zones, by region, as
// AWS publishes them; Terraform and CDK alias DNS records to them.
var regionalHostedZones = map[string]string{
	"us-east-1": "Z1UJRXOUMOOFQ8", "us-east-2": "ZOJJZC49E0EPZ",
	"us-west-1": "Z2MUQ32089INYE", "us-west-2": "Z2OJLYMUO9EFXC",
	"ca-central-1": "Z19DQILCV0OWEC", "sa-east-1": "ZCMLWB8V5SYIT",
	"eu-west-1": "ZLY8HYME6SFDD", "eu-west-2": "ZJ5UAJN8Y3Z2Q", "eu-west-3": "Z3KY65QIEKYHQQ",
	"eu-central-1": "Z1U9ULNL0V5AJ3", "eu-north-1": "Z3UWIKFBOOGXPP",
	"ap-northeast-1": "Z1YSHQZHG15GKL", "ap-northeast-2": "Z20JF4UZKIW1U8",
	"ap-south-1": "Z3VO1THU9YC4UR", "ap-southeast-1": "ZL327KTPIQFUL", "ap-southeast-2": "Z2RPCDW04V8134",
}

// SecurityPolicies are the model's TLS policies, in its order.
var SecurityPolicies = []string{
	"TLS_1_0", "TLS_1_2", "SecurityPolicy_TLS13_1_3_2025_09", "SecurityPolicy_TLS13_1_3_FIPS_2025_09",
	"SecurityPolicy_TLS13_1_2_PFS_PQ_2025_09", "SecurityPolicy_TLS13_1_2_FIPS_PQ_2025_09",
	"SecurityPolicy_TLS13_1_2_FIPS_PFS_PQ_2025_09", "SecurityPolicy_TLS13_1_2_PQ_2025_09",
	"SecurityPolicy_TLS13_1_2_2021_06", "SecurityPolicy_TLS13_2025_EDGE", "SecurityPolicy_TLS12_PFS_2025_EDGE",
	"SecurityPolicy_TLS12_2018_EDGE",
}

// RoutingModes and EndpointAccessModes are the model's enums, in its order.
var (
	RoutingModes        = []string{"BASE_PATH_MAPPING_ONLY", "ROUTING_RULE_ONLY", "ROUTING_RULE_THEN_BASE_PATH_MAPPING"}
	EndpointAccessModes = []string{"BASIC", "STRICT"}
)

// DomainNotFound is the error for an unknown domain name.
func DomainNotFound() *awswire.Error { return notFound("Invalid domain name identifier specified") }

// VpcLinkNotFound is the error for an unknown VPC link.
func VpcLinkNotFound() *awswire.Error { return notFound("Invalid Vpc Link identifier specified") }

func mappingGone() *awswire.Error { return notFound("Invalid base path mapping identifier specified") }

// ---- domain names ----

// validDomainName accepts DNS names (a leading "*" label for wildcards),
// which also keeps the name usable as a store key.
func validDomainName(name string) bool {
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

// CreateDomainName creates the domain dn (its user-given members set) and
// fills in what AWS computes: status, ARN, the CloudFront or regional
// names, the security policy and routing mode defaults.
func (s *Service) CreateDomainName(sc awswire.Scope, dn DomainName) (*DomainState, error) {
	if dn.DomainName == "" {
		return nil, BadRequest("No Domain Name specified")
	}
	if !validDomainName(dn.DomainName) {
		return nil, BadRequest("Invalid domain name specified: %s", dn.DomainName)
	}
	ec := EndpointConfiguration{Types: []string{"EDGE"}}
	if dn.EndpointConfiguration != nil {
		ec = *dn.EndpointConfiguration
		ec.Types = slices.Clone(ec.Types)
		switch len(ec.Types) {
		case 0:
			return nil, BadRequest("REGIONAL Configuration and EDGE Configuration cannot be both DISABLED.")
		case 1:
		default:
			return nil, BadRequest("Cannot create a domain name with multiple Endpoint Types.")
		}
	}
	switch {
	case ec.Types[0] == "PRIVATE" && ec.IPAddressType == "ipv4":
		return nil, BadRequest("Only dualstack ipAddressType is supported for Private APIs.")
	case ec.Types[0] == "PRIVATE":
		ec.IPAddressType = "dualstack"
	case ec.IPAddressType == "":
		ec.IPAddressType = "ipv4"
	}
	dn.EndpointConfiguration = &ec
	if err := ValidateTags(dn.Tags); err != nil {
		return nil, err
	}
	dn.DomainNameStatus = "AVAILABLE"
	if dn.SecurityPolicy == "" {
		dn.SecurityPolicy = "TLS_1_2"
	}
	if dn.RoutingMode == "" {
		dn.RoutingMode = "BASE_PATH_MAPPING_ONLY"
	}
	dn.DomainNameARN = "arn:aws:apigateway:" + sc.Region + "::/domainnames/" + dn.DomainName
	if ec.Types[0] == "PRIVATE" {
		// A private domain has an id; its ARN names the owner and the id.
		dn.DomainNameID = awswire.ShortID(10)
		dn.DomainNameARN = "arn:aws:apigateway:" + sc.Region + ":" + sc.Account + ":/domainnames/" +
			dn.DomainName + "+" + dn.DomainNameID
	}
	if dn.CertificateARN != "" || dn.CertificateName != "" {
		now := awswire.Epoch(s.now().UnixMilli())
		dn.CertificateUploadDate = &now
	}
	syncDomainEndpoints(sc, &dn)
	d := s.scopes.Get(sc)
	st := &DomainState{Domain: dn, Seq: s.seq.Next()}
	return createRecord(s, sc, kindDomain, d.domains, dn.DomainName, st, func() *awswire.Error {
		return BadRequest("The domain name you provided already exists.")
	})
}

// syncDomainEndpoints gives each endpoint type the host names AWS gives it
// (kept once given) and drops those of types no longer set.
func syncDomainEndpoints(sc awswire.Scope, dn *DomainName) {
	var types []string
	if dn.EndpointConfiguration != nil {
		types = dn.EndpointConfiguration.Types
	}
	if slices.Contains(types, "EDGE") {
		if dn.DistributionDomainName == "" {
			dn.DistributionDomainName = "d" + awswire.ShortID(13) + ".cloudfront.net"
		}
		dn.DistributionHostedZoneID = edgeHostedZoneID
	} else {
		dn.DistributionDomainName, dn.DistributionHostedZoneID = "", ""
	}
	if slices.Contains(types, "REGIONAL") {
		if dn.RegionalDomainName == "" {
			dn.RegionalDomainName = "d-" + awswire.ShortID(10) + ".execute-api." + sc.Region + ".amazonaws.com"
		}
		dn.RegionalHostedZoneID = cmp.Or(regionalHostedZones[sc.Region], regionalHostedZones["us-east-1"])
	} else {
		dn.RegionalDomainName, dn.RegionalHostedZoneID = "", ""
	}
}

// Domain returns the published domain name; domainNameID, when given, must
// be the domain's id (private domains).
func (s *Service) Domain(sc awswire.Scope, name, domainNameID string) (*DomainState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	st, ok := d.domains.Get(name)
	if !ok || (domainNameID != "" && domainNameID != st.Domain.DomainNameID) {
		return nil, false
	}
	return st, true
}

// Domains returns every domain name of the scope, by name.
func (s *Service) Domains(sc awswire.Scope) []*DomainState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.domains.Snapshots(func(a, b *DomainState) int { return cmp.Compare(a.Domain.DomainName, b.Domain.DomainName) })
}

// domainPatch are the paths UpdateDomainName accepts (AWS's patch table,
// plus the paths Terraform patches: /endpointConfiguration/types/0 and the
// mutual TLS truststore).
var domainPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/certificateName", []string{"add", "replace", "remove"}},
	{"/certificateArn", []string{"add", "replace", "remove"}},
	{"/regionalCertificateName", []string{"add", "replace", "remove"}},
	{"/regionalCertificateArn", []string{"add", "replace", "remove"}},
	{"/endpointConfiguration/types", []string{"add", "remove"}},
	{"/endpointConfiguration/types/*", []string{"replace"}},
	{"/endpointConfiguration/ipAddressType", []string{"replace"}},
	{"/securityPolicy", []string{"replace"}},
	{"/mutualTlsAuthentication/truststoreUri", []string{"replace"}},
	{"/mutualTlsAuthentication/truststoreVersion", []string{"replace"}},
	{"/ownershipVerificationCertificateArn", []string{"replace"}},
	{"/policy", []string{"replace"}},
	{"/routingMode", []string{"replace"}},
	{"/endpointAccessMode", []string{"replace"}},
}}

// UpdateDomainName applies patch operations to a domain name.
func (s *Service) UpdateDomainName(sc awswire.Scope, name, domainNameID string, ops []PatchOp) (*DomainState, error) {
	var v Validation
	v.PatchOps("updateDomainNameInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := domainPatch.Check(ops); err != nil {
		return nil, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, DomainNotFound()
	}
	now := s.now()
	return mutateRecord(s, sc, kindDomain, d.domains, name, DomainNotFound,
		func(cur *DomainState) (*DomainState, *DomainState, error) {
			if cur == nil || (domainNameID != "" && domainNameID != cur.Domain.DomainNameID) {
				return nil, nil, DomainNotFound()
			}
			dn := cur.Domain
			ec := EndpointConfiguration{}
			if dn.EndpointConfiguration != nil {
				ec = *dn.EndpointConfiguration
				ec.Types = slices.Clone(ec.Types)
			}
			dn.EndpointConfiguration = &ec
			if dn.MutualTLSAuthentication != nil {
				m := *dn.MutualTLSAuthentication
				dn.MutualTLSAuthentication = &m
			}
			for _, o := range ops {
				if err := patchDomain(&dn, o); err != nil {
					return nil, nil, err
				}
			}
			if dn.CertificateARN != cur.Domain.CertificateARN || dn.CertificateName != cur.Domain.CertificateName {
				if dn.CertificateARN == "" && dn.CertificateName == "" {
					dn.CertificateUploadDate = nil
				} else {
					at := awswire.Epoch(now.UnixMilli())
					dn.CertificateUploadDate = &at
				}
			}
			syncDomainEndpoints(sc, &dn)
			next := *cur
			next.Domain = dn
			return &next, &next, nil
		})
}

func patchDomain(dn *DomainName, o PatchOp) error {
	val := o.Val()
	if o.Op == "remove" {
		val = ""
	}
	ec := dn.EndpointConfiguration
	switch {
	case o.Path == "/certificateName":
		dn.CertificateName = val
	case o.Path == "/certificateArn":
		dn.CertificateARN = val
	case o.Path == "/regionalCertificateName":
		dn.RegionalCertificateName = val
	case o.Path == "/regionalCertificateArn":
		dn.RegionalCertificateARN = val
	case strings.HasPrefix(o.Path, "/endpointConfiguration/types"):
		// A domain moves between EDGE and REGIONAL by adding the new type
		// and later removing the old one; a private domain stays private.
		if (val != "EDGE" && val != "REGIONAL" && o.Op != "remove") || slices.Contains(ec.Types, "PRIVATE") {
			return BadRequest("Invalid EndpointTypes specified. Valid options are REGIONAL,EDGE")
		}
		switch o.Op {
		case "add":
			if !slices.Contains(ec.Types, val) {
				ec.Types = append(ec.Types, val)
			}
		case "replace":
			ec.Types = []string{val}
		case "remove":
			rm := o.Val()
			ec.Types = slices.DeleteFunc(ec.Types, func(t string) bool { return t == rm })
			if len(ec.Types) == 0 {
				return BadRequest("REGIONAL Configuration and EDGE Configuration cannot be both DISABLED.")
			}
		}
	case o.Path == "/endpointConfiguration/ipAddressType":
		if val != "ipv4" && val != "dualstack" {
			return BadRequest("ipAddressType must be either ipv4 or dualstack.")
		}
		if val == "ipv4" && slices.Contains(ec.Types, "PRIVATE") {
			return BadRequest("Only dualstack ipAddressType is supported for Private APIs.")
		}
		ec.IPAddressType = val
	case o.Path == "/securityPolicy":
		if !slices.Contains(SecurityPolicies, val) {
			return BadRequest("Invalid security policy specified. Valid options are %s", strings.Join(SecurityPolicies, ","))
		}
		dn.SecurityPolicy = val
	case o.Path == "/mutualTlsAuthentication/truststoreUri":
		// An empty truststore turns mutual TLS off, as AWS documents.
		if val == "" {
			dn.MutualTLSAuthentication = nil
			return nil
		}
		if dn.MutualTLSAuthentication == nil {
			dn.MutualTLSAuthentication = &MutualTLSAuthentication{}
		}
		dn.MutualTLSAuthentication.TruststoreURI = val
	case o.Path == "/mutualTlsAuthentication/truststoreVersion":
		if dn.MutualTLSAuthentication == nil {
			return BadRequest("Cannot set a truststore version without a truststore URI")
		}
		dn.MutualTLSAuthentication.TruststoreVersion = val
	case o.Path == "/ownershipVerificationCertificateArn":
		dn.OwnershipVerificationCertificateARN = val
	case o.Path == "/policy":
		dn.Policy = val
	case o.Path == "/routingMode":
		if !slices.Contains(RoutingModes, val) {
			return BadRequest("Invalid routing mode specified. Valid options are %s", strings.Join(RoutingModes, ","))
		}
		dn.RoutingMode = val
	case o.Path == "/endpointAccessMode":
		if !slices.Contains(EndpointAccessModes, val) {
			return BadRequest("Invalid endpoint access mode specified. Valid options are %s", strings.Join(EndpointAccessModes, ","))
		}
		dn.EndpointAccessMode = val
	}
	return nil
}

// DeleteDomainName deletes a domain name and its base path mappings.
func (s *Service) DeleteDomainName(sc awswire.Scope, name, domainNameID string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return DomainNotFound()
	}
	if _, ok := s.Domain(sc, name, domainNameID); !ok {
		return DomainNotFound()
	}
	_, _, err := actors.EndRecord(s.records(), recordKey(sc, kindDomain, name), d.domains, name, errFn(DomainNotFound),
		func(last *DomainState) []actors.Pending {
			for _, m := range last.Mappings {
				d.refs.Remove(stageTarget(m.RestAPIID, m.Stage), mappingReferrer(name, m.BasePath))
			}
			return nil
		})
	return err
}

// ---- base path mappings ----

// BasePathKey is the key of a base path: AWS names the empty one "(none)".
func BasePathKey(basePath string) string {
	if basePath == "" {
		return NoneBasePath
	}
	return basePath
}

// checkMapping checks what a mapping names, as AWS does when it is created
// or changed: a one-level base path, an existing API and stage. It runs
// inside the domain's owner, after the mapping's reference is recorded
// (refs.go).
func (s *Service) checkMapping(sc awswire.Scope, d *dirs, domain string, m *BasePathMapping) error {
	if strings.Contains(m.BasePath, "/") {
		return BadRequest("API Gateway V1 doesn't support the slash character (/) in base path mappings. " +
			"To create a multi-level base path mapping, use API Gateway V2.")
	}
	d.refs.Add(stageTarget(m.RestAPIID, m.Stage), mappingReferrer(domain, m.BasePath))
	api, ok := s.API(sc, m.RestAPIID)
	if !ok {
		return BadRequest("Invalid REST API identifier specified")
	}
	if _, ok := api.Stages.Get(m.Stage); m.Stage != "" && !ok {
		return BadRequest("Invalid stage identifier specified")
	}
	return nil
}

// mappingsEdit is what a change of a domain's mappings decided: the reply,
// whether anything changed, and the mappings whose references go once the
// change is durable (or, when it fails, the references it recorded).
type mappingsEdit[R any] struct {
	reply   R
	changed bool
	forget  []*BasePathMapping
}

// mutateMappings runs fn on a copy of the domain's mappings.
func mutateMappings[R any](s *Service, sc awswire.Scope, domain, domainNameID string,
	fn func(d *dirs, next map[string]*BasePathMapping) (mappingsEdit[R], error)) (R, error) {
	var zero R
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return zero, DomainNotFound()
	}
	forget := func(ms []*BasePathMapping) {
		for _, m := range ms {
			d.refs.Remove(stageTarget(m.RestAPIID, m.Stage), mappingReferrer(domain, m.BasePath))
		}
	}
	return actors.EditRecord(s.records(), recordKey(sc, kindDomain, domain), d.domains, domain, errFn(DomainNotFound),
		func(cur *DomainState) (actors.Edit[DomainState, R], error) {
			var none actors.Edit[DomainState, R]
			if cur == nil || (domainNameID != "" && domainNameID != cur.Domain.DomainNameID) {
				return none, DomainNotFound()
			}
			m := maps.Clone(cur.Mappings)
			if m == nil {
				m = map[string]*BasePathMapping{}
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

// CreateBasePathMapping maps a base path of a domain to an API (and stage).
func (s *Service) CreateBasePathMapping(sc awswire.Scope, domain, domainNameID string, m BasePathMapping) (*BasePathMapping, error) {
	m.BasePath = BasePathKey(m.BasePath)
	return mutateMappings(s, sc, domain, domainNameID,
		func(d *dirs, next map[string]*BasePathMapping) (mappingsEdit[*BasePathMapping], error) {
			if _, ok := next[m.BasePath]; ok {
				return mappingsEdit[*BasePathMapping]{}, Conflict("Base path already exists for this domain name")
			}
			if err := s.checkMapping(sc, d, domain, &m); err != nil {
				return mappingsEdit[*BasePathMapping]{forget: []*BasePathMapping{&m}}, err
			}
			c := m
			next[c.BasePath] = &c
			return mappingsEdit[*BasePathMapping]{reply: &c, changed: true}, nil
		})
}

// BasePathMapping returns one mapping of a domain.
func (s *Service) BasePathMapping(sc awswire.Scope, domain, domainNameID, basePath string) (*BasePathMapping, error) {
	st, ok := s.Domain(sc, domain, domainNameID)
	if !ok {
		return nil, DomainNotFound()
	}
	m, ok := st.Mappings[BasePathKey(basePath)]
	if !ok {
		return nil, mappingGone()
	}
	return m, nil
}

// BasePathMappings returns a domain's mappings, by base path.
func (s *Service) BasePathMappings(sc awswire.Scope, domain, domainNameID string) ([]*BasePathMapping, error) {
	st, ok := s.Domain(sc, domain, domainNameID)
	if !ok {
		return nil, DomainNotFound()
	}
	out := slices.Collect(maps.Values(st.Mappings))
	slices.SortFunc(out, func(a, b *BasePathMapping) int { return cmp.Compare(a.BasePath, b.BasePath) })
	return out, nil
}

// mappingPatch are the paths UpdateBasePathMapping accepts: AWS's table
// spells the API path "/restapiId"; the member's own casing is accepted too.
var mappingPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/basePath", []string{"replace"}},
	{"/restapiId", []string{"replace"}},
	{"/restApiId", []string{"replace"}},
	{"/stage", []string{"replace"}},
}}

// UpdateBasePathMapping re-points or renames a mapping. Renaming it onto an
// existing base path replaces that mapping, as AWS does.
func (s *Service) UpdateBasePathMapping(sc awswire.Scope, domain, domainNameID, basePath string, ops []PatchOp) (*BasePathMapping, error) {
	var v Validation
	v.PatchOps("updateBasePathMappingInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := mappingPatch.Check(ops); err != nil {
		return nil, err
	}
	key := BasePathKey(basePath)
	return mutateMappings(s, sc, domain, domainNameID,
		func(d *dirs, next map[string]*BasePathMapping) (mappingsEdit[*BasePathMapping], error) {
			var none mappingsEdit[*BasePathMapping]
			cur, ok := next[key]
			if !ok {
				return none, mappingGone()
			}
			c := *cur
			for _, o := range ops {
				switch o.Path {
				case "/basePath":
					c.BasePath = BasePathKey(o.Val())
				case "/restapiId", "/restApiId":
					c.RestAPIID = o.Val()
				case "/stage":
					c.Stage = o.Val()
				}
			}
			// A reference another mapping shares the key of must stay.
			old, replaced := next[c.BasePath]
			if err := s.checkMapping(sc, d, domain, &c); err != nil {
				if replaced && sameRef(old, &c) {
					return none, err
				}
				return mappingsEdit[*BasePathMapping]{forget: []*BasePathMapping{&c}}, err
			}
			// Renaming onto an existing base path replaces that mapping.
			var forget []*BasePathMapping
			if replaced && c.BasePath != key && !sameRef(old, &c) {
				forget = append(forget, old)
			}
			if !sameRef(cur, &c) {
				forget = append(forget, cur)
			}
			delete(next, key)
			next[c.BasePath] = &c
			return mappingsEdit[*BasePathMapping]{reply: &c, changed: true, forget: forget}, nil
		})
}

// DeleteBasePathMapping removes one mapping of a domain.
func (s *Service) DeleteBasePathMapping(sc awswire.Scope, domain, domainNameID, basePath string) error {
	key := BasePathKey(basePath)
	_, err := mutateMappings(s, sc, domain, domainNameID,
		func(_ *dirs, next map[string]*BasePathMapping) (mappingsEdit[struct{}], error) {
			m, ok := next[key]
			if !ok {
				return mappingsEdit[struct{}]{}, mappingGone()
			}
			delete(next, key)
			return mappingsEdit[struct{}]{changed: true, forget: []*BasePathMapping{m}}, nil
		})
	return err
}

// sameRef reports whether two mappings have one reference: one base path
// to one API stage.
func sameRef(a, b *BasePathMapping) bool {
	return a.BasePath == b.BasePath && a.RestAPIID == b.RestAPIID && a.Stage == b.Stage
}

// tellDomain queues change in the owner of domain name (see tellPlan).
func (s *Service) tellDomain(sc awswire.Scope, d *dirs, name string, change func(*DomainState) (*DomainState, func())) actors.Pending {
	e, ok := d.domains.Lookup(name)
	if !ok {
		return actors.Pending{}
	}
	return actors.Tell(s.sys, e, actors.EditFunc(recordKey(sc, kindDomain, name), change))
}

// dropMappings returns dn without the mappings match selects, and forgets
// their references once that is durable; nil when it has none.
func dropMappings(d *dirs, dn *DomainState, match func(*BasePathMapping) bool) (*DomainState, func()) {
	var gone []*BasePathMapping
	for _, m := range dn.Mappings {
		if match(m) {
			gone = append(gone, m)
		}
	}
	if len(gone) == 0 {
		return nil, nil
	}
	next := *dn
	next.Mappings = maps.Clone(dn.Mappings)
	for _, m := range gone {
		delete(next.Mappings, m.BasePath)
	}
	if len(next.Mappings) == 0 {
		next.Mappings = nil
	}
	name := dn.Domain.DomainName
	return &next, func() {
		for _, m := range gone {
			d.refs.Remove(stageTarget(m.RestAPIID, m.Stage), mappingReferrer(name, m.BasePath))
		}
	}
}

// ---- VPC links ----

// CreateVpcLink creates a VPC link, AVAILABLE at once (docs/apigateway.md): no
// connectivity is ever set up.
func (s *Service) CreateVpcLink(sc awswire.Scope, l VpcLink) (*LinkState, error) {
	if l.Name == "" {
		return nil, BadRequest("Name cannot be empty")
	}
	if len(l.TargetARNs) == 0 {
		return nil, BadRequest("Target ARNs cannot be empty")
	}
	for _, a := range l.TargetARNs {
		if _, ok := awswire.ParseARN(a); !ok {
			return nil, BadRequest("Invalid ARN. ARN is not well formed %s", a)
		}
	}
	if err := ValidateTags(l.Tags); err != nil {
		return nil, err
	}
	l.Status, l.StatusMessage = "AVAILABLE", VpcLinkReady
	d := s.scopes.Get(sc)
	for range 8 {
		l.ID = awswire.ShortID(6)
		clash := false
		st, err := createRecord(s, sc, kindLink, d.links, l.ID, &LinkState{Link: l, Seq: s.seq.Next()},
			func() *awswire.Error { clash = true; return Conflict("VPC link id %s is taken", l.ID) })
		if err == nil || !clash {
			return st, err
		}
	}
	return nil, awswire.Unavailable(awswire.APIGateway)
}

// VpcLink returns the published VPC link id.
func (s *Service) VpcLink(sc awswire.Scope, id string) (*LinkState, bool) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, false
	}
	return d.links.Get(id)
}

// VpcLinks returns every VPC link of the scope in creation order.
func (s *Service) VpcLinks(sc awswire.Scope) []*LinkState {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil
	}
	return d.links.Snapshots(func(a, b *LinkState) int { return cmp.Compare(a.Seq, b.Seq) })
}

// linkPatch are the paths UpdateVpcLink accepts.
var linkPatch = Patchable{Style: BarePath, Rules: []PatchRule{
	{"/name", []string{"replace"}},
	{"/description", []string{"replace"}},
}}

// UpdateVpcLink applies patch operations to a VPC link.
func (s *Service) UpdateVpcLink(sc awswire.Scope, id string, ops []PatchOp) (*LinkState, error) {
	var v Validation
	v.PatchOps("updateVpcLinkInput", ops)
	if err := v.Err(); err != nil {
		return nil, err
	}
	if err := linkPatch.Check(ops); err != nil {
		return nil, err
	}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, VpcLinkNotFound()
	}
	return mutateRecord(s, sc, kindLink, d.links, id, VpcLinkNotFound,
		func(cur *LinkState) (*LinkState, *LinkState, error) {
			if cur == nil {
				return nil, nil, VpcLinkNotFound()
			}
			next := *cur
			for _, o := range ops {
				switch o.Path {
				case "/name":
					if o.Val() == "" {
						return nil, nil, BadRequest("Name cannot be empty")
					}
					next.Link.Name = o.Val()
				case "/description":
					next.Link.Description = o.Val()
				}
			}
			return &next, &next, nil
		})
}

// DeleteVpcLink deletes a VPC link.
func (s *Service) DeleteVpcLink(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return VpcLinkNotFound()
	}
	_, err := deleteRecord(s, sc, kindLink, d.links, id, VpcLinkNotFound)
	return err
}
