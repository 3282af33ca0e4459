package apigateway

import "github.com/cloudemu/emulator/actors"

// dropPlanStages removes the API stage (every stage of the API when stage
// is "") from the usage plans that name it.
func (s *Service) dropPlanStages(sc actors.Scope, apiID, stage string) {}
