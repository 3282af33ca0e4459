package awswire

// Scope is where a resource lives: an account and a region. Directories of
// owners are per scope.
type Scope struct {
	Account string
	Region  string
}
