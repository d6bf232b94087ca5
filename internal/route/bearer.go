package route

import (
	"net/http"
	"strings"
)

// BearerToken returns the token of r's "Authorization: Bearer <token>"
// (the scheme in any letter case, RFC 9110), or "" when it has none.
func BearerToken(r *http.Request) string {
	scheme, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(token)
}
