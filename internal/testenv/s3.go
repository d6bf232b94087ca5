package testenv

import (
	"encoding/xml"
	"io"
	"maps"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
)

// S3Server is a real S3-protocol server (gofakes3, in memory) on
// 127.0.0.1 with one bucket. It takes path-style requests and does not
// check signatures.
type S3Server struct {
	// URL is the endpoint: http://127.0.0.1:PORT.
	URL string
	// Bucket is the bucket the server was started with.
	Bucket string
	// AccessKey and SecretKey are credentials to sign with; any would do.
	AccessKey, SecretKey string

	t       testing.TB
	backend *s3mem.Backend
	refuse  atomic.Bool
	// refuseKey is the key whose PUTs are refused ("": none).
	refuseKey atomic.Pointer[string]
	mu        sync.Mutex
	puts      map[string]int
}

// S3 starts an S3 server holding the empty bucket, stopped when the test
// ends.
func S3(t testing.TB, bucket string) *S3Server {
	t.Helper()
	s := &S3Server{
		Bucket:    bucket,
		AccessKey: "testenv-access",
		SecretKey: "testenv-secret",
		t:         t,
		backend:   s3mem.New(),
		puts:      map[string]int{},
	}
	if err := s.backend.CreateBucket(bucket); err != nil {
		t.Fatalf("S3 bucket %q: %v", bucket, err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.URL = "http://" + l.Addr().String()
	srv := &http.Server{Handler: s.handler(gofakes3.New(s.backend).Server()), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

// s3Error is the body of an S3 error answer.
type s3Error struct {
	XMLName  xml.Name `xml:"Error"`
	Code     string
	Message  string
	Resource string
}

// handler answers 503 while the server refuses, and counts the PUTs of
// objects that reach next.
func (s *S3Server) handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, ok := strings.CutPrefix(r.URL.Path, "/"+s.Bucket+"/")
		if k := s.refuseKey.Load(); s.refuse.Load() || (r.Method == http.MethodPut && k != nil && *k == key) {
			w.Header().Set("Content-Type", "application/xml")
			w.WriteHeader(http.StatusServiceUnavailable)
			io.WriteString(w, xml.Header)
			xml.NewEncoder(w).Encode(s3Error{Code: "ServiceUnavailable", Message: "testenv: the S3 server refuses every request for now", Resource: r.URL.Path})
			return
		}
		if ok && r.Method == http.MethodPut && key != "" {
			s.mu.Lock()
			s.puts[key]++
			s.mu.Unlock()
		}
		next.ServeHTTP(w, r)
	})
}

// Refuse makes the server answer every request with 503 and an S3 error
// (on true), or serve again (on false).
func (s *S3Server) Refuse(on bool) { s.refuse.Store(on) }

// RefusePut makes the server answer the PUTs of key alone with 503, as
// Refuse does, until it is called with "".
func (s *S3Server) RefusePut(key string) { s.refuseKey.Store(&key) }

// Puts returns how many PUT requests the server took for each object
// key, not counting the ones it refused.
func (s *S3Server) Puts() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return maps.Clone(s.puts)
}

// Object returns the bytes and content type the bucket holds under key,
// read from the store itself (even while the server refuses); false when
// there is no such object.
func (s *S3Server) Object(key string) ([]byte, string, bool) {
	obj, err := s.backend.GetObject(s.Bucket, key, nil)
	if gofakes3.HasErrorCode(err, gofakes3.ErrNoSuchKey) {
		return nil, "", false
	}
	if err != nil {
		s.t.Errorf("S3 object %q: %v", key, err)
		return nil, "", false
	}
	defer obj.Contents.Close()
	body, err := io.ReadAll(obj.Contents)
	if err != nil {
		s.t.Errorf("S3 object %q: %v", key, err)
		return nil, "", false
	}
	return body, obj.Metadata["Content-Type"], true
}
