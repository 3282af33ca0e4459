package apigatewayv2

import "github.com/cloudemu/emulator/awswire"

// Counts reports how many resources of each kind exist, per scope, from the
// published states (an owner still being created is not counted). It is
// read-only and takes no owner's turn.
func (s *Service) Counts() map[awswire.Scope]map[string]int {
	out := map[awswire.Scope]map[string]int{}
	s.scopes.Range(func(sc awswire.Scope, d *dirs) bool {
		c := map[string]int{
			"apis": 0, "routes": 0, "integrations": 0, "deployments": 0,
			"stages": 0, "authorizers": 0, "models": 0, "apiMappings": 0,
			"domainNames": 0,
			"vpcLinks":    len(d.links.Snapshots(nil)),
		}
		for _, api := range d.apis.Snapshots(nil) {
			c["apis"]++
			c["routes"] += api.Routes.Len()
			c["integrations"] += api.Integrations.Len()
			c["deployments"] += api.Deployments.Len()
			c["stages"] += api.Stages.Len()
			c["authorizers"] += api.Authorizers.Len()
			c["models"] += api.Models.Len()
		}
		for _, dom := range d.domains.Snapshots(nil) {
			c["domainNames"]++
			c["apiMappings"] += len(dom.Mappings)
		}
		total := 0
		for _, n := range c {
			total += n
		}
		if total > 0 {
			out[sc] = c
		}
		return true
	})
	return out
}
