package respcache

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

func TestAcceptEncoding(t *testing.T) {
	for header, want := range map[string]string{
		"":                   "",
		"gzip":               "gzip",
		"gzip, deflate, br":  "gzip",
		"GZIP":               "gzip",
		"br":                 "",
		"gzip, zstd":         "zstd", // equal preference: zstd
		"zstd;q=0.5, gzip":   "gzip",
		"gzip;q=0, zstd":     "zstd",
		"gzip;q=0":           "",
		"deflate, gzip;q=.3": "gzip",
	} {
		if got := AcceptEncoding(header); got != want {
			t.Errorf("AcceptEncoding(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestMatchesETag(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`*`, true},
		{`"abcd"`, false},
		{``, false},
	} {
		if got := MatchesETag(tc.header, `"abc"`); got != tc.want {
			t.Errorf("MatchesETag(%q) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

// TestServe checks the identity, gzip and 304 answers of one entry.
func TestServe(t *testing.T) {
	body := []byte(`{"hello":"world"}`)
	sum := sha256.Sum256(body)
	tag := `"` + hex.EncodeToString(sum[:12]) + `"`
	e := NewEntry(body, http.Header{"Content-Type": {"application/json"}}, time.Time{})
	cc := CacheControl("public, max-age=5")
	serve := func(header ...string) *httptest.ResponseRecorder {
		r := httptest.NewRequest(http.MethodGet, "/x", nil)
		for i := 0; i+1 < len(header); i += 2 {
			r.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		Serve(w, r, e, cc)
		return w
	}

	w := serve()
	if w.Code != 200 || w.Body.String() != string(body) || w.Header().Get("ETag") != tag ||
		w.Header().Get("Content-Length") != strconv.Itoa(len(body)) || w.Header().Get("Vary") != "Accept-Encoding" ||
		w.Header().Get("Cache-Control") != "public, max-age=5" || w.Header().Get("Content-Encoding") != "" {
		t.Errorf("identity: %d %v %q", w.Code, w.Header(), w.Body)
	}

	w = serve("Accept-Encoding", "gzip")
	gz, err := gzip.NewReader(bytes.NewReader(w.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	plain, _ := io.ReadAll(gz)
	gzTag := tag[:len(tag)-1] + `-gz"`
	if w.Code != 200 || string(plain) != string(body) || w.Header().Get("Content-Encoding") != "gzip" ||
		w.Header().Get("ETag") != gzTag || w.Header().Get("Content-Length") != strconv.Itoa(w.Body.Len()) {
		t.Errorf("gzip: %d %v", w.Code, w.Header())
	}

	w = serve("If-None-Match", tag)
	if w.Code != http.StatusNotModified || w.Body.Len() != 0 || w.Header().Get("Content-Type") != "" || w.Header().Get("ETag") != tag {
		t.Errorf("304: %d %v %q", w.Code, w.Header(), w.Body)
	}
	// The identity tag does not validate the gzip form.
	if w = serve("If-None-Match", tag, "Accept-Encoding", "gzip"); w.Code != 200 {
		t.Errorf("identity tag with gzip: %d, want 200", w.Code)
	}
	if w = serve("If-None-Match", gzTag, "Accept-Encoding", "gzip"); w.Code != http.StatusNotModified {
		t.Errorf("gzip tag with gzip: %d, want 304", w.Code)
	}
}

// TestAlias checks that a target finds its key's answer while it holds,
// and follows the key when it changes.
func TestAlias(t *testing.T) {
	var p PerSource
	c := p.For("snapshot 1")
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	build := func(body string, until time.Time) func(time.Time) (*Entry, error) {
		return func(time.Time) (*Entry, error) { return NewEntry([]byte(body), nil, until), nil }
	}
	if c.Lookup("/a?x=1", now) != nil {
		t.Fatal("an unknown target found an answer")
	}
	a, _ := c.Get("a", now, build("A", now.Add(time.Second)))
	c.Alias("/a?x=1", "a")
	if got := c.Lookup("/a?x=1", now); got != a {
		t.Errorf("Lookup = %v, want the answer under a", got)
	}
	if got := c.Lookup("/a?x=1", now.Add(time.Second)); got != nil {
		t.Errorf("Lookup after the answer expired = %v, want nil", got)
	}
	b, _ := c.Get("b", now, build("B", time.Time{}))
	c.Alias("/a?x=1", "b")
	if got := c.Lookup("/a?x=1", now.Add(time.Hour)); got != b {
		t.Errorf("Lookup after re-aliasing = %v, want the answer under b", got)
	}
	if p.For("snapshot 2").Lookup("/a?x=1", now) != nil {
		t.Error("a new source kept the old source's aliases")
	}
}
