package signals

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// sign is Grafana's signing rule (http/hmac.go in grafana/alerting),
// written out here: hex HMAC-SHA256 of "timestamp:body", or of the body
// alone without a timestamp.
func sign(secret, timestamp string, body []byte) string {
	mac := hmac.New(sha256.New, []byte(secret))
	if timestamp != "" {
		mac.Write([]byte(timestamp))
		mac.Write([]byte(":"))
	}
	mac.Write(body)
	return hex.EncodeToString(mac.Sum(nil))
}

func TestVerifyGrafana(t *testing.T) {
	body := readTestdata(t, "grafana.json")
	now := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	unix := func(d time.Duration) string { return strconv.FormatInt(now.Add(d).Unix(), 10) }
	const secret = "s3cr3t"
	tests := []struct {
		name                 string
		secret               string
		body                 []byte
		signature, timestamp string
		ok                   bool
	}{
		{"body signed", secret, body, sign(secret, "", body), "", true},
		{"upper-case hex", secret, body, strings.ToUpper(sign(secret, "", body)), "", true},
		{"timestamp signed", secret, body, sign(secret, unix(-time.Minute), body), unix(-time.Minute), true},
		{"timestamp 4m59s old", secret, body, sign(secret, unix(-299*time.Second), body), unix(-299 * time.Second), true},
		{"timestamp 4m59s ahead", secret, body, sign(secret, unix(299*time.Second), body), unix(299 * time.Second), true},
		{"stale timestamp", secret, body, sign(secret, unix(-301*time.Second), body), unix(-301 * time.Second), false},
		{"timestamp ahead", secret, body, sign(secret, unix(301*time.Second), body), unix(301 * time.Second), false},
		{"timestamp not seconds", secret, body, sign(secret, "2026-03-04T10:00:00Z", body), "2026-03-04T10:00:00Z", false},
		{"timestamp sent, body alone signed", secret, body, sign(secret, "", body), unix(0), false},
		{"timestamp signed, not sent", secret, body, sign(secret, unix(0), body), "", false},
		{"another timestamp", secret, body, sign(secret, unix(0), body), unix(-time.Second), false},
		{"another secret", secret, body, sign("other", "", body), "", false},
		{"another body", secret, body[1:], sign(secret, "", body), "", false},
		{"not hex", secret, body, "zz" + sign(secret, "", body)[2:], "", false},
		{"truncated", secret, body, sign(secret, "", body)[:32], "", false},
		{"no signature", secret, body, "", "", false},
		{"no secret", "", body, sign("", "", body), "", false},
	}
	for _, tt := range tests {
		err := VerifyGrafana(tt.secret, tt.body, tt.signature, tt.timestamp, now)
		switch {
		case tt.ok && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case !tt.ok && statusd.ErrorCode(err) != statusd.EUnauthorized:
			t.Errorf("%s: got %v, want unauthorized", tt.name, err)
		}
	}
}
