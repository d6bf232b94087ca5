package admin

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/statusd/statusd/internal/app"
)

// TestPrivateTargets: a webhook or chat URL that is http, or names a
// private address, is refused (422 invalid_field) unless the server allows
// private targets (--allow-private-targets), and then taken.
func TestPrivateTargets(t *testing.T) {
	targets := []string{"http://127.0.0.1:8080/hook", "https://10.0.0.7/hook", "http://localhost/x", "https://[fd00::1]/hook",
		"http://hooks.example.com/plain"}
	for _, allow := range []bool{false, true} {
		var logs bytes.Buffer
		a := newTestAdmin(t, &logs, app.Config{AllowPrivateTargets: allow})
		for i, target := range targets {
			channel := []string{"webhook", "slack", "teams", "discord", "webhook"}[i]
			body, _ := json.Marshal(map[string]string{"channel": channel, "address": target})
			rec := httptest.NewRecorder()
			a.mux.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/admin/api/v1/subscribers", bytes.NewReader(body)))
			var answer struct {
				Address string `json:"address"`
				State   string `json:"state"`
				Error   struct {
					Code    string `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
				t.Fatalf("%s: %v\n%s", body, err, rec.Body)
			}
			switch {
			case allow && (rec.Code != 201 || answer.Address != target || answer.State != "active"):
				t.Errorf("allowed, %s: %d %s, want 201 and an active subscriber", body, rec.Code, rec.Body)
			case !allow && (rec.Code != 422 || answer.Error.Code != "invalid_field" || !strings.HasPrefix(answer.Error.Message, "address: ")):
				t.Errorf("not allowed, %s: %d %s, want 422 invalid_field naming the address", body, rec.Code, rec.Body)
			}
		}
		if logs.Len() > 0 {
			t.Errorf("errors logged: %s", logs.String())
		}
	}
}
