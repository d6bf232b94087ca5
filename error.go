package statusd

import (
	"errors"
	"fmt"
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
}

// Error implements the error interface.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
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
