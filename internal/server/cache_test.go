package server_test

import (
	"github.com/statusd/statusd/internal/api"
	"github.com/statusd/statusd/internal/testserver"

	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"
)

// TestCaching checks the caching contract of the public API: a strong ETag
// answered 304, Cache-Control and Vary on success, no-store on errors,
// gzip and zstd negotiated, and keys normalised so that parameter order and
// encoding make no difference.
func TestCaching(t *testing.T) {
	srv, _ := fixtureServer(t, "b", options{cache: &api.CacheControl{MaxAge: 7 * time.Second, StaleWhileRevalidate: 11 * time.Second, StaleIfError: 13 * time.Second}})
	// (Go's transport asks for gzip and decodes it unless told otherwise.)
	plain := srv.Do(http.MethodGet, "/api/v1/notices?filter[type_eq]=unplanned", "Accept-Encoding", "identity")
	etag := plain.Header.Get("ETag")
	if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || strings.HasPrefix(etag, "W/") {
		t.Fatalf("ETag %q is not a strong entity tag", etag)
	}
	if got := plain.Header.Get("Cache-Control"); got != "public, max-age=7, stale-while-revalidate=11, stale-if-error=13" {
		t.Errorf("Cache-Control %q", got)
	}
	if got := plain.Header.Get("Vary"); got != "Accept-Encoding" {
		t.Errorf("Vary %q", got)
	}
	// The same request in another order and encoding is the same entry.
	same := srv.Do(http.MethodGet, "/v1/notices?page=1&filter%5Btype_eq%5D=unplanned&filter[foo]=x", "Accept-Encoding", "identity")
	if same.Header.Get("ETag") != etag || !bytes.Equal(same.Body, plain.Body) {
		t.Errorf("reordered request: ETag %q body equal %v, want %q", same.Header.Get("ETag"), bytes.Equal(same.Body, plain.Body), etag)
	}
	// If-None-Match answers 304 with no body, for a list holding the tag too.
	for _, inm := range []string{etag, `"other", ` + etag, "W/" + etag, "*"} {
		r := srv.Do(http.MethodGet, "/api/v1/notices?filter[type_eq]=unplanned", "If-None-Match", inm, "Accept-Encoding", "identity")
		if r.Status != 304 || len(r.Body) != 0 || r.Header.Get("ETag") != etag {
			t.Errorf("If-None-Match %s: status %d, %d bytes, ETag %q", inm, r.Status, len(r.Body), r.Header.Get("ETag"))
		}
	}
	if r := srv.Do(http.MethodGet, "/api/v1/notices?filter[type_eq]=unplanned", "If-None-Match", `"stale"`); r.Status != 200 {
		t.Errorf("a stale tag: status %d", r.Status)
	}
	// Compressed forms decode to the same bytes, with their own tags.
	decoders := map[string]func([]byte) ([]byte, error){
		"gzip": func(b []byte) ([]byte, error) {
			zr, err := gzip.NewReader(bytes.NewReader(b))
			if err != nil {
				return nil, err
			}
			return io.ReadAll(zr)
		},
		"zstd": func(b []byte) ([]byte, error) {
			d, err := zstd.NewReader(nil)
			if err != nil {
				return nil, err
			}
			defer d.Close()
			return d.DecodeAll(b, nil)
		},
	}
	for accept, want := range map[string]string{"gzip": "gzip", "gzip, deflate, br, zstd": "zstd", "zstd;q=0, gzip": "gzip",
		"gzip;q=0.5, zstd;q=0.4": "gzip", "identity": "", "br": ""} {
		req, _ := http.NewRequest(http.MethodGet, srv.URL+"/api/v1/notices?filter[type_eq]=unplanned", nil)
		req.Header.Set("Accept-Encoding", accept) // set by hand: the transport then does not decode
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if got := res.Header.Get("Content-Encoding"); got != want {
			t.Errorf("Accept-Encoding %q: Content-Encoding %q, want %q", accept, got, want)
			continue
		}
		if want == "" {
			continue
		}
		decoded, err := decoders[want](body)
		if err != nil || !bytes.Equal(decoded, plain.Body) {
			t.Errorf("%s body does not decode to the plain body (%v)", want, err)
		}
		if tag := res.Header.Get("ETag"); tag == etag || !strings.HasPrefix(tag, strings.TrimSuffix(etag, `"`)) {
			t.Errorf("%s ETag %q should differ from the identity tag %q", want, tag, etag)
		}
	}
	// Errors are never cacheable and carry no ETag.
	r := srv.Do(http.MethodGet, "/api/v1/notices/4242")
	if r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("ETag") != "" {
		t.Errorf("404: Cache-Control %q, ETag %q", r.Header.Get("Cache-Control"), r.Header.Get("ETag"))
	}
}

// TestCacheFollowsWritesAndClock checks that a cached answer changes with a
// write, and that an answer that moves with the clock (the impact of an
// open incident in Variant A) is not kept past its second.
func TestCacheFollowsWritesAndClock(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	// Metrics of the component with the open incident: over the default
	// window, cut at now, total_time grows; over a window that ended
	// yesterday, nothing moves and the answer is kept.
	live := "/api/v1/components/11/metrics?show_calculations=true"
	past := live + "&timeframe_end=" + time.Now().UTC().AddDate(0, 0, -1).Format("2006-01-02")
	first, live1, past1 := srv.Get("/api/v1/notices/100", 200), srv.Get(live, 200), srv.Get(past, 200)
	time.Sleep(1100 * time.Millisecond)
	second, live2, past2 := srv.Get("/api/v1/notices/100", 200), srv.Get(live, 200), srv.Get(past, 200)
	s1 := testserver.At(t, first.JSON, "notice.impact_time.seconds").(float64)
	s2 := testserver.At(t, second.JSON, "notice.impact_time.seconds").(float64)
	if s2 <= s1 {
		t.Errorf("open incident's impact %v then %v a second later: the cache kept it", s1, s2)
	}
	const total = "calculation_data_in_timeframe.total_time.seconds"
	t1, t2 := testserver.At(t, live1.JSON, total).(float64), testserver.At(t, live2.JSON, total).(float64)
	if t2 <= t1 || live1.Header.Get("ETag") == live2.Header.Get("ETag") {
		t.Errorf("metrics to now: total_time %v then %v, ETag %s then %s: the cache kept it", t1, t2,
			live1.Header.Get("ETag"), live2.Header.Get("ETag"))
	}
	if a, b := past1.Header.Get("ETag"), past2.Header.Get("ETag"); a != b || !bytes.Equal(past1.Body, past2.Body) {
		t.Errorf("metrics of a window that ended yesterday changed (ETag %s -> %s) with no write", a, b)
	}
	// A closed notice's answer is kept: the same tag a second later.
	a := srv.Get("/api/v1/notices/101", 200).Header.Get("ETag")
	time.Sleep(1100 * time.Millisecond)
	if b := srv.Get("/api/v1/notices/101", 200).Header.Get("ETag"); a != b {
		t.Errorf("closed notice changed tag %s -> %s with no write", a, b)
	}
	// A write makes a new snapshot, hence new answers.
	before := srv.Get("/api/v1/status", 200).Header.Get("ETag")
	importDoc(t, srv.DB, strings.Replace(export(t, srv.DB), `"Acme Status"`, `"Acme Status 2"`, 1), true)
	deadline := time.Now().Add(2 * time.Second)
	for {
		r := srv.Get("/api/v1/status", 200)
		if testserver.At(t, r.JSON, "page.name") == "Acme Status 2" {
			if r.Header.Get("ETag") == before {
				t.Error("new page, same ETag")
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the import did not show")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestPageCaching checks that the HTML pages are kept as bytes for a few
// seconds per snapshot: the same ETag, 304 for a current copy, gzip, and
// the security headers on every form of the answer.
func TestPageCaching(t *testing.T) {
	srv, _ := fixtureServer(t, "a", options{})
	first := srv.Do(http.MethodGet, "/", "Accept-Encoding", "identity")
	etag := first.Header.Get("ETag")
	if first.Status != 200 || etag == "" || first.Header.Get("Cache-Control") != "no-cache" {
		t.Fatalf("/: %d, ETag %q, Cache-Control %q", first.Status, etag, first.Header.Get("Cache-Control"))
	}
	again := srv.Do(http.MethodGet, "/", "If-None-Match", etag, "Accept-Encoding", "identity")
	if again.Status != 304 || len(again.Body) != 0 {
		t.Errorf("If-None-Match: %d with %d bytes", again.Status, len(again.Body))
	}
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/", nil)
	req.Header.Set("Accept-Encoding", "gzip")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	zipped, _ := io.ReadAll(res.Body)
	res.Body.Close()
	zr, err := gzip.NewReader(bytes.NewReader(zipped))
	if err != nil {
		t.Fatalf("gzip page: %v", err)
	}
	plain, _ := io.ReadAll(zr)
	if !bytes.Equal(plain, first.Body) || len(zipped) >= len(first.Body) {
		t.Errorf("gzip page: %d bytes for %d, decodes equal: %v", len(zipped), len(first.Body), bytes.Equal(plain, first.Body))
	}
	for _, r := range []*http.Response{res} {
		if r.Header.Get("Content-Security-Policy") == "" || r.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("cached page without its security headers: %v", r.Header)
		}
	}
	// Error pages are not kept.
	if r := srv.Do(http.MethodGet, "/notices/4242"); r.Status != 404 || r.Header.Get("ETag") != "" {
		t.Errorf("404 page: %d, ETag %q", r.Status, r.Header.Get("ETag"))
	}
}
