package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// route is what the baseline answers for one path: ready-made headers and
// bytes, nothing computed per request.
type route struct {
	plain, gzip, notModified, notModifiedGzip *response
	plainTag, gzipTag                         string
}

// handler serves a capture. It is safe for concurrent use: nothing is
// written after it is built.
type handler struct {
	routes map[string]*route // by request URI, query included
}

func newHandler(cf *captureFile) *handler {
	h := &handler{routes: map[string]*route{}}
	for _, r := range cf.Requests {
		rt := &route{plain: prepare(r.Plain), gzip: prepare(r.Gzip),
			notModified: prepare(r.NotModified), notModifiedGzip: prepare(r.NotModifiedGzip)}
		rt.plainTag, rt.gzipTag = rt.plain.etag(), rt.gzip.etag()
		if rt.gzip != nil && rt.gzip.Header.Get("Content-Encoding") != "gzip" {
			rt.gzip, rt.gzipTag, rt.notModifiedGzip = nil, "", nil // served as identity
		}
		h.routes[r.Path] = rt
	}
	return h
}

// prepare makes a captured response ready to replay: a Content-Length for
// bodies, and header slices that appends cannot share.
func prepare(r *response) *response {
	if r == nil {
		return nil
	}
	h := make(http.Header, len(r.Header)+1)
	for k, v := range r.Header {
		h[k] = slices.Clip(v)
	}
	if r.Status != http.StatusNotModified && r.Status != http.StatusNoContent && h.Get("Content-Length") == "" {
		h.Set("Content-Length", strconv.Itoa(len(r.Body)))
	}
	return &response{Status: r.Status, Header: h, Body: r.Body}
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt := h.routes[r.RequestURI]
	if rt == nil {
		http.Error(w, "not captured: "+r.RequestURI, http.StatusNotFound)
		return
	}
	resp, tag, nm := rt.plain, rt.plainTag, rt.notModified
	if rt.gzip != nil && strings.Contains(r.Header.Get("Accept-Encoding"), "gzip") {
		resp, tag, nm = rt.gzip, rt.gzipTag, rt.notModifiedGzip
	}
	if nm != nil && tag != "" && r.Header.Get("If-None-Match") == tag {
		resp = nm
	}
	dst := w.Header()
	for k, v := range resp.Header {
		dst[k] = v
	}
	w.WriteHeader(resp.Status)
	if r.Method != http.MethodHead {
		w.Write(resp.Body)
	}
}

func serveCmd(args []string) error {
	fs := flag.NewFlagSet("serve", flag.ExitOnError)
	path := fs.String("capture", "capture.json", "capture `file` to serve")
	addr := fs.String("addr", "127.0.0.1:8081", "`host:port` to listen on")
	fs.Parse(args)
	cf, err := loadCapture(*path)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	// The same server settings as statusd's (cmd/statusd/serve.go), so
	// that neither side gains from a different configuration.
	srv := &http.Server{Handler: newHandler(cf), MaxHeaderBytes: 64 << 10,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn)}
	srv.ReadHeaderTimeout, srv.ReadTimeout, srv.WriteTimeout, srv.IdleTimeout = 5*time.Second, 10*time.Second, 30*time.Second, 120*time.Second
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Close()
	}()
	log.Info("baseline listening", "url", "http://"+ln.Addr().String(), "paths", len(cf.Requests))
	if err := srv.Serve(ln); err != nil && err != http.ErrServerClosed {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}
