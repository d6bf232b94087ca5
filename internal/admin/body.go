package admin

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
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
		return statusd.FieldError(statusd.EInvalidField, typeErr.Field, "must be %s, not %s", jsonType(typeErr.Type.String()), typeErr.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		field := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return statusd.FieldError(statusd.EInvalidField, field, "unknown field")
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
