package mirror_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/web"
)

// file is a file of a test copy: its target, key, bytes and type.
type file struct{ target, key, body, contentType string }

const (
	htmlType = "text/html; charset=utf-8"
	jsonType = "application/json; charset=utf-8"
)

// generated is when the test copies were generated.
var generated = time.Date(2026, 11, 29, 15, 2, 11, 0, time.UTC)

// sample is a small copy of a page.
var sample = []file{
	{"/", "index.html", "<!doctype html><title>home</title>", htmlType},
	{"/history", "history", "<!doctype html><title>history</title>", htmlType},
	{"/api/v1/status", "api/v1/status", `{"page":"status"}`, jsonType},
	{"/api/v1/notices", "api/v1/notices/index.json", `{"notices":"page 1"}`, jsonType},
	{"/api/v1/notices?page=2", "_q/notices-2.json", `{"notices":"page 2"}`, jsonType},
	{"/api/v1/notices?filter%5Btype_eq%5D=planned", "_q/planned.json", `{"notices":"planned"}`, jsonType},
	{"/api/v1/notices?filter%5Btype_eq%5D=planned&page=2", "_q/planned-2.json", `{"notices":"planned, page 2"}`, jsonType},
	{"/api/v1/notices/12", "api/v1/notices/12", `{"notice":12}`, jsonType},
	{"/assets/app.js", "assets/app.js", "console.log('app')", "text/javascript; charset=utf-8"},
	{"/api/v2/summary.json", "api/v2/summary.json", `{"summary":true}`, jsonType},
}

// newKey returns a new Ed25519 key pair.
func newKey(t *testing.T) (ed25519.PublicKey, ed25519.PrivateKey) {
	t.Helper()
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// writeCopy writes the files and their manifest, sequence seq, signed by
// priv, into b, as a push would: the files first, mirror.json last.
func writeCopy(t *testing.T, b mirror.Bucket, priv ed25519.PrivateKey, seq int64, files []file) {
	t.Helper()
	ctx := context.Background()
	m := &mirror.Manifest{Sequence: seq, GeneratedAt: generated, SourceURL: "https://status.example.com",
		StaleAfter: 900, Files: map[string]mirror.File{}}
	for _, f := range files {
		if err := b.Put(ctx, f.key, []byte(f.body), f.contentType); err != nil {
			t.Fatal(err)
		}
		m.Files[f.target] = mirror.File{Key: f.key, SHA256: mirror.Hash([]byte(f.body)), ContentType: f.contentType}
	}
	raw, err := m.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, mirror.SignatureKey, ed25519.Sign(priv, raw), "application/octet-stream"); err != nil {
		t.Fatal(err)
	}
	if err := b.Put(ctx, mirror.ManifestKey, raw, "application/json"); err != nil {
		t.Fatal(err)
	}
}

// counting is a bucket that records the keys it is asked to Get.
type counting struct {
	mirror.Bucket
	mu   sync.Mutex
	gets []string
}

func (c *counting) Get(ctx context.Context, key string) ([]byte, error) {
	c.mu.Lock()
	c.gets = append(c.gets, key)
	c.mu.Unlock()
	return c.Bucket.Get(ctx, key)
}

// taken returns the keys got since the last call, sorted.
func (c *counting) taken() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	gets := c.gets
	c.gets = nil
	slices.Sort(gets)
	return gets
}

// newServer returns a Server, with the status page's error pages, at
// three minutes after the copies were generated, on a listener.
func newServer(t *testing.T) (*mirror.Server, *httptest.Server) {
	t.Helper()
	s := mirror.NewServer(route.NewErrors(nil, web.New(web.Config{}).ErrorPage),
		func() time.Time { return generated.Add(3 * time.Minute) })
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// loaded returns a Server and its listener serving sample from a
// directory, signed by a new key.
func loaded(t *testing.T) (*mirror.Server, *httptest.Server) {
	t.Helper()
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 1, sample)
	s, ts := newServer(t)
	if err := s.Refresh(context.Background(), mirror.Source{Bucket: dir, Key: pub}); err != nil {
		t.Fatal(err)
	}
	return s, ts
}

func TestServeTargets(t *testing.T) {
	_, ts := loaded(t)
	for _, f := range sample {
		res, body := testenv.Fetch(t, "GET", ts.URL+f.target)
		if res.StatusCode != 200 || body != f.body || res.Header.Get("Content-Type") != f.contentType {
			t.Errorf("GET %s: %d %q %q, want 200 %q %q", f.target, res.StatusCode, res.Header.Get("Content-Type"), body, f.contentType, f.body)
		}
		want := map[string]string{
			"ETag":                   `"` + mirror.Hash([]byte(f.body)) + `"`,
			"Last-Modified":          "Sun, 29 Nov 2026 15:02:11 GMT",
			"Cache-Control":          "public, max-age=30",
			"X-Content-Type-Options": "nosniff",
		}
		for k, v := range want {
			if got := res.Header.Get(k); got != v {
				t.Errorf("GET %s: %s %q, want %q", f.target, k, got, v)
			}
		}
	}
}

// TestServeFromBuckets serves a copy pushed to an S3 server, and one that
// a web server serves (serve --from-mirror https://...), as from a folder.
func TestServeFromBuckets(t *testing.T) {
	pub, priv := newKey(t)
	s3 := testenv.S3(t, "copies")
	dir := mirror.Dir(t.TempDir())
	site := httptest.NewServer(http.FileServer(http.Dir(string(dir))))
	t.Cleanup(site.Close)
	over, err := mirror.Open(site.URL+"/", mirror.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name       string
		push, read mirror.Bucket
	}{
		{"s3", openS3(t, s3, "s3://copies/status"), openS3(t, s3, "s3://copies/status")},
		{"https", dir, over},
	} {
		t.Run(c.name, func(t *testing.T) {
			writeCopy(t, c.push, priv, 1, sample)
			s, ts := newServer(t)
			if err := s.Refresh(context.Background(), mirror.Source{Bucket: c.read, Key: pub}); err != nil {
				t.Fatal(err)
			}
			for _, f := range sample {
				if res, body := testenv.Fetch(t, "GET", ts.URL+f.target); res.StatusCode != 200 || body != f.body {
					t.Errorf("GET %s: %d %q, want 200 %q", f.target, res.StatusCode, body, f.body)
				}
			}
		})
	}
}

func TestServeCanonicalTargets(t *testing.T) {
	_, ts := loaded(t)
	for target, want := range map[string]string{
		"/api/v1/notices?page=1":                              `{"notices":"page 1"}`,
		"/api/v1/notices?_=1764428531":                        `{"notices":"page 1"}`,
		"/api/v1/notices?page=2&per_page=5":                   `{"notices":"page 2"}`,
		"/api/v1/notices?filter[type_eq]=planned":             `{"notices":"planned"}`,
		"/api/v1/notices?filter%5btype_eq%5d=planned&page=1":  `{"notices":"planned"}`,
		"/api/v1/notices?page=2&_=99&filter[type_eq]=planned": `{"notices":"planned, page 2"}`,
		"/v1/notices?page=2":                                  `{"notices":"page 2"}`,
		"/v1/status":                                          `{"page":"status"}`,
		"/api/notices/12":                                     `{"notice":12}`,
		"/assets/app.js?v=abc":                                "console.log('app')",
		"/?_=1":                                               "<!doctype html><title>home</title>",
	} {
		res, body := testenv.Fetch(t, "GET", ts.URL+target)
		if res.StatusCode != 200 || body != want {
			t.Errorf("GET %s: %d %q, want 200 %q", target, res.StatusCode, body, want)
		}
	}
}

func TestServeManifest(t *testing.T) {
	s, ts := loaded(t)
	raw, err := s.Copy().Manifest.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if res, body := testenv.Fetch(t, "GET", ts.URL+"/mirror.json"); res.StatusCode != 200 || body != string(raw) {
		t.Errorf("GET /mirror.json: %d %q, want 200 and the manifest", res.StatusCode, body)
	}
	if res, body := testenv.Fetch(t, "GET", ts.URL+"/mirror.json.sig"); res.StatusCode != 200 || len(body) != ed25519.SignatureSize {
		t.Errorf("GET /mirror.json.sig: %d, %d bytes, want 200 and the signature", res.StatusCode, len(body))
	}
}

func TestServeErrors(t *testing.T) {
	_, ts := loaded(t)
	for _, c := range []struct {
		method, target string
		status         int
		contentType    string
		body, allow    string
	}{
		{"GET", "/api/v1/notices/99", 404, jsonType,
			`{"error":{"status":404,"code":"not_found","message":"This copy of the status page does not hold /api/v1/notices/99."}}`, ""},
		{"GET", "/api/v1/notices?page=9", 404, jsonType,
			`{"error":{"status":404,"code":"not_found","message":"This copy of the status page does not hold /api/v1/notices?page=9."}}`, ""},
		{"GET", "/v1/components", 404, jsonType,
			`{"error":{"status":404,"code":"not_found","message":"This copy of the status page does not hold /api/v1/components."}}`, ""},
		{"GET", "/notices/99", 404, htmlType, "This copy of the status page does not hold /notices/99.", ""},
		{"POST", "/api/v1/notices", 405, jsonType,
			`{"error":{"status":405,"code":"method_not_allowed","message":"POST is not allowed here; use GET, HEAD, OPTIONS"}}`, "GET, HEAD, OPTIONS"},
		{"DELETE", "/v1/notices/12", 405, jsonType,
			`{"error":{"status":405,"code":"method_not_allowed","message":"DELETE is not allowed here; use GET, HEAD, OPTIONS"}}`, "GET, HEAD, OPTIONS"},
		{"POST", "/history", 405, htmlType, "POST is not allowed here; use GET, HEAD", "GET, HEAD"},
		{"POST", "/admin/api/v1/notices", 404, jsonType,
			`{"error":{"status":404,"code":"not_found","message":"This is a read-only copy of the status page: /admin/api/v1/notices is on the live page, https://status.example.com."}}`, ""},
		{"GET", "/manage", 404, htmlType, "/manage is on the live page, https://status.example.com.", ""},
		{"POST", "/subscribe", 404, htmlType, "/subscribe is on the live page, https://status.example.com.", ""},
		{"POST", "/hooks/v1/3", 404, jsonType,
			`{"error":{"status":404,"code":"not_found","message":"This is a read-only copy of the status page: /hooks/v1/3 is on the live page, https://status.example.com."}}`, ""},
	} {
		res, body := testenv.Fetch(t, c.method, ts.URL+c.target)
		if res.StatusCode != c.status || res.Header.Get("Content-Type") != c.contentType || res.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d %q Allow %q, want %d %q Allow %q", c.method, c.target, res.StatusCode,
				res.Header.Get("Content-Type"), res.Header.Get("Allow"), c.status, c.contentType, c.allow)
		}
		if c.contentType == jsonType && body != c.body || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %s, want %s", c.method, c.target, body, c.body)
		}
	}
}

func TestServeConditional(t *testing.T) {
	_, ts := loaded(t)
	etag := `"` + mirror.Hash([]byte(`{"page":"status"}`)) + `"`
	for _, header := range [][]string{{"If-None-Match", etag}, {"If-Modified-Since", "Sun, 29 Nov 2026 15:02:11 GMT"}} {
		if res, body := testenv.Fetch(t, "GET", ts.URL+"/api/v1/status", header...); res.StatusCode != 304 || body != "" {
			t.Errorf("GET with %s: %d %q, want 304 without a body", header, res.StatusCode, body)
		}
	}
	if res, _ := testenv.Fetch(t, "GET", ts.URL+"/api/v1/status", "If-None-Match", `"other"`); res.StatusCode != 200 {
		t.Errorf("GET with another ETag: %d, want 200", res.StatusCode)
	}
	res, body := testenv.Fetch(t, "HEAD", ts.URL+"/api/v1/status")
	if res.StatusCode != 200 || body != "" || res.Header.Get("Content-Length") != "17" {
		t.Errorf("HEAD: %d %q Content-Length %q, want 200, no body, 17", res.StatusCode, body, res.Header.Get("Content-Length"))
	}
}

func TestServeCORS(t *testing.T) {
	_, ts := loaded(t)
	for _, target := range []string{"/api/v1/status", "/v1/status", "/api/v2/summary.json", "/api/v1/nothing"} {
		if res, _ := testenv.Fetch(t, "GET", ts.URL+target); res.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("GET %s: Access-Control-Allow-Origin %q, want *", target, res.Header.Get("Access-Control-Allow-Origin"))
		}
	}
	if res, _ := testenv.Fetch(t, "GET", ts.URL+"/"); res.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Errorf("GET /: Access-Control-Allow-Origin %q, want none", res.Header.Get("Access-Control-Allow-Origin"))
	}
	res, _ := testenv.Fetch(t, "OPTIONS", ts.URL+"/api/v1/notices", "Origin", "https://example.org", "Access-Control-Request-Method", "GET")
	if res.StatusCode != 204 || res.Header.Get("Access-Control-Allow-Methods") != "GET, HEAD, OPTIONS" {
		t.Errorf("OPTIONS: %d Access-Control-Allow-Methods %q, want 204 and GET, HEAD, OPTIONS", res.StatusCode, res.Header.Get("Access-Control-Allow-Methods"))
	}
}

func TestServeProbes(t *testing.T) {
	s, ts := newServer(t)
	for _, target := range []string{"/", "/api/v1/status", "/readyz", "/admin/"} {
		if res, _ := testenv.Fetch(t, "GET", ts.URL+target); res.StatusCode != 503 {
			t.Errorf("GET %s before a copy is loaded: %d, want 503", target, res.StatusCode)
		}
	}
	if res, body := testenv.Fetch(t, "GET", ts.URL+"/healthz"); res.StatusCode != 200 || body != `{"status":"ok"}` {
		t.Errorf("GET /healthz: %d %q", res.StatusCode, body)
	}
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 41, sample)
	if err := s.Refresh(context.Background(), mirror.Source{Bucket: dir, Key: pub}); err != nil {
		t.Fatal(err)
	}
	const want = "serving copy 41, generated 2026-11-29T15:02:11Z, 3m0s ago: fresh\n"
	if res, body := testenv.Fetch(t, "GET", ts.URL+"/readyz"); res.StatusCode != 200 || body != want {
		t.Errorf("GET /readyz: %d %q, want 200 %q", res.StatusCode, body, want)
	}
}

func TestRefreshRefusesAnotherKey(t *testing.T) {
	_, priv := newKey(t)
	other, _ := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 1, sample)
	s, ts := newServer(t)
	err := s.Refresh(context.Background(), mirror.Source{Bucket: dir, Key: other})
	if err == nil || !strings.Contains(err.Error(), "not this key's signature") {
		t.Fatalf("Refresh with another key: %v, want the signature refused", err)
	}
	if res, _ := testenv.Fetch(t, "GET", ts.URL+"/"); s.Copy() != nil || res.StatusCode != 503 {
		t.Errorf("after a refused copy: %d, want 503 and no copy", res.StatusCode)
	}
}

// changed is sample with /api/v1/status's bytes changed.
func changed() []file {
	files := slices.Clone(sample)
	files[2].body = `{"page":"changed"}`
	return files
}

func TestRefreshKeepsCopyWhilePushing(t *testing.T) {
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 1, sample)
	s, ts := newServer(t)
	src := mirror.Source{Bucket: dir, Key: pub}
	if err := s.Refresh(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	// A manifest that names bytes the bucket does not hold yet.
	writeCopy(t, dir, priv, 2, changed())
	if err := dir.Put(context.Background(), "api/v1/status", []byte(sample[2].body), jsonType); err != nil {
		t.Fatal(err)
	}
	err := s.Refresh(context.Background(), src)
	if err == nil || !strings.Contains(err.Error(), "/api/v1/status: the SHA-256 of api/v1/status is not mirror.json's") {
		t.Fatalf("Refresh during a push: %v, want the file named", err)
	}
	if res, body := testenv.Fetch(t, "GET", ts.URL+"/api/v1/status"); s.Copy().Manifest.Sequence != 1 || body != sample[2].body {
		t.Errorf("during a push: copy %d, %d %q, want copy 1 still served", s.Copy().Manifest.Sequence, res.StatusCode, body)
	}
}

func TestRefreshFetchesChangedFiles(t *testing.T) {
	pub, priv := newKey(t)
	dir := mirror.Dir(t.TempDir())
	writeCopy(t, dir, priv, 1, sample)
	b := &counting{Bucket: dir}
	src := mirror.Source{Bucket: b, Key: pub}
	s, ts := newServer(t)
	ctx := context.Background()
	if err := s.Refresh(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := b.taken(); len(got) != 2+len(sample) {
		t.Errorf("the first load got %q, want mirror.json, its signature and the %d files", got, len(sample))
	}
	if err := s.Refresh(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := b.taken(); !slices.Equal(got, []string{"mirror.json"}) {
		t.Errorf("a refresh of the same copy got %q, want mirror.json alone", got)
	}
	writeCopy(t, dir, priv, 2, changed())
	if err := s.Refresh(ctx, src); err != nil {
		t.Fatal(err)
	}
	if got := b.taken(); !slices.Equal(got, []string{"api/v1/status", "mirror.json", "mirror.json.sig"}) {
		t.Errorf("a refresh with one file changed got %q, want mirror.json, its signature and that file", got)
	}
	if _, body := testenv.Fetch(t, "GET", ts.URL+"/v1/status"); s.Copy().Manifest.Sequence != 2 || body != `{"page":"changed"}` {
		t.Errorf("after the refresh: copy %d, %q, want copy 2 and the new bytes", s.Copy().Manifest.Sequence, body)
	}
	if _, body := testenv.Fetch(t, "GET", ts.URL+"/history"); body != sample[1].body {
		t.Errorf("after the refresh, an unchanged file: %q, want %q", body, sample[1].body)
	}
}
