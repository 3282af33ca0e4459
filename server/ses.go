package server

import (
	"sync"

	"github.com/cloudemu/emulator/actors/ses"
	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/httpfront/seshttp"
	"github.com/cloudemu/emulator/httpfront/sesv2http"
)

// sesShared hands the SES service sesService builds to sesv2Service, per
// emulator (keyed by its actor system): v1 and v2 are two APIs over the
// same identities and templates, as on AWS.
var sesShared sync.Map // *actors.System → *ses.Service

// sesOf returns the emulator's SES service, building it on first use.
func sesOf(env Env) *ses.Service {
	if v, ok := sesShared.Load(env.Sys); ok {
		return v.(*ses.Service)
	}
	svc := ses.New(env.Sys, env.Store, env.Now, env.Log, ses.Options{Inbox: env.Inbox,
		RequireVerified: env.Config.SESRequireVerified})
	v, _ := sesShared.LoadOrStore(env.Sys, svc)
	return v.(*ses.Service)
}

func sesService(env Env) Service {
	svc := sesOf(env)
	return Service{Name: "ses", Wire: awswire.SES, Owners: svc,
		RPC: seshttp.Handlers(svc), Partial: seshttp.Partial}
}

func sesv2Service(env Env) Service {
	svc := sesOf(env)
	// v2 is built after v1: the emulator holds the service from here on.
	sesShared.Delete(env.Sys)
	return Service{Name: "sesv2", Wire: awswire.SESv2, Owners: sharedOwners{svc},
		Handlers: sesv2http.Handlers(svc), Partial: sesv2http.Partial}
}

// sharedOwners are owners another registered service restores, resets and
// counts: the second API over them only delegates restoring (the restore
// picks one Owners per store service).
type sharedOwners struct{ Owners }

func (sharedOwners) RestoreDone() error                       { return nil }
func (sharedOwners) Detach()                                  {}
func (sharedOwners) Counts() map[awswire.Scope]map[string]int { return nil }
