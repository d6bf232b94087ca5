// Package web serves the HTML side of statusd. For now that is a plain
// summary page at / and HTML error pages for every other path outside the
// API; the full status page comes with its own issue.
package web

import (
	"bytes"
	"embed"
	"html/template"
	"net/http"
	"strconv"

	"github.com/statusd/statusd/internal/snapshot"
)

//go:embed templates/*.html
var templates embed.FS

var pages = template.Must(template.ParseFS(templates, "templates/*.html"))

// Server renders the HTML pages from the current snapshot. It is safe for
// concurrent use.
type Server struct {
	snaps *snapshot.Holder
}

// New returns a Server reading snapshots from h.
func New(h *snapshot.Holder) *Server { return &Server{snaps: h} }

// Register adds the HTML routes to mux.
func (s *Server) Register(mux *http.ServeMux) {
	mux.HandleFunc("/", s.index)
}

type componentView struct{ Name, State string }

func (s *Server) index(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/" {
		s.error(w, http.StatusNotFound, "Page not found", "There is nothing at "+r.URL.Path+".")
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		s.error(w, http.StatusMethodNotAllowed, "Method not allowed", "This page can only be read.")
		return
	}
	snap := s.snaps.Current()
	if snap == nil {
		s.error(w, http.StatusServiceUnavailable, "No status yet", "No page has been published yet.")
		return
	}
	page := snap.Page()
	data := struct {
		Name, State, StateText string
		Components             []componentView
	}{Name: page.Name, State: page.State, StateText: page.StateText}
	for _, c := range snap.AllComponents {
		data.Components = append(data.Components, componentView{c.Name, snap.Variant.Name(c.State)})
	}
	s.render(w, http.StatusOK, "index.html", data)
}

func (s *Server) error(w http.ResponseWriter, status int, title, message string) {
	s.render(w, status, "error.html", struct{ Title, Message string }{title, message})
}

// render executes a template into a buffer before writing the status line.
func (s *Server) render(w http.ResponseWriter, status int, name string, data any) {
	var buf bytes.Buffer
	if err := pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes())
}
