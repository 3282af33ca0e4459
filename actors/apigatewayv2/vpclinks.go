package apigatewayv2

import (
	"cmp"
	"maps"
	"slices"

	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/store"
)

// VPC links are inert (docs/apigatewayv2.md): AVAILABLE as soon as they are created, and
// no connectivity is ever set up. Each is one record with its own owner.

// VPC link fixed values.
const (
	LinkAvailable = "AVAILABLE"
	// LinkReady is the status message of an AVAILABLE link, as AWS
	// words it.
	LinkReady   = "VPC link is ready to route traffic"
	LinkVersion = "V2"
)

// VpcLinkNotFound is the error for an unknown VPC link.
func VpcLinkNotFound() *awswire.Error {
	return NotFound("VpcLink", "Invalid VpcLink identifier specified")
}

func linkKey(sc awswire.Scope, id string) string {
	return store.Key(sc.Account, sc.Region, storeService, kindLink, id)
}

// linksCheckName checks a link's name: 1 to 128 characters.
func linksCheckName(name string) error {
	if !validName(name, 128) {
		return BadRequest("Invalid VPC link name. It must be between 1 and 128 characters long.")
	}
	return nil
}

// CreateVpcLink creates a VPC link from l (its user-given members set).
func (s *Service) CreateVpcLink(sc awswire.Scope, l VpcLink) (*LinkState, error) {
	if l.Name == "" {
		return nil, BadRequest("Missing required parameter: name")
	}
	if err := linksCheckName(l.Name); err != nil {
		return nil, err
	}
	if len(l.SubnetIDs) == 0 {
		return nil, BadRequest("Missing required parameter: subnetIds")
	}
	for _, list := range [][]string{l.SubnetIDs, l.SecurityGroupIDs} {
		if slices.Contains(list, "") {
			return nil, BadRequest("Subnet and security group ids cannot be empty")
		}
	}
	if err := CheckTags(l.Tags); err != nil {
		return nil, err
	}
	l.SubnetIDs = slices.Clone(l.SubnetIDs)
	l.SecurityGroupIDs = slices.Clone(l.SecurityGroupIDs)
	if l.SecurityGroupIDs == nil {
		l.SecurityGroupIDs = []string{}
	}
	l.Tags = maps.Clone(l.Tags)
	l.CreatedDate = awswire.ISOTime(s.now().UnixMilli())
	l.VpcLinkStatus, l.VpcLinkStatusMessage, l.VpcLinkVersion = LinkAvailable, LinkReady, LinkVersion
	d := s.scopes.Get(sc)
	// A clash of random ids is retried a few times; after that the
	// service is as good as unavailable.
	for range 8 {
		l.VpcLinkID = awswire.ShortID(6)
		clash := false
		st, err := actors.CreateRecord(s.records(), "apigatewayv2."+kindLink, linkKey(sc, l.VpcLinkID), d.links,
			l.VpcLinkID, &LinkState{Link: l, Seq: s.seq.Next()},
			func() error { clash = true; return Conflict("VPC link id %s is taken", l.VpcLinkID) })
		if err == nil || !clash {
			return st, err
		}
	}
	return nil, awswire.Unavailable(awswire.APIGatewayV2)
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

// mutateLink runs fn in the owner of the link; fn returns the new state
// (nil to keep it) and the reply.
func (s *Service) mutateLink(sc awswire.Scope, id string, fn func(cur *LinkState) (*LinkState, *LinkState, error)) (*LinkState, error) {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return nil, VpcLinkNotFound()
	}
	gone := func() error { return VpcLinkNotFound() }
	return actors.MutateRecord(s.records(), linkKey(sc, id), d.links, id, gone,
		func(cur *LinkState) (*LinkState, *LinkState, error) {
			if cur == nil {
				return nil, nil, VpcLinkNotFound()
			}
			return fn(cur)
		})
}

// UpdateVpcLink renames a link; a nil name changes nothing.
func (s *Service) UpdateVpcLink(sc awswire.Scope, id string, name *string) (*LinkState, error) {
	if name != nil {
		if err := linksCheckName(*name); err != nil {
			return nil, err
		}
	}
	return s.mutateLink(sc, id, func(cur *LinkState) (*LinkState, *LinkState, error) {
		if name == nil || *name == cur.Link.Name {
			return nil, cur, nil
		}
		next := *cur
		next.Link.Name = *name
		return &next, &next, nil
	})
}

// DeleteVpcLink deletes a VPC link; it is gone at once rather than DELETING.
func (s *Service) DeleteVpcLink(sc awswire.Scope, id string) error {
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return VpcLinkNotFound()
	}
	_, err := actors.DeleteRecord(s.records(), linkKey(sc, id), d.links, id, func() error { return VpcLinkNotFound() })
	return err
}
