package apigatewayv2

import (
	"fmt"

	"github.com/cloudemu/emulator/awswire"
)

// Tags live on the record of the resource they name (docs/apigatewayv2.md): TagResource,
// UntagResource and GetTags find that record's owner from the ARN and
// change it there, so tags go wherever the resource goes (deleted with it,
// persisted with it).

// tagLimits are the service's limits on one resource's tags.
var tagLimits = awswire.APIGatewayV2Tags

// CheckTags checks tags against the service's limits, with AWS's words.
func CheckTags(tags map[string]string) error {
	if err := tagLimits.GatewayTagError(awswire.APIGatewayV2, tags); err != nil {
		return err
	}
	return nil
}

// Taggable kinds, as the ARN's path names them.
const (
	tagAPI    = "apis"
	tagStage  = "stages"
	tagDomain = "domainnames"
	tagLink   = "vpclinks"
)

// tagTarget is the resource an API Gateway v2 ARN names.
type tagTarget struct {
	scope awswire.Scope
	kind  string
	id    string // the API id for a stage
	stage string
}

// parseTagARN reads arn:<partition>:apigateway:<region>::/<path>. The
// account is empty in API Gateway ARNs; the caller's account is used, the
// ARN's region selects the region.
func parseTagARN(sc awswire.Scope, arn string) (tagTarget, error) {
	bad := BadRequest("Invalid ARN. ARN is not well formed %s", arn)
	region, parts, ok := awswire.GatewayPath(arn)
	if !ok {
		return tagTarget{}, bad
	}
	t := tagTarget{scope: awswire.Scope{Account: sc.Account, Region: region}}
	switch {
	case len(parts) == 2 && (parts[0] == tagAPI || parts[0] == tagDomain || parts[0] == tagLink):
		t.kind, t.id = parts[0], parts[1]
	case len(parts) == 4 && parts[0] == tagAPI && parts[2] == tagStage:
		t.kind, t.id, t.stage = tagStage, parts[1], parts[3]
	default:
		return tagTarget{}, bad
	}
	return t, nil
}

// gone is the error for a taggable resource that does not exist, worded
// as each kind's own operations word it.
func (t tagTarget) gone() *awswire.Error {
	switch t.kind {
	case tagAPI:
		return APINotFound(t.scope, t.id)
	case tagStage:
		return StageNotFound()
	case tagDomain:
		return DomainNotFound()
	}
	return VpcLinkNotFound()
}

// Tags returns the tags of the resource arn names (nil when it has none).
func (s *Service) Tags(sc awswire.Scope, arn string) (map[string]string, error) {
	t, err := parseTagARN(sc, arn)
	if err != nil {
		return nil, err
	}
	switch t.kind {
	case tagAPI:
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
		if st, ok := s.Domain(t.scope, t.id); ok {
			return st.Domain.Tags, nil
		}
	case tagLink:
		if st, ok := s.VpcLink(t.scope, t.id); ok {
			return st.Link.Tags, nil
		}
	}
	return nil, t.gone()
}

// TagResource merges tags onto the resource arn names.
func (s *Service) TagResource(sc awswire.Scope, arn string, tags map[string]string) error {
	if err := CheckTags(tags); err != nil {
		return err
	}
	return s.changeTags(sc, arn, func(cur map[string]string) (map[string]string, error) {
		next, ok := tagLimits.MergeTags(cur, tags)
		if !ok {
			return nil, BadRequest("Too many tags. A resource can have at most %d tags.", tagLimits.Tags)
		}
		if len(next) == 0 {
			return nil, nil
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
	case tagAPI:
		_, err := Mutate(s, t.scope, t.id, func(tx *Tx) (struct{}, error) {
			next, err := change(tx.State().API.Tags)
			if err != nil {
				return struct{}{}, err
			}
			tx.SetAPITags(next)
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
	case tagDomain:
		_, err := s.mutateDomain(t.scope, t.id, func(cur *DomainState) (*DomainState, *DomainState, error) {
			tags, err := change(cur.Domain.Tags)
			if err != nil {
				return nil, nil, err
			}
			next := *cur
			next.Domain.Tags = tags
			return &next, &next, nil
		})
		return err
	case tagLink:
		_, err := s.mutateLink(t.scope, t.id, func(cur *LinkState) (*LinkState, *LinkState, error) {
			tags, err := change(cur.Link.Tags)
			if err != nil {
				return nil, nil, err
			}
			next := *cur
			next.Link.Tags = tags
			return &next, &next, nil
		})
		return err
	}
	return fmt.Errorf("apigatewayv2: tags: unhandled kind %q", t.kind)
}
