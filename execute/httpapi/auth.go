package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"strings"
	"time"

	"github.com/cloudemu/emulator/awswire"
	"github.com/cloudemu/emulator/execute"
	"github.com/cloudemu/emulator/execute/httpevent"
	"github.com/cloudemu/emulator/execute/jwtauth"
	"github.com/puzpuzpuz/xsync/v3"
)

// authResult is what the route's authorizer established.
type authResult struct {
	jwt     *jwtauth.Result
	lambda  *httpevent.AuthorizerAnswer
	latency time.Duration // the Lambda authorizer's call (0 from the cache)
}

func (a *authResult) claim(name string) (string, bool) {
	if a.jwt == nil {
		return "", false
	}
	v, ok := a.jwt.Claims[name]
	return v, ok
}

// value is $context.authorizer.name: the principal or a context value of
// a Lambda authorizer.
func (a *authResult) value(name string) (string, bool) {
	if a.lambda == nil {
		return "", false
	}
	if name == "principalId" {
		return a.lambda.PrincipalID, a.lambda.PrincipalID != ""
	}
	name, _ = strings.CutPrefix(name, "lambda.")
	return a.lambda.ContextValue(name)
}

// authorize runs the route's authorizer (JWT or Lambda); false: it
// refused, and the answer is written.
func (inv *invocation) authorize() bool {
	a := inv.route.auth
	if a == nil {
		return true
	}
	if a.jwt {
		return inv.authorizeJWT(a)
	}
	return inv.authorizeLambda(a)
}

// authorizeJWT validates the bearer token of the identity source against
// the issuer's keys and the route's scopes: 401 with www-authenticate, or
// 403 for missing scopes.
func (inv *invocation) authorizeJWT(a *authorizer) bool {
	token := ""
	if len(a.identity) > 0 {
		token, _ = inv.resolve(a.identity[0])
	}
	now := inv.req.Received
	if c := inv.ex.o.ThrottleClock; c != nil {
		now = c()
	}
	res, err := inv.ex.jwt.Verify(inv.ctx, token, a.issuer, a.audience, inv.route.scopes, now)
	if err == nil {
		inv.auth.jwt = res
		return true
	}
	var refusal *jwtauth.Error
	if !errors.As(err, &refusal) {
		inv.ex.log.Info("JWT authorizer failed", "requestId", inv.requestID, "error", err)
		inv.message(500, "Internal Server Error")
		return false
	}
	if refusal.Status == 403 {
		inv.message(403, "Forbidden")
	} else {
		inv.message(401, "Unauthorized")
	}
	if refusal.WWWAuthenticate != "" {
		inv.resp.Headers = append(inv.resp.Headers, execute.Header{Name: "www-authenticate", Value: refusal.WWWAuthenticate})
	}
	return false
}

// authorizeLambda calls a Lambda (REQUEST) authorizer, or takes its
// answer from the cache (per authorizer, stage and identity values, for
// the authorizer's TTL), and decides the request's route ARN.
func (inv *invocation) authorizeLambda(a *authorizer) bool {
	var ids [4]string
	identity := ids[:0]
	for _, src := range a.identity {
		v, ok := inv.resolve(src)
		if !ok || v == "" {
			// docs: a missing identity source is a 401, the function is
			// not called.
			inv.message(401, "Unauthorized")
			return false
		}
		identity = append(identity, v)
	}
	arn := httpevent.RouteARN(inv.scope.Region, inv.scope.Account, inv.api.API.APIID, inv.stage.StageName,
		inv.req.Method, inv.path)
	cacheable := a.ttl > 0 && len(identity) > 0
	var key authKey
	if cacheable {
		key = authKey{scope: inv.scope, api: inv.api.API.APIID, stage: inv.stage.StageName,
			authorizer: a.id, identity: identityDigest(identity)}
		if e, ok := inv.ex.auths.Load(key); ok && inv.ex.o.Now().Before(e.expires) {
			inv.authCached = true
			return inv.decide(e.answer, e.answer.Decide(arn))
		}
	}
	fns := inv.ex.o.Functions
	if fns == nil || a.function == "" {
		inv.ex.log.Info("Lambda authorizer cannot be called", "requestId", inv.requestID, "authorizer", a.id)
		inv.message(500, "Internal Server Error")
		return false
	}
	ev := inv.event(a.version)
	inv.payload = httpevent.AppendAuthorizerEvent(inv.payload[:0], ev, a.version, arn, identity)
	ctx, cancel := context.WithTimeout(inv.ctx, authorizerTimeout)
	defer cancel()
	start := inv.ex.o.Now()
	reply, err := fns.Invoke(ctx, inv.scope, a.function, inv.payload, authorizerTimeout)
	inv.auth.latency = inv.ex.o.Now().Sub(start)
	if err != nil {
		inv.ex.log.Info("Lambda authorizer failed", "requestId", inv.requestID, "authorizer", a.id, "error", err)
		inv.message(500, "Internal Server Error")
		return false
	}
	answer, outcome := httpevent.Authorize(reply, a.simple, arn)
	if answer != nil && cacheable {
		inv.ex.cacheAuth(key, authEntry{answer: answer, expires: inv.ex.o.Now().Add(a.ttl)})
	}
	return inv.decide(answer, outcome)
}

// authorizerTimeout bounds a Lambda authorizer's call (AWS: 10 s).
const authorizerTimeout = 10 * time.Second

func (inv *invocation) decide(answer *httpevent.AuthorizerAnswer, o httpevent.Outcome) bool {
	if o == httpevent.Allowed {
		inv.auth.lambda = answer
		return true
	}
	inv.resp.Reset()
	inv.resp.Status = o.Status()
	inv.resp.Headers = append(inv.resp.Headers, execute.Header{Name: "Content-Type", Value: "application/json"},
		execute.Header{Name: "apigw-requestid", Value: inv.requestID})
	inv.resp.Body = append(inv.resp.Body, o.Body()...)
	return false
}

// authKey names a cached Lambda authorizer answer. The identity values
// are kept as a digest: they come from the client (up to a header's size
// each), and the digest of their lengths and bytes tells them apart.
type authKey struct {
	scope                  awswire.Scope
	api, stage, authorizer string
	identity               [sha256.Size]byte
}

func identityDigest(values []string) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	for _, v := range values {
		binary.BigEndian.PutUint64(n[:], uint64(len(v)))
		h.Write(n[:])
		h.Write([]byte(v))
	}
	var out [sha256.Size]byte
	h.Sum(out[:0])
	return out
}

type authEntry struct {
	answer  *httpevent.AuthorizerAnswer
	expires time.Time
}

// maxAuthEntries bounds the authorizer cache: when full it is emptied
// (entries live minutes at most; refilling costs one call per identity).
const maxAuthEntries = 100_000

func (e *Executor) cacheAuth(k authKey, v authEntry) {
	if e.auths.Size() >= maxAuthEntries {
		e.auths.Clear()
	}
	e.auths.Store(k, v)
}

// ResetAuthorizersCache forgets the cached Lambda authorizer answers of a
// stage (ResetAuthorizersCache).
func (e *Executor) ResetAuthorizersCache(account, apiID, stage string) {
	e.auths.Range(func(k authKey, _ authEntry) bool {
		if k.scope.Account == account && k.api == apiID && k.stage == stage {
			e.auths.Delete(k)
		}
		return true
	})
}

func newAuthCache() *xsync.MapOf[authKey, authEntry] { return xsync.NewMapOf[authKey, authEntry]() }
