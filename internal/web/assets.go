package web

import (
	"embed"
	"net/http"

	"github.com/statusd/statusd/internal/htmlkit"
	"github.com/statusd/statusd/internal/route"
)

//go:embed assets
var assetFS embed.FS

// assets are the page's files under /assets/: the kit's stylesheet, and
// the page's script and icon.
var assets = htmlkit.NewAssets("/assets/", assetFS, "assets")

// Assets serves the embedded assets, and the icon as /favicon.ico, as
// serve does.
func (s *Server) Assets() route.Handler {
	return func(w http.ResponseWriter, r *http.Request) error {
		name := r.PathValue("name")
		if r.URL.Path == "/favicon.ico" {
			name = "icon.svg"
		}
		return assets.Serve(w, r, name)
	}
}
