package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// decode reads a JSON object body into dst, refusing unknown keys: 413 for
// a body over MaxBody, 400 for one that is not JSON, 422 naming the field
// for a value of the wrong type, a key given twice or a NUL character
// (statusd.DecodeJSON).
func decode(r *http.Request, dst any) error {
	body, err := io.ReadAll(r.Body)
	var maxErr *http.MaxBytesError
	switch {
	case errors.As(err, &maxErr):
		return statusd.Errorf(statusd.ETooLarge, "the body is over %d bytes", MaxBody)
	case err != nil:
		return statusd.Errorf(statusd.EInvalidBody, "the body could not be read: %v", err)
	}
	_, found, err := statusd.DecodeJSON(body)
	switch {
	case err != nil && !utf8.Valid(body):
		return statusd.Errorf(statusd.EInvalidBody, "the body is not valid UTF-8")
	case err != nil:
		return statusd.Errorf(statusd.EInvalidBody, "the body is not valid JSON: %v", err)
	}
	var bad problems
	bad.addAll(found)
	if err := bad.err(); err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	err = dec.Decode(dst)
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr):
		if typeErr.Field == "" {
			return statusd.Errorf(statusd.EInvalidBody, "the body must be a JSON object")
		}
		return statusd.Errorf(statusd.EInvalidField, "%s: must be %s, not %s", typeErr.Field, jsonType(typeErr.Type.String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return statusd.Errorf(statusd.EInvalidField, "%s: unknown field", field)
	}
	return statusd.Errorf(statusd.EInvalidBody, "the body could not be read: %v", err)
}

func jsonType(goType string) string {
	switch {
	case strings.Contains(goType, "int"):
		return "an integer"
	case strings.Contains(goType, "string") && strings.HasPrefix(goType, "[]"):
		return "an array of strings"
	case strings.HasPrefix(goType, "[]"):
		return "an array"
	case strings.Contains(goType, "string"):
		return "a string"
	case strings.Contains(goType, "bool"):
		return "true or false"
	}
	return "a JSON " + goType
}

// problems collects what is wrong with a request body, field by field.
type problems []string

func (p *problems) add(path, format string, args ...any) {
	*p = append(*p, path+": "+fmt.Sprintf(format, args...))
}

func (p *problems) addAll(list []statusd.Problem) {
	for _, q := range list {
		*p = append(*p, q.String())
	}
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

// check notes the message of err, a domain rule's *statusd.Error that
// names its field, unless err is nil.
func (p *problems) check(err error) {
	if err != nil {
		*p = append(*p, statusd.ErrorMessage(err))
	}
}

// err is nil when nothing was found, else a 422 naming every field.
func (p problems) err() error {
	if len(p) == 0 {
		return nil
	}
	return statusd.Errorf(statusd.EInvalidField, "%s", strings.Join(p, "; "))
}

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
