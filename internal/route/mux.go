package route

import (
	"net/http"
	"strings"

	"github.com/statusd/statusd"
)

// Mux registers routes as method patterns on a ServeMux. For each path it
// has a method pattern on, it also registers the path alone, which answers
// any other method 405 method_not_allowed with Allow, through
// Errors.Write, in the shape of the path: never the ServeMux's text/plain
// 405. Register every route before serving.
type Mux struct {
	mux     *http.ServeMux
	errs    *Errors
	allowed map[string][]string // the methods of each path, as registered
	names   map[string]string   // the names of the patterns registered with one
	wrap    func(Handler) Handler
}

// NewMux returns a Mux on mux whose errors errs answers.
func NewMux(mux *http.ServeMux, errs *Errors) *Mux {
	return &Mux{mux: mux, errs: errs, allowed: map[string][]string{}, names: map[string]string{}}
}

// ServeHTTP serves r with the route of its method and path.
func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.mux.ServeHTTP(w, r) }

// Route is the name of the route that would serve r, as routing would set
// its Pattern, without serving it: for a request answered before routing.
func (m *Mux) Route(r *http.Request) string {
	_, pattern := m.mux.Handler(r)
	if name, ok := m.names[pattern]; ok {
		return name
	}
	return pattern
}

// Errors is the error writer of m's routes.
func (m *Mux) Errors() *Errors { return m.errs }

// With returns a Mux that registers on the same ServeMux, through wrap:
// every handler, and the 405 of each path it is the first to register.
func (m *Mux) With(wrap func(Handler) Handler) *Mux {
	c := *m
	c.wrap = wrap
	return &c
}

// Handle registers h for pattern: "METHOD /path", or a path alone for a
// handler that answers every method (a catch-all's 404).
func (m *Mux) Handle(pattern string, h Handler) {
	m.handle(pattern, "", h)
}

// HandleOnly registers h for pattern ("METHOD /path") as Handle does, but
// without the 405 of the path's other methods, for a literal path beside a
// route of wildcards that matches it too (POST /subscribers/reactivate
// beside GET /subscribers/{id}), which that 405 would conflict with: the
// other methods go to that route.
func (m *Mux) HandleOnly(pattern string, h Handler) {
	m.register(pattern, "", h)
}

// Read registers h for GET and HEAD on path, and preflight, if not nil,
// for OPTIONS (a CORS preflight): a resource that is only read. Its routes
// are named by path alone (the request's Pattern, which the metrics and
// the log show), as one route whatever the method.
func (m *Mux) Read(path string, h, preflight Handler) {
	m.handle(http.MethodGet+" "+path, path, h)
	m.handle(http.MethodHead+" "+path, path, h)
	if preflight != nil {
		m.handle(http.MethodOptions+" "+path, path, preflight)
	}
}

// handle registers h for pattern, named name when not "", and the 405 of
// its path's other methods.
func (m *Mux) handle(pattern, name string, h Handler) {
	m.register(pattern, name, h)
	method, path, ok := strings.Cut(pattern, " ")
	if !ok {
		return
	}
	if _, seen := m.allowed[path]; !seen {
		m.handle(path, "", m.notAllowed(path))
	}
	m.allowed[path] = append(m.allowed[path], method)
}

// register registers h for pattern, named name when not "".
func (m *Mux) register(pattern, name string, h Handler) {
	if m.wrap != nil {
		h = m.wrap(h)
	}
	if name != "" {
		m.names[pattern] = name
		named := h
		h = func(w http.ResponseWriter, r *http.Request) error {
			r.Pattern = name
			return named(w, r)
		}
	}
	m.mux.Handle(pattern, m.errs.Serve(h))
}

// notAllowed answers a method that path has no route for.
func (m *Mux) notAllowed(path string) Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return NotAllowed(w, r, m.allowed[path]...)
	}
}

// NotAllowed sets Allow to the methods allowed and returns the 405
// method_not_allowed of r's method, which names them.
func NotAllowed(w http.ResponseWriter, r *http.Request, allowed ...string) error {
	allow := strings.Join(allowed, ", ")
	w.Header().Set("Allow", allow)
	return statusd.Errorf(statusd.EMethodNotAllowed, "%s is not allowed here; use %s", r.Method, allow)
}
