package signals

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// Decode reads body as the format f. A refusal is a *statusd.Error:
// too_large for a body over MaxBody bytes or with more than MaxAlerts
// alerts, invalid_body for one that is not JSON, invalid_field for JSON
// that is not the format, naming every problem by its JSON path
// ("version", "alerts[2].fingerprint", "events[0].status").
//
// Keys the format does not read are ignored, so that senders may add
// them; the keys it reads are checked. Labels and annotations are
// read as given: their names are case-sensitive, as Prometheus's are.
func Decode(f Format, body []byte) (Batch, error) {
	if !f.Valid() {
		return Batch{}, fmt.Errorf("signals: %q is not a format", f)
	}
	if len(body) > MaxBody {
		return Batch{}, statusd.Errorf(statusd.ETooLarge, "the body is over %d bytes", MaxBody)
	}
	root, err := parse(body)
	if err != nil {
		return Batch{}, err
	}
	var b Batch
	switch f {
	case Alertmanager:
		b, err = decodeGroup(root, "4", "Alertmanager's webhook body")
	case Grafana:
		b, err = decodeGroup(root, "1", "the body of Grafana's webhook contact point")
	case UptimeKuma:
		b, err = decodeUptimeKuma(root)
	case Generic:
		b, err = decodeGeneric(root)
	}
	if err != nil {
		return Batch{}, err
	}
	return b, nil
}

// parse reads body, which must be one JSON object, into a generic tree
// whose numbers are json.Number.
func parse(body []byte) (map[string]any, error) {
	if !utf8.Valid(body) {
		return nil, statusd.Errorf(statusd.EInvalidBody, "the body is not valid UTF-8")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); errors.Is(err, io.EOF) {
		return nil, statusd.Errorf(statusd.EInvalidBody, "the body is empty")
	} else if err != nil {
		return nil, statusd.Errorf(statusd.EInvalidBody, "the body is not valid JSON: %v", err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, statusd.Errorf(statusd.EInvalidBody, "the body is not valid JSON: there is more after the JSON value")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, statusd.FieldError(statusd.EInvalidField, "", "the body must be a JSON object")
	}
	return m, nil
}

// reader reads the generic tree of a body, noting a problem, at its JSON
// path, for each value that is not what the format says.
type reader struct {
	problems []statusd.Problem
}

func (r *reader) add(path, format string, args ...any) {
	r.problems = append(r.problems, statusd.Problem{Path: path, Message: fmt.Sprintf(format, args...)})
}

// err is the refusal naming every problem noted, or nil.
func (r *reader) err() error {
	return statusd.Invalid(statusd.EInvalidField, r.problems)
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// object returns v, at path, as an object, or nil with a problem.
func (r *reader) object(path string, v any) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		r.add(path, "must be an object")
	}
	return m
}

// list returns the array of alerts root[key], or nil with a problem;
// more than MaxAlerts of them is a too_large error.
func (r *reader) list(root map[string]any, key string) ([]any, error) {
	v, ok := root[key]
	if !ok {
		r.add(key, "is required")
		return nil, nil
	}
	a, ok := v.([]any)
	if !ok {
		r.add(key, "must be an array")
		return nil, nil
	}
	if len(a) > MaxAlerts {
		return nil, statusd.Errorf(statusd.ETooLarge, "%s holds %d alerts; at most %d are taken in one body", key, len(a), MaxAlerts)
	}
	return a, nil
}

// str returns the string m[key] (m at path): "" when it is absent or
// null. A required string must be there and not empty.
func (r *reader) str(m map[string]any, path, key string, required bool) string {
	p := join(path, key)
	switch v := m[key].(type) {
	case nil:
		if required {
			r.add(p, "is required")
		}
	case string:
		if v == "" && required {
			r.add(p, "must not be empty")
		}
		if strings.IndexByte(v, 0) >= 0 {
			r.add(p, "holds a NUL character (\\u0000)")
			return ""
		}
		return v
	default:
		r.add(p, "must be a string")
	}
	return ""
}

// key returns the dedupe key m[key] (m at path): a string that is not
// empty and holds no control character.
func (r *reader) key(m map[string]any, path, key string) string {
	s := r.str(m, path, key, true)
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		r.add(join(path, key), "holds a control character")
		return ""
	}
	return s
}

// integer returns the integer m[key] (m at path), with a problem when it
// is absent, null or not an integer.
func (r *reader) integer(m map[string]any, path, key string) (int64, bool) {
	v := m[key]
	n, ok := v.(json.Number)
	switch {
	case v == nil:
		r.add(join(path, key), "is required")
		return 0, false
	case !ok:
		r.add(join(path, key), "must be an integer")
		return 0, false
	}
	i, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		r.add(join(path, key), "must be an integer, not %s", n)
		return 0, false
	}
	return i, true
}

// labels returns the object of strings m[key] (m at path), empty when it
// is absent or null. A name must not be empty nor hold a control
// character.
func (r *reader) labels(m map[string]any, path, key string) map[string]string {
	p := join(path, key)
	out := map[string]string{}
	v := m[key]
	if v == nil {
		return out
	}
	obj, ok := v.(map[string]any)
	if !ok {
		r.add(p, "must be an object of strings")
		return out
	}
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		switch {
		case name == "":
			r.add(p, "has an empty name")
		case strings.IndexFunc(name, unicode.IsControl) >= 0:
			r.add(p, "the name %q holds a control character", name)
		default:
			if _, ok := obj[name].(string); !ok {
				r.add(join(p, name), "must be a string")
				continue
			}
			out[name] = r.str(obj, p, name, false)
		}
	}
	return out
}

// timestamp returns the RFC 3339 time m[key] (m at path) in UTC, zero
// when it is absent, null, empty, or 0001-01-01T00:00:00Z.
func (r *reader) timestamp(m map[string]any, path, key string) time.Time {
	s := r.str(m, path, key, false)
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		r.add(join(path, key), "must be a time like 2026-01-01T00:00:00Z (RFC 3339), not %q", s)
		return time.Time{}
	}
	return utc(t)
}

// utc returns t in UTC, or the zero time for Go's zero instant, which
// Alertmanager sends for an unset time.
func utc(t time.Time) time.Time {
	if t.IsZero() {
		return time.Time{}
	}
	return t.UTC()
}
