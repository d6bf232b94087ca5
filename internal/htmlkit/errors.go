package htmlkit

import (
	"net/http"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
)

// Link is a link of a screen: where to, and its words.
type Link struct{ Href, Text string }

// Failure is what the error screen shows: the status, a heading, the
// message, and the way back (none when its Href is empty).
type Failure struct {
	Status  int
	Heading string
	Message string
	Back    Link
}

// ErrorScreen is how a site words its error screen, the page "error" of
// its Pages.
type ErrorScreen struct {
	// Headings are the headings by status; another status's is its text.
	Headings map[int]string
	// Internal is the message of an internal error (logged by
	// route.Errors), whose own message is not shown.
	Internal string
	// Busy is the message of a refusal for load (route.Retry with
	// EUnavailable); "" shows the refusal's own.
	Busy string
	// Back is the link back to the site.
	Back Link
}

// Failure is what the error screen shows of err: a *statusd.Error's
// status and message as they are, an internal error (any other error
// too) as the site's generic message.
func (e ErrorScreen) Failure(err error) Failure {
	code := statusd.ErrorCode(err)
	f := Failure{Status: statusd.ErrorStatus(code), Message: statusd.ErrorMessage(err), Back: e.Back}
	switch {
	case code == statusd.EInternal:
		f.Message = e.Internal
	case code == statusd.EUnavailable && e.Busy != "" && route.IsRetry(err):
		f.Message = e.Busy
	}
	f.Heading = e.Headings[f.Status]
	if f.Heading == "" {
		f.Heading = http.StatusText(f.Status)
	}
	return f
}

// SameOrigin refuses the POSTs of a site's forms that another site sent
// (Go's http.CrossOriginProtection: a Sec-Fetch-Site of cross-site or
// same-site, or an Origin that is not the request's host), before
// anything is read, changed or counted. It is safe for concurrent use.
type SameOrigin struct {
	protect *http.CrossOriginProtection
	refusal *statusd.Error
}

// NewSameOrigin returns the check; a refusal's message asks the person to
// use the site's own forms, which use names ("the form on this page").
func NewSameOrigin(use string) *SameOrigin {
	return &SameOrigin{protect: http.NewCrossOriginProtection(), refusal: statusd.Errorf(statusd.EForbidden,
		"This form was sent from another site, so it was refused and nothing was changed. Please use %s.", use)}
}

// Check returns the refusal, a 403 forbidden, of a request another site
// sent, and nil for any other.
func (o *SameOrigin) Check(r *http.Request) error {
	if o.protect.Check(r) != nil {
		return o.refusal
	}
	return nil
}

// Wrap refuses a request another site sent before h runs.
func (o *SameOrigin) Wrap(h route.Handler) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := o.Check(r); err != nil {
			return err
		}
		return h(w, r)
	}
}
