package server

import (
	"strconv"

	"github.com/cloudemu/emulator/actors/sqs"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/sqshttp"
)

// sqsService is SQS: queue owners holding their messages, served over the
// JSON and query protocols. Queue URLs name the emulator's external
// hostname and the port it listens on, learned once it listens.
func sqsService(env Env) Service {
	svc := sqs.New(env.Sys, env.Store, env.Now, env.Log)
	endpoint := func(port int) {
		svc.SetEndpoint("http://" + env.Config.ExternalHostname + ":" + strconv.Itoa(port))
	}
	endpoint(env.Config.Port)
	return Service{Name: "sqs", Wire: awswire.SQS, Owners: svc,
		RPC: sqshttp.Handlers(svc), Partial: sqshttp.Partial, Listening: endpoint}
}
