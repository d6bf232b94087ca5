package server_test

import (
	"go/build"
	"path"
	"slices"
	"strings"
	"testing"
)

// handlerPackages are the packages that answer requests. Each stands
// alone: they share the domain, the write actions (internal/app), the HTML
// kit and the HTTP helpers, and only this package and cmd/statusd wire
// them together (ARCHITECTURE.md, "The layout").
var handlerPackages = []string{"admin", "api", "badge", "console", "health", "statuspage", "web"}

// TestHandlerPackagesStandApart reads the imports of each handler
// package's code (its tests left out) and fails on one that imports
// another handler package.
func TestHandlerPackagesStandApart(t *testing.T) {
	const module = "github.com/statusd/statusd/internal/"
	for _, name := range handlerPackages {
		pkg, err := build.Default.ImportDir(path.Join("..", name), 0)
		if err != nil {
			t.Fatalf("reading internal/%s: %v", name, err)
		}
		for _, imp := range pkg.Imports {
			if other, ok := strings.CutPrefix(imp, module); ok && slices.Contains(handlerPackages, other) {
				t.Errorf("internal/%s imports internal/%s: handler packages never import one another", name, other)
			}
		}
	}
}
