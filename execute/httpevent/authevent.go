package httpevent

import "github.com/cloudemu/emulator/awswire"

// AppendAuthorizerEvent appends the event a Lambda authorizer of payload
// format version ("1.0", else 2.0) gets for r to dst (docs:
// http-api-lambda-authorizer, "Payload format version"), and returns it.
// routeArn is the route's ARN (RouteARN); identity the values of the
// authorizer's identity sources, in order.
//
// 2.0: version, type, routeArn, identitySource (the list), then the
// function-proxy event's members without body, isBase64Encoded and
// requestContext.authorizer. 1.0: version, type, methodArn, identitySource
// and authorizationToken (the values joined with ","), then the 1.0
// event's members without body, isBase64Encoded and
// requestContext.authorizer, pathParameters {} when there are none (as the
// docs' example has it).
func AppendAuthorizerEvent(dst []byte, r *Request, version, routeArn string, identity []string) []byte {
	if version == "1.0" {
		dst = append(dst, `{"version":"1.0","type":"REQUEST","methodArn":`...)
		dst = awswire.AppendString(dst, routeArn)
		dst = append(dst, `,"identitySource":"`...)
		dst = appendJoined(dst, identity)
		dst = append(dst, `","authorizationToken":"`...)
		dst = appendJoined(dst, identity)
		dst = append(dst, '"')
		dst = appendStartV1(dst, r)
		dst = append(dst, `,"pathParameters":`...)
		dst = appendParams(dst, r.PathParams)
		dst = append(dst, `,"stageVariables":`...)
		dst = appendParamsOrNull(dst, r.StageVariables)
		dst = append(dst, `,"requestContext":`...)
		dst = appendContextV1(dst, r, false)
		return append(dst, '}')
	}
	dst = append(dst, `{"version":"2.0","type":"REQUEST","routeArn":`...)
	dst = awswire.AppendString(dst, routeArn)
	dst = append(dst, `,"identitySource":[`...)
	for i, v := range identity {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendString(dst, v)
	}
	dst = append(dst, `],"routeKey":`...)
	dst = appendStartV2(dst, r)
	dst = append(dst, `,"requestContext":`...)
	dst = appendContextV2(dst, r, false)
	if len(r.PathParams) > 0 {
		dst = append(dst, `,"pathParameters":`...)
		dst = appendParams(dst, r.PathParams)
	}
	if len(r.StageVariables) > 0 {
		dst = append(dst, `,"stageVariables":`...)
		dst = appendParams(dst, r.StageVariables)
	}
	return append(dst, '}')
}

// appendJoined appends vs joined with "," as JSON string content.
func appendJoined(dst []byte, vs []string) []byte {
	for i, v := range vs {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = awswire.AppendStringContent(dst, v)
	}
	return dst
}
