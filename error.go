package statusd

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. Each maps to one HTTP status through [ErrorStatus].
const (
	EInvalidParameter  = "invalid_parameter"
	EInvalidBody       = "invalid_body"
	EInvalidField      = "invalid_field"
	EInvalidTransition = "invalid_transition"
	EUnauthorized      = "unauthorized"
	EForbidden         = "forbidden"
	ENotFound          = "not_found"
	EMetricsDisabled   = "metrics_disabled"
	EMethodNotAllowed  = "method_not_allowed"
	EConflict          = "conflict"
	ETooLarge          = "too_large"
	ERateLimited       = "rate_limited"
	EInternal          = "internal"
	EUnavailable       = "unavailable"
)

// codeStatus is the one table from error code to HTTP status, read both
// ways: by the server (ErrorStatus) and by the SDK (CodeOfStatus). The
// first code of each status is the one a bare status stands for.
var codeStatus = []struct {
	code   string
	status int
}{
	{EInvalidParameter, 400},
	{EInvalidBody, 400},
	{EUnauthorized, 401},
	{EForbidden, 403},
	{ENotFound, 404},
	{EMetricsDisabled, 404},
	{EMethodNotAllowed, 405},
	{EConflict, 409},
	{ETooLarge, 413},
	{EInvalidField, 422},
	{EInvalidTransition, 422},
	{ERateLimited, 429},
	{EInternal, 500},
	{EUnavailable, 503},
}

// ErrorStatus returns the HTTP status of an error code; unknown codes are 500.
func ErrorStatus(code string) int {
	for _, c := range codeStatus {
		if c.code == code {
			return c.status
		}
	}
	return 500
}

// CodeOfStatus returns the error code an HTTP error status stands for, for
// an answer that carries no code of its own: the first of the status's
// codes, or EInternal for a status that has none.
func CodeOfStatus(status int) string {
	for _, c := range codeStatus {
		if c.status == status {
			return c.code
		}
	}
	return EInternal
}

// Error is the one error type of statusd that is meant for users: a code from
// the list above and a message that says what went wrong.
type Error struct {
	Code    string
	Message string
	// Problems name each bad field of a refused request by its JSON path
	// ("subject", "component_ids[2]"), for a form to show each at its
	// field; Message says them all, "path: message; path: message". Empty
	// for an error that names no field.
	Problems []Problem
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// NoPage is the refusal, with code, of a request that needs a page while
// the store holds none: it says how to start one.
func NoPage(code string) *Error {
	return Errorf(code, "no page has been published yet; start one with statusd init (or statusd import)")
}

// FieldError returns an *Error with the code about the one field at path
// (its JSON path): its Problems that field's, its Message "path: message".
func FieldError(code, path, format string, args ...any) *Error {
	return invalid(code, []Problem{{Path: path, Message: fmt.Sprintf(format, args...)}})
}

// Invalid returns an *Error with the code naming every problem (each
// field's by its path), or nil when there are none.
func Invalid(code string, problems []Problem) error {
	if len(problems) == 0 {
		return nil
	}
	return invalid(code, problems)
}

func invalid(code string, problems []Problem) *Error {
	parts := make([]string, len(problems))
	for i, p := range problems {
		parts[i] = p.String()
	}
	return &Error{Code: code, Message: strings.Join(parts, "; "), Problems: problems}
}

// ProblemsOf returns the problems of err when it is or wraps an *Error
// that names them, else nil.
func ProblemsOf(err error) []Problem {
	var e *Error
	if errors.As(err, &e) {
		return e.Problems
	}
	return nil
}

// ErrorCode returns the code of err when it is or wraps an *Error, else
// EInternal.
func ErrorCode(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EInternal
}

// ErrorMessage returns the message of err when it is or wraps an *Error, else
// a generic message that discloses nothing.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return "internal error"
}
