package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd/client"
)

// opWithHint adds a hint to err when it carries the exit code.
func opWithHint(err error, code int, hint string) error {
	var ee *ExitError
	if errors.As(err, &ee) && ee.Code == code {
		return &ExitError{Code: code, Err: fmt.Errorf("%w; %s", ee.Err, hint)}
	}
	return err
}

// opTimeout bounds every request of the operator CLI.
const opTimeout = 10 * time.Second

// opServer is the server URL --url names, checked.
func opServer(rawURL string) (string, error) {
	u, err := url.Parse(strings.TrimSpace(rawURL))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return "", Errorf(ExitUsage, "--url: %q is not a server URL like http://127.0.0.1:8080 (also $STATUSD_URL)", rawURL)
	}
	return strings.TrimSuffix(u.String(), "/"), nil
}

// newOpAdmin returns an admin client of the server at base that hands
// every successful answer's body to answer. It does not retry: a 429 is
// reported at once.
func newOpAdmin(base, token string, answer func([]byte)) *client.Admin {
	return client.NewAdmin(base, strings.TrimSpace(token), client.WithMaxRetries(0), client.WithAnswers(answer),
		client.WithUserAgent("statusd-cli/1"), client.WithHTTPClient(&http.Client{Timeout: opTimeout}))
}

// opFailure turns an error of the admin client into an *ExitError whose
// message says what to do about it; sent is whether the request carried a
// token, which a 401 answer is explained by.
func opFailure(ctx context.Context, base string, sent bool, err error) error {
	var e *client.Error
	var ne net.Error
	switch {
	case errors.As(err, &e):
	case ctx.Err() != nil:
		return fmt.Errorf("interrupted before %s answered", base)
	case errors.As(err, &ne) && ne.Timeout():
		return Errorf(ExitUnavailable, "statusd at %s did not answer within %s; check that it is running and reachable, then try again", base, opTimeout)
	case errors.As(err, &ne):
		cause := err
		var ue *url.Error
		if errors.As(err, &ue) {
			cause = ue.Err
		}
		return Errorf(ExitUnavailable, "cannot reach statusd at %s: %v; check --url (or $STATUSD_URL) and that statusd serve is running there", base, cause)
	default:
		return Errorf(ExitFailure, "%v; is --url the statusd server?", err)
	}
	s := e.Status
	switch {
	case s >= 300 && s < 400 && e.Location != "":
		return Errorf(ExitUsage, "the server answered a redirect to %s; use that URL with --url", opRedirectBase(e.Location))
	case s == http.StatusUnauthorized && !sent:
		return Errorf(ExitUnauthorized, "no token given: pass --token or set STATUSD_TOKEN (statusd token create --name NAME on the server's host makes one)")
	case s == http.StatusUnauthorized:
		return Errorf(ExitUnauthorized, "the server refused the token: %s; --token (or STATUSD_TOKEN) must come from statusd token create on the database that statusd serve at %s uses",
			e.Message, base)
	case s == http.StatusNotFound:
		return Errorf(ExitNotFound, "%s", e.Message)
	case s == http.StatusBadRequest, s == http.StatusConflict, s == http.StatusRequestEntityTooLarge, s == http.StatusUnprocessableEntity:
		return Errorf(ExitRefused, "refused by the server: %s", e.Message)
	case s == http.StatusTooManyRequests:
		wait := "a few"
		if e.RetryAfter > 0 {
			wait = strconv.Itoa(int(e.RetryAfter.Seconds()))
		}
		return Errorf(ExitUnavailable, "statusd at %s is rate limiting this client (%s); try again in %s second(s)", base, e.Message, wait)
	case s >= 500:
		return Errorf(ExitUnavailable, "statusd at %s is unavailable (%d %s); try again shortly, and check the server's log if it persists", base, s, e.Message)
	}
	return Errorf(ExitFailure, "%s: %d %s", base, s, e.Message)
}

// opRedirectBase is the server URL a redirect of an admin API request
// points at: its Location without the admin API path and the query when it
// ends so, else the whole Location.
func opRedirectBase(location string) string {
	loc, err := url.Parse(location)
	if err != nil {
		return strconv.Quote(location)
	}
	if i := strings.Index(loc.Path, client.AdminRoot+"/"); i >= 0 {
		loc.Path, loc.RawPath, loc.RawQuery = loc.Path[:i], "", ""
	}
	return loc.String()
}

// opBody keeps the body of the last answer, for --json.
type opBody struct{ b []byte }

func (o *opBody) set(b []byte) { o.b = append(o.b[:0], b...) }

// print writes the body, unless it is empty, and a newline.
func (o *opBody) print(w io.Writer) error {
	if len(o.b) == 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "%s\n", o.b)
	return err
}
