package shed

import (
	"testing"
	"time"
)

// BenchmarkEarlyRefusal is the work of a refusal made before net/http,
// from the bytes of a request to those of its answer.
func BenchmarkEarlyRefusal(b *testing.B) {
	l := New(0, time.Nanosecond, discard)
	l.overloaded.Store(true)
	chunk := []byte("GET /api/v1/notices?page=17 HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: bench\r\n\r\n")
	at := time.Now().UnixNano()
	var out []byte
	b.ReportAllocs()
	for b.Loop() {
		if _, one := atRequest.next(chunk); !one {
			b.Fatal("not one request")
		}
		var refused bool
		if out, refused = l.early(out[:0], chunk, at, time.Now()); !refused {
			b.Fatal("not refused")
		}
	}
}

// BenchmarkFraming is what following the requests costs each read of a
// connection of Listen: one request, as a client sends it.
func BenchmarkFraming(b *testing.B) {
	chunk := []byte("GET /api/v1/status HTTP/1.1\r\nHost: 127.0.0.1:8080\r\nUser-Agent: Mozilla/5.0\r\nAccept: application/json\r\nAccept-Encoding: gzip\r\nIf-None-Match: \"0123456789abcdef01234567\"\r\n\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if f, _ := atRequest.next(chunk); f != atRequest {
			b.Fatal("lost")
		}
	}
}
