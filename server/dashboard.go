package server

import (
	"github.com/cloudemu/emulator/actors/apigateway"
	"github.com/cloudemu/emulator/actors/apigatewayv2"
	"github.com/cloudemu/emulator/actors/lambda"
	"github.com/cloudemu/emulator/actors/sqs"
	"github.com/cloudemu/emulator/compat"
	"github.com/cloudemu/emulator/metrics"
	"github.com/cloudemu/emulator/ui"
)

// dashboardDeps gives the dashboard what it reads: the services' published
// state, the metrics, the inspector's ring, the inbox.
func (e *Emulator) dashboardDeps(d compat.Deps) ui.Deps {
	out := ui.Deps{
		Version: d.Version, Started: d.Started, Init: d.Init, Log: e.log.With("component", "ui"),
		ExternalHostname: e.cfg.ExternalHostname, Port: func() int { return int(e.port.Load()) },
		Metrics: e.metrics, Inspector: e.inspector, Inbox: e.inbox, Reset: e.Reset,
		Usage: func() []metrics.KeyUsage {
			var out []metrics.KeyUsage
			for _, s := range e.services {
				if s.Usage != nil {
					out = append(out, s.Usage()...)
				}
			}
			return out
		},
		Counts: func() []ui.Count {
			var out []ui.Count
			for _, c := range e.counts() {
				out = append(out, ui.Count{Service: c.Service, Account: c.Account, Region: c.Region, Resources: c.Resources})
			}
			return out
		},
	}
	out.Storage = d.Storage.State + " (" + d.Storage.Backend + ")"
	if d.Storage.DataDir != "" {
		out.Storage = d.Storage.State + " (" + d.Storage.Backend + ", " + d.Storage.DataDir + ")"
	}
	for _, s := range d.Services {
		out.Services = append(out.Services, ui.Service{Name: s.Name, Tier: s.Tier()})
	}
	for _, s := range e.services {
		switch o := s.Owners.(type) {
		case *apigateway.Service:
			out.REST = o
		case *apigatewayv2.Service:
			out.HTTP = o
		case *lambda.Service:
			out.Lambda = o
		case *sqs.Service:
			out.Queues = o
		}
		if s.FunctionRuntime != nil {
			out.Functions = s.FunctionRuntime
		}
	}
	return out
}
