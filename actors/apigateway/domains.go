package apigateway

import "github.com/cloudemu/emulator/actors"

// dropMappings removes the base path mappings that point at the API stage
// (at any stage of the API when stage is "").
func (s *Service) dropMappings(sc actors.Scope, apiID, stage string) {}
