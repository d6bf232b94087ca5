package web

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"

	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
)

//go:embed assets
var assetFS embed.FS

// asset is an embedded file served under /assets/.
type asset struct {
	body        []byte
	contentType string
	hash        string // of the body, the version in asset URLs
}

var assetTypes = map[string]string{
	".css": "text/css; charset=utf-8",
	".js":  "text/javascript; charset=utf-8",
	".svg": "image/svg+xml",
}

// assetFiles are the assets by name, read and hashed once.
var assetFiles = func() map[string]asset {
	out := map[string]asset{}
	entries, err := fs.ReadDir(assetFS, "assets")
	if err != nil {
		panic(err)
	}
	for _, e := range entries {
		body, err := assetFS.ReadFile("assets/" + e.Name())
		if err != nil {
			panic(err)
		}
		sum := sha256.Sum256(body)
		ct := assetTypes[path.Ext(e.Name())]
		if ct == "" {
			ct = "application/octet-stream"
		}
		out[e.Name()] = asset{body: body, contentType: ct, hash: hex.EncodeToString(sum[:6])}
	}
	return out
}()

// assetURL is the URL of an asset, versioned by its content so that it can
// be cached for good. It panics on an unknown name, which the templates'
// tests catch.
func assetURL(name string) string { return "/assets/" + name + "?v=" + AssetVersion(name) }

// AssetVersion is the version of the embedded asset name in its URLs
// (?v=): a hash of its bytes. It panics on an unknown name.
func AssetVersion(name string) string {
	a, ok := assetFiles[name]
	if !ok {
		panic("web: no asset " + name)
	}
	return a.hash
}

// Assets serves the embedded assets, and the icon as /favicon.ico, as
// serve does.
func (s *Server) Assets() route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		if r.URL.Path == "/favicon.ico" {
			name = "icon.svg"
		}
		a, ok := assetFiles[name]
		if !ok {
			return NotFound(w, r)
		}
		a.serve(w, r)
		return nil
	}
}

// ServeAsset serves the embedded asset name at any path, as Assets does
// under /assets/: the console serves the status page's stylesheet on its
// own listener with it. It panics on an unknown name.
func ServeAsset(name string) route.Handler {
	AssetVersion(name)
	a := assetFiles[name]
	return func(w http.ResponseWriter, r *http.Request) error {
		a.serve(w, r)
		return nil
	}
}

// serve answers with the asset. A request carrying the current version may
// be cached for a year; any other for five minutes, revalidated with the
// ETag.
func (a asset) serve(w http.ResponseWriter, r *http.Request) {
	etag := `"` + a.hash + `"`
	h := w.Header()
	h.Set("Content-Type", a.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", etag)
	if r.URL.Query().Get("v") == a.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	h.Set("Content-Length", strconv.Itoa(len(a.body)))
	respcache.ServeConditional(w, r, etag, a.body)
}
