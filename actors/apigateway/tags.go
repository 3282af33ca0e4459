package apigateway

import (
	"fmt"
	"strings"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// Tags live on the record of the resource they name (docs/apigateway.md): TagResource,
// UntagResource and GetTags find that record's owner from the ARN and
// change it there, so tags go wherever the resource goes (deleted with it,
// persisted with it).

// tagLimits are the service's limits on one resource's tags.
var tagLimits = awswire.APIGatewayTags

// ValidateTags checks tags against the service's limits, with AWS's words.
func ValidateTags(tags map[string]string) error {
	if err := tagLimits.GatewayTagError(awswire.APIGateway, tags); err != nil {
		return err
	}
	return nil
}

// Taggable kinds, as the ARN's path names them.
const (
	tagRestAPI    = "restapis"
	tagStage      = "stages"
	tagAPIKey     = "apikeys"
	tagPlan       = "usageplans"
	tagDomain     = "domainnames"
	tagLink       = "vpclinks"
	tagClientCert = "clientcertificates"
)

// tagTarget is the resource an API Gateway ARN names.
type tagTarget struct {
	scope awswire.Scope
	kind  string
	id    string // the API id for a stage
	stage string
}

// parseTagARN reads arn:<partition>:apigateway:<region>:<account>:/<path>.
// The account is empty in API Gateway ARNs (a private domain's holds it);
// the caller's account is used either way, the ARN's region selects the
// region.
func parseTagARN(sc awswire.Scope, arn string) (tagTarget, error) {
	bad := BadRequest("Invalid ARN. ARN is not well formed %s", arn)
	region, parts, ok := awswire.GatewayPath(arn)
	if !ok {
		return tagTarget{}, bad
	}
	t := tagTarget{scope: awswire.Scope{Account: sc.Account, Region: region}}
	switch {
	case len(parts) == 2 && (parts[0] == tagRestAPI || parts[0] == tagAPIKey || parts[0] == tagPlan ||
		parts[0] == tagDomain || parts[0] == tagLink || parts[0] == tagClientCert):
		t.kind, t.id = parts[0], parts[1]
	case len(parts) == 4 && parts[0] == tagRestAPI && parts[2] == tagStage:
		t.kind, t.id, t.stage = tagStage, parts[1], parts[3]
	default:
		return tagTarget{}, bad
	}
	if t.kind == tagDomain {
		// A private domain is named <name>+<domainNameId>.
		name, id, _ := strings.Cut(t.id, "+")
		t.id, t.stage = name, id
	}
	return t, nil
}

// gone is the error for a taggable resource that does not exist, worded
// as each kind's own operations word it.
func (t tagTarget) gone() *awswire.Error {
	switch t.kind {
	case tagRestAPI:
		return APINotFound(t.scope, t.id)
	case tagStage:
		return notFound("Invalid stage identifier specified")
	case tagAPIKey:
		return notFound("Invalid API Key identifier specified")
	case tagPlan:
		return notFound("Invalid Usage Plan ID specified")
	case tagDomain:
		return DomainNotFound()
	case tagLink:
		return VpcLinkNotFound()
	}
	return notFound("Invalid Client Certificate identifier specified")
}

// Tags returns the tags of the resource arn names (nil when it has none).
func (s *Service) Tags(sc awswire.Scope, arn string) (map[string]string, error) {
	t, err := parseTagARN(sc, arn)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tagRestAPI:
		if api, ok := s.API(t.scope, t.id); ok {
			return api.API.Tags, nil
		}
	case tagStage:
		api, ok := s.API(t.scope, t.id)
		if !ok {
			return nil, APINotFound(t.scope, t.id)
		}
		if st, ok := api.Stages.Get(t.stage); ok {
			return st.Tags, nil
		}
	case tagDomain:
		if st, ok := s.Domain(t.scope, t.id, t.stage); ok {
			return st.Domain.Tags, nil
		}
	case tagAPIKey, tagPlan, tagLink:
		d, ok := s.scopes.Lookup(t.scope)
		if !ok {
			break
		}
		switch t.kind {
		case tagAPIKey:
			if k, ok := d.keys.Get(t.id); ok {
				return k.Key.Tags, nil
			}
		case tagPlan:
			if p, ok := d.plans.Get(t.id); ok {
				return p.Plan.Tags, nil
			}
		case tagLink:
			if l, ok := d.links.Get(t.id); ok {
				return l.Link.Tags, nil
			}
		}
	}
	return nil, t.gone()
}

// TagResource merges tags onto the resource arn names.
func (s *Service) TagResource(sc awswire.Scope, arn string, tags map[string]string) error {
	if err := ValidateTags(tags); err != nil {
		return err
	}
	return s.changeTags(sc, arn, func(cur map[string]string) (map[string]string, error) {
		next, ok := tagLimits.MergeTags(cur, tags)
		if !ok {
			return nil, BadRequest("Too many tags. A resource can have at most %d tags.", tagLimits.Tags)
		}
		return next, nil
	})
}

// UntagResource removes the tag keys from the resource arn names; keys it
// does not have are ignored.
func (s *Service) UntagResource(sc awswire.Scope, arn string, keys []string) error {
	return s.changeTags(sc, arn, func(cur map[string]string) (map[string]string, error) {
		return awswire.RemoveTags(cur, keys), nil
	})
}

// changeTags runs change on the current tags of the resource arn names,
// inside the resource's owner, and stores what it returns. change MUST NOT
// modify the map it is given (readers share it).
func (s *Service) changeTags(sc awswire.Scope, arn string, change func(map[string]string) (map[string]string, error)) error {
	t, err := parseTagARN(sc, arn)
	if err != nil {
		return err
	}
	switch t.kind {
	case tagRestAPI:
		_, err := Mutate(s, t.scope, t.id, func(tx *Tx) (struct{}, error) {
			a := tx.State().API
			next, err := change(a.Tags)
			if err != nil {
				return struct{}{}, err
			}
			a.Tags = next
			tx.SetAPI(a)
			return struct{}{}, nil
		})
		return err
	case tagStage:
		_, err := Mutate(s, t.scope, t.id, func(tx *Tx) (struct{}, error) {
			cur, ok := tx.State().Stages.Get(t.stage)
			if !ok {
				return struct{}{}, t.gone()
			}
			next, err := change(cur.Tags)
			if err != nil {
				return struct{}{}, err
			}
			st := *cur
			st.Tags = next
			tx.PutStage(&st)
			return struct{}{}, nil
		})
		return err
	case tagClientCert:
		return t.gone()
	}
	d, ok := s.scopes.Lookup(t.scope)
	if !ok {
		return t.gone()
	}
	switch t.kind {
	case tagAPIKey:
		_, err = mutateRecord(s, t.scope, kindAPIKey, d.keys, t.id, t.gone,
			func(cur *KeyState) (*KeyState, struct{}, error) {
				if cur == nil {
					return nil, struct{}{}, t.gone()
				}
				tags, err := change(cur.Key.Tags)
				if err != nil {
					return nil, struct{}{}, err
				}
				next := *cur
				next.Key.Tags = tags
				next.Memo = new(actors.Memo) // the cached body shows the old tags
				return &next, struct{}{}, nil
			})
	case tagPlan:
		_, err = mutateRecord(s, t.scope, kindPlan, d.plans, t.id, t.gone,
			func(cur *PlanState) (*PlanState, struct{}, error) {
				if cur == nil {
					return nil, struct{}{}, t.gone()
				}
				tags, err := change(cur.Plan.Tags)
				if err != nil {
					return nil, struct{}{}, err
				}
				next := *cur
				next.Plan.Tags = tags
				return &next, struct{}{}, nil
			})
	case tagDomain:
		_, err = mutateRecord(s, t.scope, kindDomain, d.domains, t.id, t.gone,
			func(cur *DomainState) (*DomainState, struct{}, error) {
				if cur == nil || (t.stage != "" && t.stage != cur.Domain.DomainNameID) {
					return nil, struct{}{}, t.gone()
				}
				tags, err := change(cur.Domain.Tags)
				if err != nil {
					return nil, struct{}{}, err
				}
				next := *cur
				next.Domain.Tags = tags
				return &next, struct{}{}, nil
			})
	case tagLink:
		_, err = mutateRecord(s, t.scope, kindLink, d.links, t.id, t.gone,
			func(cur *LinkState) (*LinkState, struct{}, error) {
				if cur == nil {
					return nil, struct{}{}, t.gone()
				}
				tags, err := change(cur.Link.Tags)
				if err != nil {
					return nil, struct{}{}, err
				}
				next := *cur
				next.Link.Tags = tags
				return &next, struct{}{}, nil
			})
	default:
		return fmt.Errorf("apigateway: tags: unhandled kind %q", t.kind)
	}
	return err
}
