package websocket

import "time"

// Limits are the quotas of WebSocket APIs, AWS's by default
// (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-execution-service-websocket-limits-table.html).
type Limits struct {
	// FrameBytes is the largest frame a client may send (32 KB): a larger
	// one closes the connection with 1009.
	FrameBytes int
	// MessageBytes is the largest message, frames joined (128 KB): a
	// larger one closes the connection with 1009; PostToConnection answers
	// PayloadTooLargeException past it.
	MessageBytes int
	// IdleTimeout closes a connection on which no message went either way
	// for that long (10 minutes).
	IdleTimeout time.Duration
	// MaxAge closes every connection that old (2 hours).
	MaxAge time.Duration
	// SendQueue bounds the frames waiting for one connection's writer:
	// past it PostToConnection answers LimitExceededException.
	SendQueue int
	// IntegrationTimeout bounds an integration without timeoutInMillis
	// (29 s).
	IntegrationTimeout time.Duration
}

// DefaultLimits are AWS's quotas.
func DefaultLimits() Limits {
	return Limits{FrameBytes: 32 << 10, MessageBytes: 128 << 10, IdleTimeout: 10 * time.Minute,
		MaxAge: 2 * time.Hour, SendQueue: 256, IntegrationTimeout: 29 * time.Second}
}

// orDefault fills the zero fields of l with AWS's quotas.
func (l Limits) orDefault() Limits {
	d := DefaultLimits()
	if l.FrameBytes <= 0 {
		l.FrameBytes = d.FrameBytes
	}
	if l.MessageBytes <= 0 {
		l.MessageBytes = d.MessageBytes
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = d.IdleTimeout
	}
	if l.MaxAge <= 0 {
		l.MaxAge = d.MaxAge
	}
	if l.SendQueue <= 0 {
		l.SendQueue = d.SendQueue
	}
	if l.IntegrationTimeout <= 0 {
		l.IntegrationTimeout = d.IntegrationTimeout
	}
	return l
}
