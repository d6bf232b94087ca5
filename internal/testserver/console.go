package testserver

import (
	"strings"
	"testing"
)

// ConsoleURL is the --console-url of the tests that give one.
const ConsoleURL = "https://admin.acme.test"

// SetupToken is the token of a setup link, checked to be under the
// console's URL: ConsoleURL (--console-url), the page's url (the console
// on the public listener) or none (--admin-addr alone: the path).
func SetupToken(t *testing.T, link string) string {
	t.Helper()
	for _, base := range []string{ConsoleURL, "https://status.acme.test", ""} {
		if token, ok := strings.CutPrefix(link, base+"/manage/setup?token="); ok && len(token) == 43 {
			return token
		}
	}
	t.Fatalf("setup link %q: want %s, https://status.acme.test or nothing, then /manage/setup?token= and a 43-character token", link, ConsoleURL)
	return ""
}
