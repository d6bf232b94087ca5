package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/statusd/statusd"
)

// writeJSON marshals v into a buffer first, so that a marshalling failure
// can still be answered with a proper error.
func (s *Server) writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // paths carry & raw, as SPEC.md shows them
	if err := enc.Encode(v); err != nil {
		s.writeError(w, r, err)
		return
	}
	body := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// writeError answers err as JSON (CONTRACT C2). Errors that are not a
// *statusd.Error are logged and answered with a generic message.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	code := statusd.ErrorCode(err)
	status := statusd.ErrorStatus(code)
	if code == statusd.EInternal {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	body, _ := json.Marshal(statusd.ErrorResponse{Error: statusd.ErrorBody{
		Status: status, Code: code, Message: statusd.ErrorMessage(err),
	}})
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
}

// recoverer answers a panic with a 500 JSON error instead of a dropped
// connection, and logs it once.
func (s *Server) recoverer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "method", r.Method, "path", r.URL.Path, "panic", v)
				s.writeError(w, r, statusd.Errorf(statusd.EInternal, "internal error"))
			}
		}()
		next.ServeHTTP(w, r)
	})
}
