package wire

// operations_gen.go is generated from the botocore models in shared/aws-models.
//go:generate go run ./internal/opsgen
