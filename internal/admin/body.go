package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
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
	if err := statusd.Invalid(statusd.EInvalidField, found); err != nil {
		return err
	}
	if err := statusd.Invalid(statusd.EInvalidField, fieldProblems(body, dst)); err != nil {
		return err
	}
	err = decodeStrict(body, dst)
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field == "" {
		return statusd.Errorf(statusd.EInvalidBody, "the body must be a JSON object")
	}
	if p := fieldProblem(err, ""); p != nil {
		return statusd.Invalid(statusd.EInvalidField, []statusd.Problem{*p})
	}
	if err != nil {
		return statusd.Errorf(statusd.EInvalidBody, "the body could not be read: %v", err)
	}
	return nil
}

// decodeStrict decodes the JSON value b into dst, refusing unknown keys.
func decodeStrict(b []byte, dst any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	return dec.Decode(dst)
}

// fieldProblems names every key of the JSON object body that the struct
// dst points to has no field for, and every value that does not fit its
// field, each by its JSON path, in the body's order: a body with several
// problems is refused naming them all. A body that is not an object has
// none here (decode refuses it whole).
func fieldProblems(body []byte, dst any) []statusd.Problem {
	dec := json.NewDecoder(bytes.NewReader(body))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	t := reflect.TypeOf(dst).Elem()
	var problems []statusd.Problem
	for dec.More() {
		tok, err := dec.Token()
		var raw json.RawMessage
		if err != nil || dec.Decode(&raw) != nil {
			return nil // DecodeJSON read it: not reached
		}
		key := tok.(string)
		field, ok := jsonField(t, key)
		if !ok {
			problems = append(problems, statusd.Problem{Path: key, Message: "unknown field"})
			continue
		}
		if p := fieldProblem(decodeStrict(raw, reflect.New(field).Interface()), key); p != nil {
			problems = append(problems, *p)
		}
	}
	return problems
}

// jsonField returns the type of the field of the struct type t that the
// JSON key names, matched as encoding/json matches it.
func jsonField(t reflect.Type, key string) (reflect.Type, bool) {
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" {
			name = f.Name
		}
		if f.IsExported() && name != "-" && strings.EqualFold(name, key) {
			return f.Type, true
		}
	}
	return nil, false
}

// fieldProblem is the problem a decoding error names, at its path under
// prefix (the key of the value decoded, "" for the whole body): a value of
// the wrong type or an unknown key; nil for any other error.
func fieldProblem(err error, prefix string) *statusd.Problem {
	join := func(field string) string {
		if prefix == "" || field == "" {
			return prefix + field
		}
		return prefix + "." + field
	}
	var typeErr *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &typeErr):
		return &statusd.Problem{Path: join(typeErr.Field), Message: fmt.Sprintf("must be %s, not %s", jsonType(typeErr.Type.String()), typeErr.Value)}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &statusd.Problem{Path: join(field), Message: "unknown field"}
	}
	return nil
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
