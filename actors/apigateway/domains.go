package apigateway

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/cloudemu/emulator/awswire"
)

// Domain names (with their base path mappings) and VPC links are inert
// metadata (SPEC.md): each is one record with its own owner, and nothing
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
	st := &DomainState{Domain: dn, Seq: s.seq.Add(1)}
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
	_, err := deleteRecord(s, sc, kindDomain, d.domains, name, DomainNotFound)
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
// or changed: a one-level base path, an existing API and stage.
func (s *Service) checkMapping(sc awswire.Scope, m *BasePathMapping) error {
	if strings.Contains(m.BasePath, "/") {
		return BadRequest("API Gateway V1 doesn't support the slash character (/) in base path mappings. " +
			"To create a multi-level base path mapping, use API Gateway V2.")
	}
	api, ok := s.API(sc, m.RestAPIID)
	if !ok {
		return BadRequest("Invalid REST API identifier specified")
	}
	if _, ok := api.Stages[m.Stage]; m.Stage != "" && !ok {
		return BadRequest("Invalid stage identifier specified")
	}
	return nil
}

// mutateMappings runs fn on a copy of the domain's mappings; fn returns the
// reply, or nil to leave the domain unchanged.
func mutateMappings[R any](s *Service, sc awswire.Scope, domain, domainNameID string,
	fn func(cur *DomainState, next map[string]*BasePathMapping) (R, bool, error)) (R, error) {
	var zero R
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return zero, DomainNotFound()
	}
	return mutateRecord(s, sc, kindDomain, d.domains, domain, DomainNotFound,
		func(cur *DomainState) (*DomainState, R, error) {
			if cur == nil || (domainNameID != "" && domainNameID != cur.Domain.DomainNameID) {
				return nil, zero, DomainNotFound()
			}
			m := maps.Clone(cur.Mappings)
			if m == nil {
				m = map[string]*BasePathMapping{}
			}
			r, changed, err := fn(cur, m)
			if err != nil || !changed {
				return nil, r, err
			}
			next := *cur
			next.Mappings = m
			if len(m) == 0 {
				next.Mappings = nil
			}
			return &next, r, nil
		})
}

// CreateBasePathMapping maps a base path of a domain to an API (and stage).
func (s *Service) CreateBasePathMapping(sc awswire.Scope, domain, domainNameID string, m BasePathMapping) (*BasePathMapping, error) {
	m.BasePath = BasePathKey(m.BasePath)
	return mutateMappings(s, sc, domain, domainNameID,
		func(_ *DomainState, next map[string]*BasePathMapping) (*BasePathMapping, bool, error) {
			if err := s.checkMapping(sc, &m); err != nil {
				return nil, false, err
			}
			if _, ok := next[m.BasePath]; ok {
				return nil, false, Conflict("Base path already exists for this domain name")
			}
			c := m
			next[c.BasePath] = &c
			return &c, true, nil
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
		func(_ *DomainState, next map[string]*BasePathMapping) (*BasePathMapping, bool, error) {
			cur, ok := next[key]
			if !ok {
				return nil, false, mappingGone()
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
			if err := s.checkMapping(sc, &c); err != nil {
				return nil, false, err
			}
			delete(next, key)
			next[c.BasePath] = &c
			return &c, true, nil
		})
}

// DeleteBasePathMapping removes one mapping of a domain.
func (s *Service) DeleteBasePathMapping(sc awswire.Scope, domain, domainNameID, basePath string) error {
	key := BasePathKey(basePath)
	_, err := mutateMappings(s, sc, domain, domainNameID,
		func(_ *DomainState, next map[string]*BasePathMapping) (struct{}, bool, error) {
			if _, ok := next[key]; !ok {
				return struct{}{}, false, mappingGone()
			}
			delete(next, key)
			return struct{}{}, true, nil
		})
	return err
}

// dropMappings removes the base path mappings that point at the API stage
// (at any stage of the API when stage is ""). Each domain's owner changes
// its own state.
func (s *Service) dropMappings(sc awswire.Scope, apiID, stage string) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return
	}
	points := func(m *BasePathMapping) bool {
		return m.RestAPIID == apiID && (stage == "" || m.Stage == stage)
	}
	for _, st := range d.domains.Snapshots(func(a, b *DomainState) int { return cmp.Compare(a.Seq, b.Seq) }) {
		if !slices.ContainsFunc(slices.Collect(maps.Values(st.Mappings)), points) {
			continue
		}
		_, err := mutateMappings(s, sc, st.Domain.DomainName, "",
			func(_ *DomainState, next map[string]*BasePathMapping) (struct{}, bool, error) {
				n := len(next)
				maps.DeleteFunc(next, func(_ string, m *BasePathMapping) bool { return points(m) })
				return struct{}{}, len(next) != n, nil
			})
		if err != nil && !domainsIsCode(err, awswire.CodeNotFound) {
			s.log.Warn("drop base path mappings", "domain", st.Domain.DomainName, "api", apiID, "err", err)
		}
	}
}

func domainsIsCode(err error, code string) bool {
	var we *awswire.Error
	return errors.As(err, &we) && we.Code == code
}

// ---- VPC links ----

// CreateVpcLink creates a VPC link, AVAILABLE at once (SPEC.md): no
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
		st, err := createRecord(s, sc, kindLink, d.links, l.ID, &LinkState{Link: l, Seq: s.seq.Add(1)},
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
