package apigateway

import "github.com/cloudemu/emulator/awswire"

// forgetStage drops every reference other owners hold to a stage of an API
// (stage "" means every stage, the API being deleted): usage plans' API
// stages and domain names' base path mappings. Each owner changes its own
// state, so no dangling reference survives the owner that went away.
func (s *Service) forgetStage(sc awswire.Scope, apiID, stage string) {
	s.dropPlanStages(sc, apiID, stage)
	s.dropMappings(sc, apiID, stage)
}
