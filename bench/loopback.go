package bench

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"time"
)

// resolveTimeout bounds the one DNS lookup made for a host name; an address
// that does not resolve in time is refused like any other non-loopback one.
const resolveTimeout = 2 * time.Second

// ErrNotLoopback is returned for an address whose host is not (or does not
// resolve only to) a loopback IP.
var ErrNotLoopback = errors.New("bench: address is not loopback")

// loopbackAddr checks addr ("host:port") and returns it as "ip:port" with a
// loopback IP literal. Every IP a name resolves to must be loopback: a name
// that mixes loopback and routable answers is refused, and the caller dials
// the returned literal so a later lookup cannot send traffic elsewhere.
// Nothing but name resolution touches the network.
func loopbackAddr(ctx context.Context, addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", fmt.Errorf("%w: %q: %v", ErrNotLoopback, addr, err)
	}
	if host == "" {
		// An empty host dials the local system on some stacks, but it is not
		// what anyone means by "loopback only": make it explicit.
		return "", fmt.Errorf("%w: %q has no host", ErrNotLoopback, addr)
	}
	if ip, err := netip.ParseAddr(host); err == nil {
		if !ip.Unmap().IsLoopback() {
			return "", fmt.Errorf("%w: %q", ErrNotLoopback, addr)
		}
		return net.JoinHostPort(ip.Unmap().String(), port), nil
	}
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", fmt.Errorf("%w: %q does not resolve: %v", ErrNotLoopback, addr, err)
	}
	var pick netip.Addr
	for _, ip := range ips {
		ip = ip.Unmap()
		if !ip.IsLoopback() {
			return "", fmt.Errorf("%w: %q resolves to %s", ErrNotLoopback, addr, ip)
		}
		// Prefer IPv4: servers under test usually listen on 127.0.0.1 only.
		if !pick.IsValid() || (ip.Is4() && !pick.Is4()) {
			pick = ip
		}
	}
	if !pick.IsValid() {
		return "", fmt.Errorf("%w: %q resolves to nothing", ErrNotLoopback, addr)
	}
	return net.JoinHostPort(pick.String(), port), nil
}
