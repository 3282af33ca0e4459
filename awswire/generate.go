package awswire

// operations_gen.go is generated from the botocore models in models/botocore
// (Apache 2.0, see models/botocore/LICENSE.txt and NOTICE).
//go:generate go run ./internal/opsgen
