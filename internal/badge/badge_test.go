package badge

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/snapshot"
)

// svgDoc is the part of a badge's SVG that readers and tests look at.
type svgDoc struct {
	XMLName   xml.Name `xml:"http://www.w3.org/2000/svg svg"`
	Width     int      `xml:"width,attr"`
	Height    int      `xml:"height,attr"`
	Role      string   `xml:"role,attr"`
	AriaLabel string   `xml:"aria-label,attr"`
	Title     string   `xml:"title"`
	Rects     []struct {
		X     int    `xml:"x,attr"`
		Width string `xml:"width,attr"`
		Fill  string `xml:"fill,attr"`
	} `xml:"g>rect"`
	Texts []struct {
		Hidden string `xml:"aria-hidden,attr"`
		Text   string `xml:",chardata"`
	} `xml:"g>text"`
}

func parseSVG(t *testing.T, b []byte) svgDoc {
	t.Helper()
	var d svgDoc
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("SVG does not parse: %v\n%s", err, b)
	}
	return d
}

func TestSVG(t *testing.T) {
	for _, b := range []Badge{
		For("status", statusd.PageOperational),
		For("API <EU> & \"US\" 'x'", statusd.PageDegraded),
		For("Données ☃", statusd.PageUnderMaintenance),
		{Label: "x", Message: "y", Color: "no such colour"},
	} {
		d := parseSVG(t, SVG(b))
		want := b.Label + ": " + b.Message
		if d.Title != want || d.AriaLabel != want || d.Role != "img" || d.Height != 20 {
			t.Errorf("title %q aria-label %q role %q, want %q", d.Title, d.AriaLabel, d.Role, want)
		}
		if len(d.Texts) != 4 || d.Texts[1].Text != b.Label || d.Texts[3].Text != b.Message || d.Texts[0].Hidden != "true" || d.Texts[1].Hidden != "" {
			t.Errorf("texts %+v", d.Texts)
		}
		if len(d.Rects) != 3 || d.Rects[1].Fill == "" || !strings.HasPrefix(d.Rects[1].Fill, "#") {
			t.Errorf("rects %+v", d.Rects)
		}
		// Each half is wider than its text could be at 6px a character.
		if d.Rects[1].X < 6*len([]rune(b.Label)) || d.Width-d.Rects[1].X < 6*len([]rune(b.Message)) {
			t.Errorf("%q: halves %d and %d too narrow", want, d.Rects[1].X, d.Width-d.Rects[1].X)
		}
	}
	// The message spells the state: never colour alone.
	for s, msg := range map[statusd.PageState]string{statusd.PageOperational: "operational", statusd.PageDegraded: "degraded", statusd.PageUnderMaintenance: "under maintenance"} {
		if got := For("x", s); got.Message != msg {
			t.Errorf("%s: message %q", s, got.Message)
		}
	}
}

type holder struct{ snap *snapshot.Snapshot }

func (h *holder) Current() *snapshot.Snapshot { return h.snap }

func TestServer(t *testing.T) {
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	doc := &statusd.Document{
		Page: statusd.Page{Name: "P", URL: "https://p.test", CreatedAt: now, UpdatedAt: now},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "API <v2>", CreatedAt: now, UpdatedAt: now},
			{ID: 2, Position: 2, Name: "DB", CreatedAt: now, UpdatedAt: now},
		},
		Notices: []statusd.Notice{{ID: 9, Type: statusd.Planned, Subject: "m", ComponentIDs: []int64{2}, CreatedAt: now.Add(-time.Hour), UpdatedAt: now,
			BeginsAt: new(now.Add(-time.Minute)), EndsAt: new(now.Add(time.Hour)),
			Updates: []statusd.Update{
				{ID: 1, State: statusd.Scheduled, Content: "s", CreatedAt: now.Add(-time.Hour), UpdatedAt: now.Add(-time.Hour)},
				{ID: 2, State: statusd.Underway, Content: "u", CreatedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-time.Minute)},
			}}},
	}
	h := &holder{}
	s := New(Config{Snapshots: h, MaxAge: time.Minute})
	mux := route.NewMux(http.NewServeMux(), route.NewErrors(nil, nil))
	mux.Read("/badge/status.json", s.StatusJSON(), nil)
	mux.Read("/badge/status.svg", s.StatusSVG(), nil)
	mux.Read("/badge/components/{file}", s.Component(), nil)
	mux.Handle("/badge/", s.NotFound())
	get := func(method, path string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		mux.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
		return rec
	}
	if rec := get("GET", "/badge/status.svg"); rec.Code != 503 || parseSVG(t, rec.Body.Bytes()).Title != "status: unavailable" {
		t.Errorf("no page: %d %s", rec.Code, rec.Body)
	}
	h.snap = snapshot.Build(doc, 1, now, snapshot.Options{Variant: statusd.VariantB})
	for _, tc := range []struct {
		path   string
		status int
		want   Badge
	}{
		{"/badge/status.json", 200, Badge{1, "status", "under maintenance", "blue"}},
		{"/badge/components/1.json", 200, Badge{1, "API <v2>", "operational", "brightgreen"}},
		{"/badge/components/2.json", 200, Badge{1, "DB", "under maintenance", "blue"}},
		{"/badge/components/3.json", 404, Badge{1, "component", "not found", "lightgrey"}},
		{"/badge/components/x.json", 404, Badge{1, "component", "not found", "lightgrey"}},
		{"/badge/components/1.png", 404, Badge{1, "badge", "not found", "lightgrey"}},
		{"/badge/other.json", 404, Badge{1, "badge", "not found", "lightgrey"}},
	} {
		rec := get("GET", tc.path)
		var got Badge
		dec := json.NewDecoder(rec.Body)
		dec.DisallowUnknownFields()
		if err := dec.Decode(&got); err != nil || rec.Code != tc.status || got != tc.want ||
			rec.Header().Get("Content-Type") != "application/json; charset=utf-8" || rec.Header().Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s: %d %+v (%v) %v, want %d %+v", tc.path, rec.Code, got, err, rec.Header(), tc.status, tc.want)
		}
		if want := map[bool]string{true: "public, max-age=60", false: "no-store"}[tc.status == 200]; rec.Header().Get("Cache-Control") != want {
			t.Errorf("%s: Cache-Control %q", tc.path, rec.Header().Get("Cache-Control"))
		}
	}
	for _, tc := range []struct {
		path, title string
		status      int
	}{
		{"/badge/status.svg", "status: under maintenance", 200},
		{"/badge/components/1.svg", "API <v2>: operational", 200},
		{"/badge/components/77.svg", "component: not found", 404},
	} {
		rec := get("GET", tc.path)
		if rec.Code != tc.status || rec.Header().Get("Content-Type") != "image/svg+xml; charset=utf-8" {
			t.Errorf("%s: %d %v", tc.path, rec.Code, rec.Header())
		}
		if d := parseSVG(t, rec.Body.Bytes()); d.Title != tc.title {
			t.Errorf("%s: title %q, want %q", tc.path, d.Title, tc.title)
		}
		if strings.Contains(rec.Body.String(), "<v2>") {
			t.Errorf("%s: unescaped text", tc.path)
		}
	}
	if rec := get("POST", "/badge/status.svg"); rec.Code != 405 || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: %d %v", rec.Code, rec.Header())
	}
	if rec := get("HEAD", "/badge/status.svg"); rec.Code != 200 || rec.Body.Len() != 0 {
		t.Errorf("HEAD: %d %d bytes", rec.Code, rec.Body.Len())
	}
}
