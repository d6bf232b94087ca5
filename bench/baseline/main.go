// Command baseline is the yardstick of the benchmark harness: a plain
// net/http server that answers each benchmarked request with exactly the
// bytes statusd returned for it, so that the ratio of statusd's throughput to
// the baseline's isolates statusd's own cost.
//
//	baseline capture -statusd http://127.0.0.1:8080 -requests requests.tsv -o capture.json -kinds kinds.tsv
//	baseline serve -capture capture.json -addr 127.0.0.1:8081
//
// capture requests every path of requests.tsv (lines "name<TAB>path") from
// statusd three ways: plain, with Accept-Encoding: gzip, and with
// If-None-Match carrying the ETag just received, and writes the answers
// (status, headers, body bytes) to the capture file. It also writes
// kinds.tsv, the request kinds the harness benchmarks
// ("name<TAB>variant<TAB>path<TAB>header<TAB>statusd status").
//
// serve loads the capture and answers each captured path (matched exactly,
// query included) with the captured answer: the gzip bytes when the request
// accepts gzip (they were compressed once, by statusd), the captured 304 when
// If-None-Match names the ETag, and 404 for anything else.
package main

import (
	"fmt"
	"os"
)

func main() {
	if len(os.Args) < 2 {
		usage()
	}
	var err error
	switch os.Args[1] {
	case "capture":
		err = captureCmd(os.Args[2:])
	case "serve":
		err = serveCmd(os.Args[2:])
	default:
		usage()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "baseline:", err)
		os.Exit(1)
	}
}

func usage() {
	fmt.Fprintln(os.Stderr, "usage: baseline capture [flags] | baseline serve [flags]")
	os.Exit(2)
}
