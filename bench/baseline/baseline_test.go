package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// fakeStatusd answers like statusd's cache: an ETag per encoding, gzip
// when asked, 304 for a matching If-None-Match; and a page without ETag.
func fakeStatusd() *httptest.Server {
	body := []byte(`{"page":{"name":"Acme"}}`)
	var gz bytes.Buffer
	w := gzip.NewWriter(&gz)
	w.Write(body)
	w.Close()
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/" {
			w.Header().Set("Content-Type", "text/html")
			w.Write([]byte("<html>"))
			return
		}
		b, tag := body, `"abc"`
		if strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
			b, tag = gz.Bytes(), `"abc-gz"`
			w.Header().Set("Content-Encoding", "gzip")
		}
		w.Header().Set("ETag", tag)
		w.Header().Set("Vary", "Accept-Encoding")
		if r.Header.Get("If-None-Match") == tag {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	}))
}

func TestCaptureAndServe(t *testing.T) {
	statusd := fakeStatusd()
	defer statusd.Close()
	cf, err := capture(5*time.Second, statusd.URL, [][2]string{{"status", "/api/v1/status?x[y]=1"}, {"html", "/"}})
	if err != nil {
		t.Fatal(err)
	}
	st := cf.Requests[0]
	if st.Plain.Status != 200 || st.Plain.etag() != `"abc"` || st.Gzip.etag() != `"abc-gz"` ||
		st.NotModified.Status != 304 || st.NotModifiedGzip.Status != 304 {
		t.Fatalf("capture: %+v", st)
	}
	if cf.Requests[1].NotModified != nil {
		t.Error("a page without ETag got an If-None-Match capture")
	}
	kinds := kindsTSV(cf)
	for _, want := range []string{
		"status\tplain\t/api/v1/status?x[y]=1\t-\t200\n",
		"status\tgzip\t/api/v1/status?x[y]=1\tAccept-Encoding: gzip\t200\n",
		"status\tinm\t/api/v1/status?x[y]=1\tIf-None-Match: \"abc\"\t304\n",
		"html\tgzip\t/\tAccept-Encoding: gzip\t200\n",
		"# html has no ETag",
	} {
		if !strings.Contains(kinds, want) {
			t.Errorf("kinds.tsv lacks %q:\n%s", want, kinds)
		}
	}

	base := httptest.NewServer(newHandler(cf))
	defer base.Close()
	client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
	for _, tc := range []struct {
		name, path string
		header     []string
		status     int
		body       []byte
		encoding   string
	}{
		{"plain", "/api/v1/status?x[y]=1", nil, 200, st.Plain.Body, ""},
		{"gzip", "/api/v1/status?x[y]=1", []string{"Accept-Encoding", "gzip, deflate"}, 200, st.Gzip.Body, "gzip"},
		{"not modified", "/api/v1/status?x[y]=1", []string{"If-None-Match", `"abc"`}, 304, nil, ""},
		{"not modified gzip", "/api/v1/status?x[y]=1", []string{"Accept-Encoding", "gzip", "If-None-Match", `"abc-gz"`}, 304, nil, "gzip"},
		{"stale tag", "/api/v1/status?x[y]=1", []string{"If-None-Match", `"old"`}, 200, st.Plain.Body, ""},
		{"html asked for gzip gets identity", "/", []string{"Accept-Encoding", "gzip"}, 200, []byte("<html>"), ""},
		{"not captured", "/api/v1/status?x[y]=2", nil, 404, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodGet, base.URL+tc.path, nil)
			for i := 0; i < len(tc.header); i += 2 {
				req.Header.Set(tc.header[i], tc.header[i+1])
			}
			resp, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tc.status || (tc.body != nil && !bytes.Equal(b, tc.body)) ||
				resp.Header.Get("Content-Encoding") != tc.encoding {
				t.Errorf("%d %q (encoding %q); want %d %q (%q)", resp.StatusCode, b, resp.Header.Get("Content-Encoding"),
					tc.status, tc.body, tc.encoding)
			}
		})
	}
}
