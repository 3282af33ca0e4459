package lambda

import (
	"github.com/cloudemu/emulator/actors"
	"github.com/cloudemu/emulator/awswire"
)

// The cheap reads (and the reserved concurrency Terraform sets) that tools
// ask of every function.

// Account limits Lambda reports (GetAccountSettings).
const (
	accountConcurrency = 1000
	// minUnreserved is the concurrency reservations must leave free.
	minUnreserved  = 100
	totalCodeSize  = 80530636800
	codeSizeZipped = maxZipped
	codeUnzipped   = maxUnzipped
)

// CodeSigningConfig returns the code signing configuration ARN of a
// function ("" when none) and the function's name.
func (s *Service) CodeSigningConfig(sc awswire.Scope, name string) (arn, fn string, err error) {
	_, _, f, err := s.resolveFunction(sc, name, kindRead)
	if err != nil {
		return "", "", err
	}
	return f.CodeSigningConfigArn, f.Name, nil
}

// RuntimeManagement returns the FunctionArn GetRuntimeManagementConfig
// shows: runtime updates are always Auto here.
func (s *Service) RuntimeManagement(sc awswire.Scope, name, qualifier string) (string, error) {
	t, err := resolveName(sc, name, qualifier, kindRead)
	if err != nil {
		return "", err
	}
	_, f, ok := s.lookup(t)
	if !ok {
		return "", functionNotFound(t.qualifiedARN())
	}
	if _, _, ok := resolveQualifier(f, t.qualifier); !ok {
		return "", functionNotFound(t.qualifiedARN())
	}
	if t.qualifier == "" {
		return f.ARN + ":$LATEST", nil
	}
	return t.qualifiedARN(), nil
}

// Concurrency returns a function's reserved concurrency (nil when none).
func (s *Service) Concurrency(sc awswire.Scope, name string) (*int, error) {
	_, _, f, err := s.resolveFunction(sc, name, kindWrite)
	if err != nil {
		return nil, err
	}
	return f.ReservedConcurrency, nil
}

// reserved sums the reserved concurrency of the scope's functions but
// skip's.
func (d *dirs) reserved(skip string) int {
	n := 0
	for _, f := range d.functions.Snapshots(nil) {
		if f.Name != skip && f.ReservedConcurrency != nil {
			n += *f.ReservedConcurrency
		}
	}
	return n
}

// PutConcurrency reserves concurrency for a function (stored; nothing
// throttles invocations by it).
func (s *Service) PutConcurrency(sc awswire.Scope, name string, n *int) (int, error) {
	t, err := resolveName(sc, name, "", kindWrite)
	if err != nil {
		return 0, err
	}
	if n == nil {
		return 0, Missing("reservedConcurrentExecutions")
	}
	if *n < 0 {
		return 0, Validation(between(*n, "reservedConcurrentExecutions", 0, accountConcurrency))
	}
	if t.qualifier != "" {
		return 0, Invalid("This operation is permitted on Lambda functions only. Aliases and versions do not support this operation. Please specify either a function name or an unqualified function ARN.")
	}
	d, _, ok := s.lookup(t)
	if !ok {
		return 0, functionNotFound(t.arn() + ":$LATEST")
	}
	if accountConcurrency-d.reserved(t.name)-*n < minUnreserved {
		return 0, Invalid("Specified ReservedConcurrentExecutions for function decreases account's UnreservedConcurrentExecution below its minimum value of [%d].", minUnreserved)
	}
	v := *n
	_, err = editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, struct{}], error) {
		next := cur.clone()
		next.ReservedConcurrency = &v
		return actors.Edit[Function, struct{}]{Next: next}, nil
	})
	return v, err
}

// DeleteConcurrency removes a function's reserved concurrency.
func (s *Service) DeleteConcurrency(sc awswire.Scope, name string) error {
	t, d, _, err := s.resolveFunction(sc, name, kindWrite)
	if err != nil {
		return err
	}
	_, err = editFunction(s, t, d, func(cur *Function) (actors.Edit[Function, struct{}], error) {
		if cur.ReservedConcurrency == nil {
			return actors.Edit[Function, struct{}]{}, nil
		}
		next := cur.clone()
		next.ReservedConcurrency = nil
		return actors.Edit[Function, struct{}]{Next: next}, nil
	})
	return err
}

// AccountSettings are GetAccountSettings' figures.
type AccountSettings struct {
	TotalCodeSize, CodeSizeZipped, CodeSizeUnzipped int64
	ConcurrentExecutions, UnreservedConcurrent      int
	UsedCodeSize                                    int64
	FunctionCount                                   int
}

// Account returns the limits and usage of the caller's account and region.
func (s *Service) Account(sc awswire.Scope) AccountSettings {
	out := AccountSettings{TotalCodeSize: totalCodeSize, CodeSizeZipped: codeSizeZipped, CodeSizeUnzipped: codeUnzipped,
		ConcurrentExecutions: accountConcurrency, UnreservedConcurrent: accountConcurrency}
	d, ok := s.scopes.Lookup(sc)
	if !ok {
		return out
	}
	for _, f := range d.functions.Snapshots(nil) {
		out.FunctionCount++
		out.UsedCodeSize += f.Latest.CodeSize
		for _, v := range f.Versions {
			out.UsedCodeSize += v.CodeSize
		}
	}
	out.UnreservedConcurrent -= d.reserved("")
	return out
}

// RecursionConfig returns a function's recursive loop setting: Terminate,
// Lambda's default (nothing detects loops here).
func (s *Service) RecursionConfig(sc awswire.Scope, name string) (string, error) {
	if _, _, _, err := s.resolveFunction(sc, name, kindWrite); err != nil {
		return "", err
	}
	return "Terminate", nil
}
