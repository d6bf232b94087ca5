package htmlkit

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"net/http"
	"path"
	"strconv"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/respcache"
	"github.com/statusd/statusd/internal/route"
)

// Assets are a site's embedded files served under one path, each
// versioned in its URLs by a hash of its bytes: the kit's shared
// stylesheet, style.css (the page's look, which the console shares), and
// the site's own. They are safe for concurrent use.
type Assets struct {
	prefix string
	files  map[string]asset
}

// asset is an embedded file.
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

// NewAssets returns the assets served under prefix ("/assets/"): the
// kit's and the files in the directory dir of own, each read and hashed
// once. It panics on a file it cannot read: they are embedded.
func NewAssets(prefix string, own fs.FS, dir string) *Assets {
	a := &Assets{prefix: prefix, files: map[string]asset{}}
	for _, src := range []struct {
		fsys fs.FS
		dir  string
	}{{files, "assets"}, {own, dir}} {
		entries, err := fs.ReadDir(src.fsys, src.dir)
		if err != nil {
			panic(err)
		}
		for _, e := range entries {
			body, err := fs.ReadFile(src.fsys, path.Join(src.dir, e.Name()))
			if err != nil {
				panic(err)
			}
			sum := sha256.Sum256(body)
			ct := assetTypes[path.Ext(e.Name())]
			if ct == "" {
				ct = "application/octet-stream"
			}
			a.files[e.Name()] = asset{body: body, contentType: ct, hash: hex.EncodeToString(sum[:6])}
		}
	}
	return a
}

// URL is the URL of the asset name, versioned by its content so that it
// can be cached for good. It panics on an unknown name, which the
// templates' tests catch.
func (a *Assets) URL(name string) string {
	f, ok := a.files[name]
	if !ok {
		panic("htmlkit: no asset " + name)
	}
	return a.prefix + name + "?v=" + f.hash
}

// Serve answers with the asset name, or returns a 404 for a name that is
// none. A request carrying the current version may be cached for a year;
// any other for five minutes, revalidated with the ETag.
func (a *Assets) Serve(w http.ResponseWriter, r *http.Request, name string) error {
	f, ok := a.files[name]
	if !ok {
		return NotFound(w, r)
	}
	etag := `"` + f.hash + `"`
	h := w.Header()
	h.Set("Content-Type", f.contentType)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("ETag", etag)
	if r.URL.Query().Get("v") == f.hash {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, max-age=300")
	}
	h.Set("Content-Length", strconv.Itoa(len(f.body)))
	respcache.ServeConditional(w, r, etag, f.body)
	return nil
}

// Handler serves the asset that the path's {name} names.
func (a *Assets) Handler() route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		return a.Serve(w, r, r.PathValue("name"))
	}
}

// NotFound answers a path that nothing is at: a 404 error screen.
func NotFound(w http.ResponseWriter, r *http.Request) error {
	return statusd.Errorf(statusd.ENotFound, "There is nothing at %s.", r.URL.Path)
}
