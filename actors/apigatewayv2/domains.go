package apigatewayv2

import "github.com/cloudemu/emulator/actors"

// dropMappings removes the API mappings that point at the API stage (at any
// stage of the API when stage is "").
func (s *Service) dropMappings(sc actors.Scope, apiID, stage string) {}
