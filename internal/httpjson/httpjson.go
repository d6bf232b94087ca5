// Package httpjson writes the JSON answers of the API and admin handlers
// (internal/route writes their errors): marshal into a buffer first, then
// write the status line, so that a failure can still be answered properly.
package httpjson

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
)

// Write answers v as JSON with the status. Paths inside keep their & raw,
// as the API's documents show them. A HEAD request gets the headers only. When v
// cannot be encoded, nothing is written and the error is returned.
func Write(w http.ResponseWriter, r *http.Request, status int, v any) error {
	body, err := Marshal(v)
	if err != nil {
		return err
	}
	send(w, r, status, body)
	return nil
}

// Marshal encodes v as JSON without escaping <, > and &, as Write does. The
// encoding grows in a buffer kept for the next call; the answer is a copy
// of exactly its size.
func Marshal(v any) ([]byte, error) {
	buf := buffers.Get().(*bytes.Buffer)
	defer func() {
		if buf.Cap() <= maxKeptBuffer {
			buffers.Put(buf)
		}
	}()
	buf.Reset()
	if a, ok := v.(jsonAppender); ok {
		// As encoding/json would, minus the reflection.
		out := a.AppendJSON(buf.AvailableBuffer())
		if cap(out) > buf.Cap() {
			buf = bytes.NewBuffer(out[:0]) // kept, grown, for the next call
		}
		return bytes.Clone(out), nil
	}
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(buf.Bytes(), []byte("\n"))), nil
}

// Append appends v's JSON, as Marshal encodes it, to dst.
func Append(dst []byte, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		return a.AppendJSON(dst), nil
	}
	body, err := Marshal(v)
	return append(dst, body...), err
}

// jsonAppender is a value that writes its own JSON, exactly as
// encoding/json with HTML escaping off would.
type jsonAppender interface{ AppendJSON(b []byte) []byte }

// buffers keeps Marshal's buffers, up to maxKeptBuffer bytes each.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

const maxKeptBuffer = 1 << 20

func send(w http.ResponseWriter, r *http.Request, status int, body []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// The CORS headers of every answer, made once: the values are shared, never
// changed.
var (
	allowAnyOrigin = []string{"*"}
	exposedHeaders = []string{"ETag, RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, Retry-After, X-Ignored-Filters, X-Request-Id"}
)

// AllowAnyOrigin sets the CORS headers of an answer any origin may read,
// as CORS does.
func AllowAnyOrigin(w http.ResponseWriter) {
	h := w.Header()
	h["Access-Control-Allow-Origin"] = allowAnyOrigin
	h["Access-Control-Expose-Headers"] = exposedHeaders
}

// Preflight answers a CORS preflight request (OPTIONS) of a path any
// origin may read (AllowAnyOrigin): any method of a read, any header. It
// never fails; it returns an error to be a route.Handler.
func Preflight(w http.ResponseWriter, r *http.Request) error {
	AllowAnyOrigin(w)
	h := w.Header()
	h.Set("Allow", "GET, HEAD, OPTIONS")
	h.Set("Access-Control-Allow-Methods", "GET, HEAD, OPTIONS")
	if req := r.Header.Get("Access-Control-Request-Headers"); req != "" {
		h.Set("Access-Control-Allow-Headers", req)
	}
	h.Set("Access-Control-Max-Age", "86400")
	w.WriteHeader(http.StatusNoContent)
	return nil
}
