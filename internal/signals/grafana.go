package signals

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"

	"github.com/statusd/statusd"
)

// Grafana's webhook contact point signs a body when its "HMAC Signature"
// settings have a secret (http/hmac.go in github.com/grafana/alerting):
// the hex HMAC-SHA256, keyed by the secret, of the body, or of
// "<timestamp>:<body>" when a timestamp header is named, the timestamp
// being Unix seconds in decimal. Both header names are set in Grafana.
const (
	// SignatureHeader is Grafana's default header of the signature.
	SignatureHeader = "X-Grafana-Alerting-Signature"
	// TimestampHeader is the timestamp header statusd asks senders to
	// name: Grafana has no default, and signs no timestamp without one.
	TimestampHeader = "X-Grafana-Alerting-Signature-Timestamp"
	// MaxSkew is how far a signed timestamp may be from now, either way.
	MaxSkew = 5 * time.Minute
)

// VerifyGrafana checks the signature of a Grafana body: the value of the
// signature header, and of the timestamp header, "" when the request has
// none. A signature that does not match, a timestamp that is not Unix
// seconds or is more than MaxSkew from now, or an empty secret, is a
// *statusd.Error with code unauthorized.
func VerifyGrafana(secret string, body []byte, signature, timestamp string, now time.Time) error {
	if secret == "" {
		return statusd.Errorf(statusd.EUnauthorized, "the source has no signing secret")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	if timestamp != "" {
		sec, err := strconv.ParseInt(timestamp, 10, 64)
		if err != nil {
			return statusd.Errorf(statusd.EUnauthorized, "the signature timestamp %q is not Unix seconds", timestamp)
		}
		if skew := now.Sub(time.Unix(sec, 0)); skew > MaxSkew || skew < -MaxSkew {
			return statusd.Errorf(statusd.EUnauthorized, "the signature timestamp is more than %v from now", MaxSkew)
		}
		mac.Write([]byte(timestamp + ":"))
	}
	mac.Write(body)
	got, err := hex.DecodeString(signature)
	if err != nil || !hmac.Equal(got, mac.Sum(nil)) {
		return statusd.Errorf(statusd.EUnauthorized, "the signature does not match the body")
	}
	return nil
}
