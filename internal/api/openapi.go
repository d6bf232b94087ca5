package api

import (
	"net/http"
	"strconv"

	"github.com/statusd/statusd/internal/openapi"
	"github.com/statusd/statusd/internal/snapshot"
)

// OpenAPI answers GET /api/v1/openapi.json: the OpenAPI document of this
// server's variant. The document does not depend on the page, but like every
// API answer it waits for one (503 before).
func (s *Server) OpenAPI(w http.ResponseWriter, r *http.Request, _ *snapshot.Snapshot) error {
	body := openapi.Document(s.variant)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(http.StatusOK)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return nil
}
