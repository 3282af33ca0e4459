// Package lambdahttp serves the Lambda control plane in the REST-JSON
// protocol (/2015-03-31/functions/...): it decodes each request's wire
// shape (JSON members, path labels, query strings and headers), calls
// package actors/lambda, and encodes the answer as the model and AWS's
// recorded answers shape it. Requests whose body is not the JSON the
// operation takes answer InvalidRequestContentException; an absent
// required member answers ValidationException, in Lambda's words.
package lambdahttp
