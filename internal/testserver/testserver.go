// Package testserver is what the end-to-end tests of statusd share, in
// cmd/statusd (the server started through run, or as a child process) and
// in internal/server (the assembly served by httptest): a Server, seen
// through the Go SDK (Server.API, Server.Admin, and the readers Status,
// Components, Notice ...) where a test checks behaviour, and through raw
// requests (Do, Get, Send, Fetch, AdminOK, RawGet) where it checks exact
// bytes, headers, statuses, error bodies, or requests the SDK would not
// send; the assertions on JSON answers; and the fixture page with its
// expectations worked out by hand. It is linked only into tests.
//
// A long scenario is a sequence of steps (Step), each a subtest; a step
// sees the server through srv.In(t), so that what fails in it fails the
// step.
package testserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/testenv"
)

// AdminRoot is the root of the admin API's paths.
const AdminRoot = client.AdminRoot

// Server is a real statusd server a test talks to over HTTP.
type Server struct {
	t        *testing.T
	URL      string // http://127.0.0.1:port
	AdminURL string // the admin listener's, when the server has one
	// DB is the database the server serves, when the test knows it by
	// path.
	DB string
	// Logs is what the server logs.
	Logs *testenv.LogBuffer
	// API is the Go SDK's client of the server's public API.
	API *client.Client
	// Export is the page document of the server's database as statusd
	// export writes it, set by the harness that started the server.
	Export func(t *testing.T) string
}

// New describes a server at base (http://host:port), with its admin
// listener at adminBase ("" when the admin API is on base), that logs to
// logs; its helpers report to t.
func New(t *testing.T, base, adminBase string, logs *testenv.LogBuffer) *Server {
	return &Server{t: t, URL: base, AdminURL: adminBase, Logs: logs,
		API: client.New(base, client.WithHTTPClient(HTTPClient), client.WithMaxRetries(0))}
}

// In is the server seen from t, a step of the test that started it: the
// helpers of the view (Do, Get, AdminOK, AuditTotal, Notice, ...) report to
// t, so that a failed check fails the step it belongs to.
func (s *Server) In(t *testing.T) *Server {
	v := *s
	v.t = t
	return &v
}

// T is the test the server's helpers report to.
func (s *Server) T() *testing.T { return s.t }

// Step runs one step of a scenario as a subtest named for what it shows.
// As in a test without steps, a failed check (t.Errorf) lets the scenario
// go on, and a step that stops (t.Fatalf) stops the scenario: the steps
// after it build on what it did. A server a step starts stops when the
// step ends: one that later steps use is started by the test, between
// steps.
func Step(t *testing.T, name string, f func(t *testing.T)) {
	t.Helper()
	ran, finished := false, false
	t.Run(name, func(t *testing.T) {
		ran = true
		f(t)
		finished = true
	})
	if ran && !finished {
		t.FailNow()
	}
}

// Admin is the Go SDK's client of the server's admin API (on AdminURL when
// the server has a listener of its own for it), with token.
func (s *Server) Admin(token string) *client.Admin {
	base := s.URL
	if s.AdminURL != "" {
		base = s.AdminURL
	}
	return client.NewAdmin(base, token, client.WithHTTPClient(HTTPClient), client.WithMaxRetries(0))
}

// WaitLog polls the logs until they contain every string, or fails after
// 5 s.
func WaitLog(t *testing.T, logs fmt.Stringer, want ...string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		out := logs.String()
		missing := ""
		for _, w := range want {
			if !strings.Contains(out, w) {
				missing = w
				break
			}
		}
		if missing == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the logs never showed %q:\n%s", missing, out)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// --- Requests ----------------------------------------------------------------

// HTTPClient is the HTTP client of the tests, with a timeout so that a
// hung server fails the test instead of hanging it.
var HTTPClient = &http.Client{Timeout: 20 * time.Second}

// Response is an HTTP answer with its body decoded as generic JSON.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	JSON   any
}

// Send sends a request with a JSON body (none when body is "") and headers
// given as name, value pairs, and decodes a JSON answer; the error is set
// when no answer came (a killed server) or a JSON answer does not decode.
// Safe to call from any goroutine.
func Send(method, url, body string, header ...string) (Response, error) {
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return Response{}, err
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := HTTPClient.Do(req)
	if err != nil {
		return Response{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return Response{}, err
	}
	r := Response{Status: res.StatusCode, Header: res.Header, Body: b}
	if strings.HasPrefix(res.Header.Get("Content-Type"), "application/json") && len(b) > 0 {
		if err := json.Unmarshal(b, &r.JSON); err != nil {
			return r, fmt.Errorf("%s %s: invalid JSON: %v\n%s", method, url, err, b)
		}
	}
	return r, nil
}

// Fetch is Send that fails the test when no answer comes.
func Fetch(t *testing.T, method, url, body string, header ...string) Response {
	t.Helper()
	r, err := Send(method, url, body, header...)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	return r
}

// Bearer is the header pair that sends an admin token (nothing for "").
func Bearer(token string) []string {
	if token == "" {
		return nil
	}
	return []string{"Authorization", "Bearer " + token}
}

// Do sends a request without a body to the server.
func (s *Server) Do(method, path string, header ...string) Response {
	s.t.Helper()
	return Fetch(s.t, method, s.URL+path, "", header...)
}

// Get fetches path and fails the test unless the status is want.
func (s *Server) Get(path string, want int) Response {
	s.t.Helper()
	r := s.Do(http.MethodGet, path)
	if r.Status != want {
		s.t.Fatalf("GET %s: status %d, want %d\n%s", path, r.Status, want, r.Body)
	}
	return r
}

// Authed sends a request to the server's public listener with a bearer
// token (none when token is "") and a JSON body (none when body is "").
func (s *Server) Authed(method, path, token, body string) Response {
	s.t.Helper()
	return Fetch(s.t, method, s.URL+path, body, Bearer(token)...)
}

// AdminOK sends a request to the admin API (path relative to its root) and
// fails the test unless it answers status; it returns the decoded body.
func (s *Server) AdminOK(method, path, token, body string, status int) map[string]any {
	s.t.Helper()
	r := s.Authed(method, AdminRoot+path, token, body)
	if r.Status != status {
		s.t.Fatalf("%s %s %s: status %d, want %d\n%s", method, path, body, r.Status, status, r.Body)
	}
	if status == http.StatusNoContent {
		if len(r.Body) != 0 {
			s.t.Errorf("%s %s: 204 with a body: %s", method, path, r.Body)
		}
		return nil
	}
	m, ok := r.JSON.(map[string]any)
	if !ok {
		s.t.Fatalf("%s %s: body is not a JSON object: %s", method, path, r.Body)
	}
	return m
}

// AuditTotal is the number of entries in the audit log.
func (s *Server) AuditTotal(token string) int {
	s.t.Helper()
	a, err := s.Admin(token).Audit(context.Background(), 1)
	NoErr(s.t, "GET /audit", err)
	return a.Meta.TotalCount
}

// Refuse sends a request to the admin API (path relative to its root) that
// must be refused with status and code, a message that contains each of
// inMsg (the field's JSON path, a hint), and checks that nothing changed:
// the exported document is byte for byte the same and no audit entry was
// written.
func (s *Server) Refuse(token, method, path, body string, status int, code string, inMsg ...string) Response {
	t := s.t
	t.Helper()
	before := s.Export(t)
	audit := s.AuditTotal(token)
	what := fmt.Sprintf("%s %s %.60s", method, path, body)
	r := s.Authed(method, AdminRoot+path, token, body)
	AssertError(t, what, r, status, code)
	msg := ErrorMessage(r)
	for _, m := range inMsg {
		if !strings.Contains(msg, m) {
			t.Errorf("%s: message %q does not contain %q", what, msg, m)
		}
	}
	if after := s.Export(t); after != before {
		t.Errorf("%s: a refused request changed the page:\nbefore %s\nafter  %s", what, before, after)
	}
	if got := s.AuditTotal(token); got != audit {
		t.Errorf("%s: a refused request wrote %v audit entries", what, got-audit)
	}
	return r
}

// RefuseAs is Refuse with another token for the refused request
// (auditor reads the audit log), and no check of the message. a request to the admin API (path relative to its root)
// with token, which must be refused with status and code, and checks that
// nothing changed: the exported document is byte for byte the same, and
// no audit entry was written (auditor, a token, reads the audit log).
func (s *Server) RefuseAs(auditor, token, method, path, body string, status int, code string) Response {
	t := s.t
	t.Helper()
	before := s.Export(t)
	audit := s.AuditTotal(auditor)
	r := s.Authed(method, AdminRoot+path, token, body)
	AssertError(t, fmt.Sprintf("%s %s with token %q", method, path, token), r, status, code)
	if after := s.Export(t); after != before {
		t.Errorf("%s %s: a refused request changed the page", method, path)
	}
	if got := s.AuditTotal(auditor); got != audit {
		t.Errorf("%s %s: a refused request wrote an audit entry", method, path)
	}
	return r
}

// HostPort is the host:port of a server URL.
func HostPort(t *testing.T, base string) string {
	t.Helper()
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

// RawGet sends one raw HTTP/1.1 request line (the target exactly as given,
// nothing cleaned or escaped) and returns the status, headers and body.
func RawGet(t *testing.T, base, target string) (int, http.Header, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", HostPort(t, base), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: statusd.test\r\nConnection: close\r\n\r\n", target)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("GET %q: %v", target, err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, res.Header, string(b)
}

// --- Through the SDK ---------------------------------------------------------

// NoErr fails the test when a call of the SDK (what) failed.
func NoErr(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// Status is the public page, through the SDK.
func (s *Server) Status() *statusd.PageResource {
	s.t.Helper()
	p, err := s.API.Status(context.Background())
	NoErr(s.t, "GET /api/v1/status", err)
	return p
}

// Components is the public list of components (the first page, which
// holds every component of the pages the tests serve), through the SDK.
func (s *Server) Components() *statusd.ComponentsResponse {
	s.t.Helper()
	r, err := s.API.Components(context.Background(), client.ComponentQuery{})
	NoErr(s.t, "GET /api/v1/components", err)
	return r
}

// Component is one component of the public list.
func (s *Server) Component(id int64) statusd.ComponentResource {
	s.t.Helper()
	for _, c := range s.Components().Components {
		if c.ID == id {
			return c
		}
	}
	s.t.Fatalf("the public list has no component %d", id)
	return statusd.ComponentResource{}
}

// ComponentStates is the public state of every component, by id.
func (s *Server) ComponentStates() map[int64]string {
	s.t.Helper()
	states := map[int64]string{}
	for _, c := range s.Components().Components {
		states[c.ID] = c.State
	}
	return states
}

// Notice is the public detail of a notice, through the SDK.
func (s *Server) Notice(id int64) *statusd.NoticeDetail {
	s.t.Helper()
	n, err := s.API.Notice(context.Background(), id)
	NoErr(s.t, fmt.Sprintf("GET /api/v1/notices/%d", id), err)
	return n
}
