package admin

import (
	"net/http"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// GetMirror answers the mirror's public key, destinations and last
// pushes (GET /mirror): app.Mirror.
func (s *Server) GetMirror(w http.ResponseWriter, r *http.Request, actor statusd.Actor) error {
	m, err := s.app.Mirror(r.Context(), actor)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, m)
}
