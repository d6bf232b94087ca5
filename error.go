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
	ENotFound          = "not_found"
	EMetricsDisabled   = "metrics_disabled"
	EMethodNotAllowed  = "method_not_allowed"
	EConflict          = "conflict"
	ETooLarge          = "too_large"
	ERateLimited       = "rate_limited"
	EInternal          = "internal"
	EUnavailable       = "unavailable"
)

var codeStatus = map[string]int{
	EInvalidParameter:  400,
	EInvalidBody:       400,
	EUnauthorized:      401,
	ENotFound:          404,
	EMetricsDisabled:   404,
	EMethodNotAllowed:  405,
	EConflict:          409,
	ETooLarge:          413,
	EInvalidField:      422,
	EInvalidTransition: 422,
	ERateLimited:       429,
	EInternal:          500,
	EUnavailable:       503,
}

// ErrorStatus returns the HTTP status of an error code; unknown codes are 500.
func ErrorStatus(code string) int {
	if s, ok := codeStatus[code]; ok {
		return s
	}
	return 500
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
