package app

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// problems collects what is wrong with an action's input, field by field
// (each by its JSON path).
type problems []statusd.Problem

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, statusd.Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// has reports whether a problem is noted at path.
func (p problems) has(path string) bool {
	return slices.ContainsFunc(p, func(q statusd.Problem) bool { return q.Path == path })
}

// setField is a field of a request body, and whether the body sets it.
type setField struct {
	key string
	set bool
}

// refuse notes each of the fields that the body sets, with the same
// message: fields a request cannot change.
func (p *problems) refuse(message string, fields ...setField) {
	for _, f := range fields {
		if f.set {
			p.add(f.key, "%s", message)
		}
	}
}

// check notes the problems of err, a domain rule's *statusd.Error that
// names its field, unless err is nil.
func (p *problems) check(err error) {
	if err == nil {
		return
	}
	if list := statusd.ProblemsOf(err); len(list) > 0 {
		*p = append(*p, list...)
		return
	}
	*p = append(*p, statusd.Problem{Message: statusd.ErrorMessage(err)})
}

// err is nil when nothing was found, else a 422 naming every field.
func (p problems) err() error { return statusd.Invalid(statusd.EInvalidField, p) }

// timestamp parses an RFC 3339 time of a body field into UTC milliseconds.
func (p *problems) timestamp(path, v string) *time.Time {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		p.add(path, "%q is not a timestamp like 2026-01-01T00:00:00Z", v)
		return nil
	}
	t = t.UTC().Truncate(time.Millisecond)
	return &t
}

// requireText checks that a set string field is not blank.
func (p *problems) requireText(path string, v *string, required bool) {
	switch {
	case v == nil && required:
		p.add(path, "is required")
	case v != nil && strings.TrimSpace(*v) == "":
		p.add(path, "must not be empty")
	}
}

// bound notes a set string field of more than max characters
// (statusd.MaxSubject, statusd.MaxContent).
func (p *problems) bound(path string, v *string, max int) {
	if v == nil {
		return
	}
	if msg := statusd.TooLong(*v, max); msg != "" {
		p.add(path, "%s", msg)
	}
}

// oneOf lists the values a setting takes, for messages: "a, b or c".
func oneOf[T ~string](list []T) string {
	s := make([]string, len(list))
	for i, v := range list {
		s[i] = string(v)
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}

// queryEnum reads the query parameter key, one of valid when given.
func queryEnum[T ~string](q url.Values, key string, valid []T) (T, error) {
	v := T(q.Get(key))
	if v != "" && !slices.Contains(valid, v) {
		return "", statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not %s", key, v, oneOf(valid))
	}
	return v, nil
}

// PageOf reads a list's ?page= (statusd.ParsePage): 1 when left out.
func PageOf(q url.Values) (int64, error) {
	v := q.Get("page")
	if v == "" {
		return 1, nil
	}
	return statusd.ParsePage(v)
}

// SubscriberFilterOf reads a list's ?channel= and ?state=.
func SubscriberFilterOf(q url.Values) (statusd.SubscriberFilter, error) {
	var f statusd.SubscriberFilter
	var err error
	if f.Channel, err = queryEnum(q, "channel", statusd.Channels); err != nil {
		return f, err
	}
	f.State, err = queryEnum(q, "state", statusd.SubscriberStates)
	return f, err
}

// DeliveryFilterOf reads a list's ?subscriber_id= and ?state=.
func DeliveryFilterOf(q url.Values) (statusd.DeliveryFilter, error) {
	var f statusd.DeliveryFilter
	var err error
	if v := q.Get("subscriber_id"); v != "" {
		f.SubscriberID, err = strconv.ParseInt(v, 10, 64)
		if err != nil || f.SubscriberID < 1 || strings.Trim(v, "0123456789") != "" {
			return f, statusd.Errorf(statusd.EInvalidParameter, "subscriber_id: %q is not a subscriber id (an integer >= 1)", v)
		}
	}
	f.State, err = queryEnum(q, "state", statusd.DeliveryStates)
	return f, err
}

// SignalFilterOf reads a list's ?source_id=, ?status= and ?unmapped=.
func SignalFilterOf(q url.Values) (statusd.SignalFilter, error) {
	var f statusd.SignalFilter
	if v := q.Get("source_id"); v != "" {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id < 1 || strings.Trim(v, "0123456789") != "" {
			return f, statusd.Errorf(statusd.EInvalidParameter, "source_id: %q is not a source id (an integer >= 1)", v)
		}
		f.SourceID = id
	}
	var err error
	if f.Status, err = queryEnum(q, "status", []string{"firing", "resolved"}); err != nil {
		return f, err
	}
	unmapped, err := queryEnum(q, "unmapped", []string{"true", "false"})
	f.Unmapped = unmapped == "true"
	return f, err
}

// DraftStateOf reads a list's ?state= of drafts ("": all).
func DraftStateOf(q url.Values) (string, error) { return queryEnum(q, "state", statusd.DraftStates) }

// ErrNotDue is AddUpdate's answer to statusd itself (statusd.System) for
// an automated move that is no longer due when its transaction reads the
// notice: another server made it first. Nothing was written.
var ErrNotDue = errors.New("the automated move is no longer due")
