package notify

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"log/slog"
	"math/big"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
	"github.com/statusd/statusd/internal/testenv"
)

// t0 is the fixture's now.
var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// later is the startBy of tests' attempts: far off.
var later = time.Now().Add(24 * time.Hour)

func at(minutes int) time.Time { return t0.Add(time.Duration(minutes) * time.Minute) }

// fixture is a page named "Acme Status" at https://status.acme.test/ with
// a group "Platform" (1) holding "API" (2, position 2) and "Web" (3,
// position 3), and:
//   - incident 41 "Elevated error rates" on Web and API: update 410
//     investigating at -30 min, 411 identified at -10 min;
//   - maintenance 42 "Database upgrade" on API, scheduled at -120 min
//     (update 420) for +60 to +120 min;
//   - general notice 43 "New region" (update 430 at -5 min).
func fixture() *statusd.Document {
	one := int64(1)
	upd := func(id int64, st statusd.State, text string, t time.Time) statusd.Update {
		return statusd.Update{ID: id, State: st, Content: text, CreatedAt: t, UpdatedAt: t}
	}
	begins, ends := at(60), at(120)
	return &statusd.Document{
		Page: statusd.Page{Name: "Acme Status", URL: "https://status.acme.test/", CreatedAt: at(-1000), UpdatedAt: at(-1000)},
		Components: []statusd.Component{
			{ID: 1, Position: 1, Name: "Platform", CreatedAt: at(-1000), UpdatedAt: at(-1000)},
			{ID: 2, ParentID: &one, Position: 2, Name: "API", CreatedAt: at(-1000), UpdatedAt: at(-1000)},
			{ID: 3, ParentID: &one, Position: 3, Name: "Web", CreatedAt: at(-1000), UpdatedAt: at(-1000)},
		},
		Notices: []statusd.Notice{
			{ID: 41, Type: statusd.Unplanned, Subject: "Elevated error rates", ComponentIDs: []int64{3, 2},
				CreatedAt: at(-30), UpdatedAt: at(-10), Updates: []statusd.Update{
					upd(410, statusd.Investigating, "We are looking into errors on <b>checkout</b> & login.", at(-30)),
					upd(411, statusd.Identified, "A bad deploy; rolling back.\nSecond line.", at(-10)),
				}},
			{ID: 42, Type: statusd.Planned, Subject: "Database upgrade", ComponentIDs: []int64{2}, BeginsAt: &begins, EndsAt: &ends,
				CreatedAt: at(-120), UpdatedAt: at(-120), Updates: []statusd.Update{
					upd(420, statusd.Scheduled, "The database moves to a new version.", at(-120)),
				}},
			{ID: 43, Type: statusd.General, Subject: "New region", CreatedAt: at(-5), UpdatedAt: at(-5),
				Updates: []statusd.Update{upd(430, "", "Europe is open.", at(-5))}},
		},
	}
}

// holder holds a snapshot.
type holder struct{ snap *snapshot.Snapshot }

func (h *holder) Current() *snapshot.Snapshot { return h.snap }

func build(doc *statusd.Document, now time.Time) *snapshot.Snapshot {
	return snapshot.Build(doc, 1, now, snapshot.Options{Variant: statusd.VariantA})
}

// newTestWorker returns a worker of cfg over the fixture at t0 (or at
// cfg.Now's time), with the real statuspage mapping.
func newTestWorker(cfg Config) (*Worker, *holder) {
	if cfg.Now == nil {
		cfg.Now = func() time.Time { return t0 }
	}
	h := &holder{snap: build(fixture(), cfg.Now())}
	if cfg.Snapshots == nil {
		cfg.Snapshots = h
	}
	return New(cfg), h
}

// claimed is a delivery of event e to s; its message id is "msg<id>".
func claimed(id int64, e statusd.Event, s statusd.Subscriber) statusd.Claimed {
	return statusd.Claimed{Delivery: statusd.Delivery{ID: id, MessageID: "msg" + strconv.FormatInt(id, 10), Event: e,
		SubscriberID: s.ID, State: statusd.DeliveryPending}, Subscriber: s}
}

// The fixture's events, made at t0.
var (
	created = statusd.Event{ID: 7, Kind: statusd.NoticeCreated, NoticeID: 41, UpdateID: 410, ComponentIDs: []int64{3, 2},
		Thread: "thread41", CreatedAt: t0}
	updated = statusd.Event{ID: 8, Kind: statusd.NoticeUpdated, NoticeID: 41, UpdateID: 411, ComponentIDs: []int64{3, 2},
		Thread: "thread41", CreatedAt: t0}
	reminder = statusd.Event{ID: 9, Kind: statusd.MaintenanceReminder, NoticeID: 42, ComponentIDs: []int64{2},
		Key: statusd.ReminderKey(42, at(60)), Thread: "thread42", CreatedAt: t0}
	general = statusd.Event{ID: 10, Kind: statusd.NoticeCreated, NoticeID: 43, UpdateID: 430, Thread: "thread43", CreatedAt: t0}
	test    = statusd.Event{ID: 11, Kind: statusd.TestMessage, SubscriberID: 5, CreatedAt: t0}
	confirm = statusd.Event{ID: 12, Kind: statusd.SubscriptionConfirm, SubscriberID: 5, CreatedAt: t0}
)

// selfSigned returns a certificate for localhost and 127.0.0.1, and a
// client configuration that trusts it (only it).
func selfSigned(t testing.TB) (server, client *tls.Config) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"},
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}},
		&tls.Config{RootCAs: pool}
}

// infoLogger logs at info level and above into the buffer.
func infoLogger(b *testenv.LogBuffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(b, &slog.HandlerOptions{Level: slog.LevelInfo}))
}

// mustContain fails unless s holds every one of want.
func mustContain(t *testing.T, what, s string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(s, w) {
			t.Errorf("%s lacks %q:\n%s", what, w, s)
		}
	}
}

// mustMailer returns a mailer of cfg, closed when the test ends.
func mustMailer(t testing.TB, cfg MailConfig) *Mailer {
	t.Helper()
	m, err := NewMailer(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// port is the port of a host:port address.
func port(addr string) string {
	_, p, _ := net.SplitHostPort(addr)
	return p
}

// freeAddr returns an address on 127.0.0.1 where nothing listens.
func freeAddr(t testing.TB) string {
	return "127.0.0.1:" + strconv.Itoa(testenv.FreePort(t))
}
