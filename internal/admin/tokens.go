package admin

// The admin API's own tokens (CONTRACT C8): listed without their secrets,
// created (the secret answered once; statusd keeps only its hash) and
// revoked, by name. statusd token does the same on the database, with the
// same rule (NewNamedToken).

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/httpjson"
)

// MaxTokenName is the longest name a token may have.
const MaxTokenName = 100

// NewNamedToken returns a new token named name, made now, and its secret;
// a name that is blank or longer than MaxTokenName is an *statusd.Error
// EInvalidField naming the field name. (Control characters are allowed:
// every output escapes them.)
func NewNamedToken(name string, now time.Time) (string, statusd.Token, error) {
	switch {
	case strings.TrimSpace(name) == "":
		return "", statusd.Token{}, statusd.Errorf(statusd.EInvalidField, "name: is required: the token's name, shown in the audit log")
	case len(name) > MaxTokenName:
		return "", statusd.Token{}, statusd.Errorf(statusd.EInvalidField, "name: is %d bytes long; at most %d", len(name), MaxTokenName)
	}
	secret, hash := NewToken()
	return secret, statusd.Token{Name: name, Hash: hash, CreatedAt: now.UTC().Truncate(time.Millisecond)}, nil
}

// tokenTarget names a token in the audit log.
func tokenTarget(name string) string { return "token " + name }

// ListTokens answers every token, by name, without secrets or hashes.
func (s *Server) ListTokens(w http.ResponseWriter, r *http.Request, _ string) error {
	list, err := s.Tokens(r.Context())
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusOK, statusd.AdminTokensResponse{Tokens: list})
}

// Tokens returns every token, by name, without secrets or hashes.
func (s *Server) Tokens(ctx context.Context) ([]statusd.AdminToken, error) {
	tokens, err := s.store.Tokens().List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]statusd.AdminToken, len(tokens))
	for i := range tokens {
		out[i] = statusd.AdminTokenOf(&tokens[i])
	}
	return out, nil
}

// CreateToken adds a token (POST /tokens): AddToken, then the token with
// its secret, 201.
func (s *Server) CreateToken(w http.ResponseWriter, r *http.Request, actor string) error {
	var body statusd.AdminTokenRequest
	if err := decode(r, &body); err != nil {
		return err
	}
	t, err := s.AddToken(r.Context(), actor, body)
	if err != nil {
		return err
	}
	return httpjson.Write(w, r, http.StatusCreated, t)
}

// AddToken adds the token of body and returns it with its secret, which
// is not kept.
func (s *Server) AddToken(ctx context.Context, actor string, body statusd.AdminTokenRequest) (statusd.AdminToken, error) {
	name := ""
	if body.Name != nil {
		name = *body.Name
	}
	secret, t, err := NewNamedToken(name, s.now())
	if err != nil {
		return statusd.AdminToken{}, err
	}
	e := s.entry(actor, "token.create", tokenTarget(name), "created a token")
	if err := s.store.Tokens().Create(ctx, t, &e); err != nil {
		return statusd.AdminToken{}, err
	}
	out := statusd.AdminTokenOf(&t)
	out.Secret = secret
	return out, nil
}

// DeleteToken revokes a token (DELETE /tokens/{name}): RevokeToken, then
// 204.
func (s *Server) DeleteToken(w http.ResponseWriter, r *http.Request, actor string) error {
	if err := s.RevokeToken(r.Context(), actor, r.PathValue("name")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// RevokeToken deletes the token named name: a request with it is refused
// from then on.
func (s *Server) RevokeToken(ctx context.Context, actor, name string) error {
	e := s.entry(actor, "token.revoke", tokenTarget(name), "revoked a token")
	return s.store.Tokens().Revoke(ctx, name, &e)
}
