// Package badge serves status badges for a README or a dashboard:
//
//	/badge/status.json             the page, as a shields.io endpoint badge
//	/badge/status.svg              the page, as an SVG badge
//	/badge/components/{id}.json    a component, as a shields.io endpoint badge
//	/badge/components/{id}.svg     a component, as an SVG badge
//
// The JSON is the shields.io endpoint format
// ({"schemaVersion":1,"label":...,"message":...,"color":...}), for
// https://img.shields.io/endpoint?url=<statusd>/badge/status.json. The SVG
// is drawn here, flat, with its text escaped and a title for screen
// readers; the state is always spelled out in the message, never told by
// its colour alone.
package badge

import (
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where badges are read from; *snapshot.Holder is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures a Server.
type Config struct {
	Snapshots Snapshots
	// MaxAge is how long clients and image proxies may reuse a badge.
	MaxAge time.Duration
}

// Server serves the badges. It is safe for concurrent use.
type Server struct {
	snaps        Snapshots
	cacheControl string
}

// New returns a Server for the configuration.
func New(cfg Config) *Server {
	return &Server{snaps: cfg.Snapshots,
		cacheControl: "public, max-age=" + strconv.Itoa(int(cfg.MaxAge/time.Second))}
}

// StatusJSON answers the page's badge as a shields.io endpoint.
func (s *Server) StatusJSON() route.Handler { return s.page(writeJSON) }

// StatusSVG answers the page's badge as SVG.
func (s *Server) StatusSVG() route.Handler { return s.page(writeSVG) }

// Component answers a component's badge, /badge/components/{file}: a
// wildcard is a whole path segment, so {file} is "<id>.json" or
// "<id>.svg".
func (s *Server) Component() route.Handler { return s.component }

// NotFound answers the other paths under /badge/ with a "not found"
// badge.
func (s *Server) NotFound() route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return s.write(w, r, writeJSONorSVG(r.URL.Path), http.StatusNotFound, Badge{Label: "badge", Message: "not found", Color: ColorUnknown})
	}
}

// Badge is a badge's content: the shields.io endpoint format.
type Badge struct {
	SchemaVersion int    `json:"schemaVersion"`
	Label         string `json:"label"`
	Message       string `json:"message"`
	// Color is a shields.io named colour.
	Color string `json:"color"`
}

// The shields.io colours of each state. The SVG draws them darker (see
// svgColor) so that white text stays readable on them.
const (
	ColorOperational = "brightgreen"
	ColorDegraded    = "orange"
	ColorMaintenance = "blue"
	ColorUnknown     = "lightgrey"
)

// Message spells a state for a badge.
func Message(s statusd.PageState) string {
	switch s {
	case statusd.PageDegraded:
		return "degraded"
	case statusd.PageUnderMaintenance:
		return "under maintenance"
	}
	return "operational"
}

// Color is a state's shields.io colour.
func Color(s statusd.PageState) string {
	switch s {
	case statusd.PageDegraded:
		return ColorDegraded
	case statusd.PageUnderMaintenance:
		return ColorMaintenance
	}
	return ColorOperational
}

// For returns the badge of a state with a label.
func For(label string, s statusd.PageState) Badge {
	return Badge{SchemaVersion: 1, Label: label, Message: Message(s), Color: Color(s)}
}

type writer func(w http.ResponseWriter, r *http.Request, status int, b Badge) error

func (s *Server) page(write writer) route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		snap := s.snaps.Current()
		if snap == nil {
			return s.unavailable(w, r, write)
		}
		return s.write(w, r, write, http.StatusOK, For("status", snap.PageState))
	}
}

func (s *Server) component(w http.ResponseWriter, r *http.Request) error {
	file := r.PathValue("file")
	write := writeJSONorSVG(file)
	idText, ok := strings.CutSuffix(file, ".json")
	if !ok {
		idText, ok = strings.CutSuffix(file, ".svg")
	}
	if !ok {
		return s.write(w, r, write, http.StatusNotFound, Badge{Label: "badge", Message: "not found", Color: ColorUnknown})
	}
	snap := s.snaps.Current()
	if snap == nil {
		return s.unavailable(w, r, write)
	}
	var c *snapshot.Component
	if id, err := statusd.ParseID("component", idText); err == nil {
		c = snap.Component(id)
	}
	if c == nil {
		return s.write(w, r, write, http.StatusNotFound, Badge{Label: "component", Message: "not found", Color: ColorUnknown})
	}
	return s.write(w, r, write, http.StatusOK, For(c.Name, c.State))
}

// unavailable answers 503 with an "unavailable" badge: no page has been
// published.
func (s *Server) unavailable(w http.ResponseWriter, r *http.Request, write writer) error {
	return s.write(w, r, write, http.StatusServiceUnavailable, Badge{Label: "status", Message: "unavailable", Color: ColorUnknown})
}

func (s *Server) write(w http.ResponseWriter, r *http.Request, write writer, status int, b Badge) error {
	h := w.Header()
	b.SchemaVersion = 1
	h.Set("Access-Control-Allow-Origin", "*")
	if status == http.StatusOK {
		h.Set("Cache-Control", s.cacheControl)
	} else {
		h.Set("Cache-Control", "no-store")
	}
	return write(w, r, status, b)
}

// writeJSONorSVG picks the writer by the path's extension: SVG for .svg,
// JSON otherwise.
func writeJSONorSVG(path string) writer {
	if strings.HasSuffix(path, ".svg") {
		return writeSVG
	}
	return writeJSON
}

func writeJSON(w http.ResponseWriter, r *http.Request, status int, b Badge) error {
	return httpjson.Write(w, r, status, b)
}

func writeSVG(w http.ResponseWriter, r *http.Request, status int, b Badge) error {
	body := SVG(b)
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	h.Set("X-Content-Type-Options", "nosniff")
	// An SVG opened directly runs no script and loads nothing.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(body)
	}
	return nil
}
