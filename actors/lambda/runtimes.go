package lambda

import (
	"slices"
	"strings"
)

// Runtimes are the runtime names CreateFunction and
// UpdateFunctionConfiguration accept: the model's enum, less the
// deprecated ones Lambda refuses for new functions, in the order Lambda's
// message lists them (recorded), then the newer names of the model.
// Whether a runtime can run here is the invoking runtime's concern.
var Runtimes = []string{
	"nodejs20.x", "python3.14", "provided.al2023", "python3.12", "python3.13", "nodejs24.x", "nodejs22.x",
	"java25", "python3.10", "python3.11", "java21", "ruby3.3", "ruby3.4", "ruby3.2", "python3.8", "python3.9",
	"java17", "nodejs16.x", "dotnet10", "dotnet8", "java11", "dotnet6", "nodejs18.x", "provided.al2", "java8.al2",
	"ruby4.0", "nodejs26.x", "python3.15", "java8.al2023", "java11.al2023", "java17.al2023",
}

// deprecatedRuntimes are in the model's enum, but Lambda no longer takes
// them for creating or updating functions.
var deprecatedRuntimes = []string{
	"nodejs", "nodejs4.3", "nodejs4.3-edge", "nodejs6.10", "nodejs8.10", "nodejs10.x", "nodejs12.x", "nodejs14.x",
	"java8", "python2.7", "python3.6", "python3.7", "dotnetcore1.0", "dotnetcore2.0", "dotnetcore2.1",
	"dotnetcore3.1", "go1.x", "ruby2.5", "ruby2.7", "provided",
}

var runtimeSet = "[" + strings.Join(Runtimes[:25], ", ") + "]"

// checkRuntime refuses a runtime Lambda does not take, in its words.
func checkRuntime(r string) error {
	if slices.Contains(Runtimes, r) {
		return nil
	}
	if slices.Contains(deprecatedRuntimes, r) {
		return Invalid("The runtime parameter of %s is no longer supported for creating or updating AWS Lambda functions. "+
			"We recommend you use a supported runtime while creating or updating functions.", r)
	}
	return Invalid("Value %s at 'runtime' failed to satisfy constraint: Member must satisfy enum value set: %s or be a valid ARN", r, runtimeSet)
}
