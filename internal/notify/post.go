package notify

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// maxErrorText bounds the error text an attempt keeps.
const maxErrorText = 300

// poster delivers webhook and chat messages over HTTP.
type poster struct {
	client  *http.Client
	timeout time.Duration // statusd.AttemptTimeout, but in tests
	now     func() time.Time
}

// newPoster returns a poster. Unless allowPrivate, it connects only to
// public addresses (statusd.PublicAddr), checked on the address each
// connection is made to, after the name was resolved, so that a name
// that resolves to the intranet, at creation or later (DNS rebinding),
// does not reach it. It never uses a proxy (which would connect in its
// stead, unchecked) and never follows redirects. tlsConfig, when not nil,
// is the TLS configuration (tests trust their own certificates with it).
func newPoster(allowPrivate bool, tlsConfig *tls.Config, now func() time.Time) *poster {
	d := &net.Dialer{Timeout: statusd.AttemptTimeout, KeepAlive: 30 * time.Second}
	if !allowPrivate {
		d.ControlContext = refusePrivate
	}
	t := &http.Transport{
		Proxy:               nil,
		DialContext:         d.DialContext,
		TLSClientConfig:     tlsConfig,
		ForceAttemptHTTP2:   true,
		TLSHandshakeTimeout: statusd.AttemptTimeout,
		MaxIdleConns:        256,
		MaxIdleConnsPerHost: maxHTTP,
		IdleConnTimeout:     90 * time.Second,
	}
	return &poster{now: now, timeout: statusd.AttemptTimeout, client: &http.Client{
		Transport:     t,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}}
}

// privateError refuses a connection to an address that is not public.
type privateError struct{ addr netip.Addr }

func (e *privateError) Error() string {
	return "refused to connect to " + e.addr.String() +
		": not a public address (statusd sends only to public addresses unless started with --allow-private-targets)"
}

// refusePrivate is the dialer's Control hook: it runs on the address about
// to be connected to, after resolution. syscall.RawConn is only the type
// net.Dialer.ControlContext gives the hook; it is not used (no raw system
// call): the check is on the address, which is what stops DNS rebinding
// (CONTRACT C7; TestPrivateTargets).
func refusePrivate(_ context.Context, _, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("refused to connect to %q: not an IP address and port", address)
	}
	if !statusd.PublicAddr(ap.Addr()) {
		return &privateError{ap.Addr()}
	}
	return nil
}

// post sends body to target, with the headers, and tells how the attempt
// went (CONTRACT C7): a 2xx within the timeout is delivered,
// 410 is gone, anything else failed, with the Retry-After of a 429 or a
// 503.
func (p *poster) post(ctx context.Context, target string, body []byte, h http.Header) statusd.Attempt {
	ctx, cancel := context.WithTimeout(ctx, p.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return statusd.Attempt{At: p.now(), Outcome: statusd.Failed, Error: "the address is not a URL: " + describe(err)}
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return statusd.Attempt{At: p.now(), Outcome: statusd.Failed, Error: "the address is not an http or https URL"}
	}
	maps.Copy(req.Header, h)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "statusd")
	resp, err := p.client.Do(req)
	if err != nil {
		text := describe(err)
		if errors.Is(err, context.DeadlineExceeded) {
			text = "no answer within " + p.timeout.String()
		}
		return statusd.Attempt{At: p.now(), Outcome: statusd.Failed, Error: text}
	}
	defer resp.Body.Close()
	// What the receiver says, briefly; the rest is read (a little of it)
	// so that the connection can carry the next request.
	head, _ := io.ReadAll(io.LimitReader(resp.Body, 200))
	io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	a := statusd.Attempt{At: p.now(), Status: resp.StatusCode}
	switch code := resp.StatusCode; {
	case code >= 200 && code < 300:
		a.Outcome = statusd.Delivered
		return a
	case code == http.StatusGone:
		a.Outcome = statusd.Gone
	default:
		a.Outcome = statusd.Failed
		if code == http.StatusTooManyRequests || code == http.StatusServiceUnavailable {
			a.RetryAfter = retryAfter(resp.Header.Get("Retry-After"), a.At)
		}
	}
	a.Error = "HTTP " + strconv.Itoa(resp.StatusCode)
	if code := resp.StatusCode; code >= 300 && code < 400 {
		a.Error += " (redirects are not followed)"
	}
	if t := strings.TrimSpace(strings.ToValidUTF8(string(head), "")); t != "" {
		a.Error += ": " + t
	}
	a.Error = clip(a.Error, maxErrorText, nil)
	return a
}

// retryAfter reads a Retry-After header, seconds or an HTTP date, as a
// delay from now; 0 when there is none.
func retryAfter(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseInt(v, 10, 64); err == nil {
		if s <= 0 {
			return 0
		}
		return time.Duration(min(s, int64(statusd.RetryFor/time.Second))) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return min(t.Sub(now), statusd.RetryFor)
	}
	return 0
}

// describe says briefly why a request failed, without the URL (which is
// the subscriber's address, and would be logged).
func describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var priv *privateError
	var dns *net.DNSError
	var op *net.OpError
	var text string
	switch {
	case errors.As(err, &priv):
		text = priv.Error()
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded):
		text = "no answer in time"
	case errors.As(err, &dns):
		text = "the host name does not resolve: " + dns.Err
	case errors.As(err, &op) && op.Err != nil:
		text = op.Op + ": " + op.Err.Error()
	default:
		text = err.Error()
	}
	if !utf8.ValidString(text) {
		text = strings.ToValidUTF8(text, "")
	}
	return clip(text, maxErrorText, nil)
}
