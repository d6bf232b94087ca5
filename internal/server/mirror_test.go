package server_test

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// clock is a time the test moves: the readers and the mirror read it, so
// that a live answer and its copy are made at the same moment.
type clock struct{ ns atomic.Int64 }

func newClock(t time.Time) *clock {
	c := &clock{}
	c.ns.Store(t.UnixNano())
	return c
}

func (c *clock) Now() time.Time      { return time.Unix(0, c.ns.Load()).UTC() }
func (c *clock) Add(d time.Duration) { c.ns.Add(int64(d)) }
func (c *clock) Set(t time.Time)     { c.ns.Store(t.UnixNano()) }

// mirrorSite is what a test reads a destination with: the bucket, and
// the public key its manifests are signed with.
type mirrorSite struct {
	b   mirror.Bucket
	pub ed25519.PublicKey
}

// manifest returns the destination's manifest, once the copy is whole
// (testserver.MirrorCopy).
func (m mirrorSite) manifest(t *testing.T) *mirror.Manifest {
	t.Helper()
	return testserver.MirrorCopy(t, m.b, m.pub)
}

// waitSequence waits for a manifest of at least sequence, and returns it
// once the copy is whole.
func (m mirrorSite) waitSequence(t *testing.T, sequence int64) *mirror.Manifest {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		body, err := m.b.Get(context.Background(), mirror.ManifestKey)
		if err == nil {
			if man, err := mirror.ParseManifest(body); err == nil && man.Sequence >= sequence {
				return m.manifest(t)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: no manifest of sequence %d after 15 s (%v)", m.b, sequence, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// fixtureTargets are the targets a copy of the fixture page holds, worked
// out from the fixture (testserver.Fixture) and CONTRACT C10, beside the
// history's further pages.
func fixtureTargets(variant statusd.Variant) []string {
	t := []string{"/", "/history", "/history.atom", "/history.rss",
		"/assets/style.css", "/assets/app.js", "/assets/icon.svg", "/favicon.ico",
		"/badge/status.json", "/badge/status.svg",
		"/api/v1", "/api/v1/status", "/api/v1/components", "/api/v1/notices",
		"/api/v1/components?filter%5Bparent_id_null%5D=true",
		"/api/v1/components?filter%5Bparent_id_eq%5D=10", "/api/v1/components?filter%5Bparent_id_eq%5D=30",
		"/api/v1/notices?filter%5Btimeline_state_eq%5D=present", "/api/v1/notices?filter%5Btimeline_state_eq%5D=future",
		"/api/v1/notices?filter%5Btimeline_state_eq%5D=past",
		"/api/v1/notices?filter%5Btype_eq%5D=general", "/api/v1/notices?filter%5Btype_eq%5D=planned",
		"/api/v1/notices?filter%5Btype_eq%5D=unplanned",
		"/api/v2/summary.json", "/api/v2/status.json", "/api/v2/components.json", "/api/v2/incidents.json",
		"/api/v2/scheduled-maintenances.json", "/api/v2/incidents/unresolved.json",
		"/api/v2/scheduled-maintenances/upcoming.json", "/api/v2/scheduled-maintenances/active.json",
	}
	for _, id := range []int{20, 10, 12, 11, 30, 31} {
		t = append(t, fmt.Sprintf("/badge/components/%d.json", id), fmt.Sprintf("/badge/components/%d.svg", id))
	}
	if variant == statusd.VariantA {
		for _, id := range []int{10, 11, 30} { // the components with metrics
			t = append(t, fmt.Sprintf("/components/%d/metrics", id), fmt.Sprintf("/api/v1/components/%d/metrics", id))
		}
	}
	for _, id := range []int{100, 101, 102, 103, 104, 105, 200, 201, 202, 203, 204, 300, 301, 302, 303} {
		t = append(t, fmt.Sprintf("/notices/%d", id), fmt.Sprintf("/api/v1/notices/%d", id))
	}
	return t
}

var historyLink = regexp.MustCompile(`href="(/history\?page=[0-9]+)"`)

// checkComplete checks that the copy holds exactly the fixture's targets
// and the history pages its history links to.
func checkComplete(t *testing.T, site mirrorSite, man *mirror.Manifest, want []string) {
	t.Helper()
	want = slices.Clone(want)
	for target := range man.Files {
		if !strings.HasPrefix(target, "/history?page=") {
			continue
		}
		want = append(want, target)
	}
	for target, f := range man.Files {
		if target != "/history" && !strings.HasPrefix(target, "/history?") {
			continue
		}
		body, _ := site.b.Get(context.Background(), f.Key)
		for _, m := range historyLink.FindAllSubmatch(body, -1) {
			if _, ok := man.Files[string(m[1])]; !ok {
				t.Errorf("%s links to %s, which the copy does not hold", target, m[1])
			}
		}
	}
	var got []string
	for target := range man.Files {
		got = append(got, target)
	}
	slices.Sort(got)
	slices.Sort(want)
	want = slices.Compact(want)
	if !slices.Equal(got, want) {
		t.Errorf("the copy's targets:\n got %q\nwant %q", got, want)
	}
}

// checkIdentical checks that every file of the copy that is not a page is
// the live answer's bytes, and that every page is the mirror's form of
// the live one.
func checkIdentical(t *testing.T, srv *testserver.Server, site mirrorSite, man *mirror.Manifest) {
	t.Helper()
	for target, f := range man.Files {
		body, err := site.b.Get(context.Background(), f.Key)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		live := srv.Do(http.MethodGet, target)
		if live.Status != http.StatusOK {
			t.Errorf("%s: live %d", target, live.Status)
			continue
		}
		if f.ContentType != live.Header.Get("Content-Type") {
			t.Errorf("%s: content type %q, live %q", target, f.ContentType, live.Header.Get("Content-Type"))
		}
		if strings.HasPrefix(f.ContentType, "text/html") {
			if !strings.Contains(string(body), `data-mirror="/mirror.json"`) || !strings.Contains(string(body), `id="mirror-stale"`) ||
				strings.Contains(string(live.Body), "data-mirror") {
				t.Errorf("%s: the copy's page does not carry the staleness check, or the live one does", target)
			}
			continue
		}
		if string(body) != string(live.Body) {
			t.Errorf("%s: the copy's %d bytes are not the live answer's %d", target, len(body), len(live.Body))
		}
	}
}

// openssl checks the manifest's signature with openssl, as C10 tells
// readers to, from the key's PEM.
func opensslVerify(t *testing.T, pub ed25519.PublicKey, manifest, sig []byte) {
	t.Helper()
	if _, err := exec.LookPath("openssl"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI=true and no openssl: .ci/run installs it")
		}
		t.Skip("openssl is not installed: apt-get install openssl")
	}
	dir := t.TempDir()
	files := map[string][]byte{"key.pem": mirror.PublicKeyPEM(pub), "mirror.json": manifest, "mirror.json.sig": sig}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("openssl", "pkeyutl", "-verify", "-pubin", "-inkey", "key.pem", "-rawin", "-in", "mirror.json", "-sigfile", "mirror.json.sig")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Signature Verified Successfully") {
		t.Errorf("openssl pkeyutl -verify: %v\n%s", err, out)
	}
}

// TestMirror pushes the fixture page to a directory and to an S3 server,
// in both variants: complete, the live bytes, signed as openssl checks;
// then a publish, a deletion, and a store that refuses for a while.
func TestMirror(t *testing.T) {
	for _, variant := range []statusd.Variant{statusd.VariantA, statusd.VariantB} {
		t.Run(string(variant), func(t *testing.T) { testMirror(t, variant) })
	}
}

func testMirror(t *testing.T, variant statusd.Variant) {
	start := time.Now().UTC().Truncate(time.Second)
	clk := newClock(start.Add(time.Minute))
	s3 := testenv.S3(t, "status-copy")
	t.Setenv("AWS_ACCESS_KEY_ID", s3.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", s3.SecretKey)
	opts := mirror.Options{Endpoint: s3.URL}.WithEnv(os.Getenv)
	bucket, err := mirror.Open("s3://status-copy/www", opts)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := options{variant: variant, now: clk.Now, mirrors: []mirror.Bucket{mirror.Dir(dir), bucket}}
	if variant == statusd.VariantA {
		o.smtp = testenv.StartSMTP(t, testenv.SMTPOptions{}) // email subscription: the pages link to /subscribe
	}
	srv := startServer(t, testserver.Fixture(start), o)
	pub := testserver.MirrorKey(t, srv.DB)
	sites := []mirrorSite{{mirror.Dir(dir), pub}, {bucket, pub}}
	tok := newToken(t, srv.DB, "ops")

	var first *mirror.Manifest
	testserver.Step(t, "complete, the live bytes, signed", func(t *testing.T) {
		for _, site := range sites {
			man := site.waitSequence(t, 1)
			checkComplete(t, site, man, fixtureTargets(variant))
			checkIdentical(t, srv.In(t), site, man)
			if man.SourceURL != "https://status.acme.test" || man.StaleAfter != 900 || !man.GeneratedAt.Equal(clk.Now()) {
				t.Errorf("manifest: source_url %q, stale_after %d, generated_at %v; want the page's url, 900, %v",
					man.SourceURL, man.StaleAfter, man.GeneratedAt, clk.Now())
			}
			first = man
		}
		body, _ := sites[1].b.Get(context.Background(), mirror.ManifestKey)
		sig, _ := sites[1].b.Get(context.Background(), mirror.SignatureKey)
		opensslVerify(t, pub, body, sig)
		// With email subscription, the copy's Subscribe links go to the
		// live page, whose /subscribe the copy does not hold.
		if variant == statusd.VariantA {
			home, _, _ := s3.Object("www/index.html")
			if !strings.Contains(string(home), `href="https://status.acme.test/subscribe"`) || strings.Contains(string(home), `href="/subscribe"`) {
				t.Errorf("the copy's home page does not link to the live page's /subscribe")
			}
		}
		// The query-less targets are at their paths, for a static host.
		for target, key := range map[string]string{"/": "www/index.html", "/history": "www/history", "/notices/100": "www/notices/100",
			"/api/v1/status": "www/api/v1/status", "/api/v1": "www/api/v1/index.json", "/api/v2/summary.json": "www/api/v2/summary.json"} {
			if _, ct, ok := s3.Object(key); !ok || ct != first.Files[target].ContentType {
				t.Errorf("%s: no object %s with content type %q (got %q)", target, key, first.Files[target].ContentType, ct)
			}
		}
	})

	var published int64
	testserver.Step(t, "a publish reaches both, putting only what changed", func(t *testing.T) {
		putsBefore := sum(s3.Puts())
		got := srv.AdminOK(http.MethodPost, "/notices", tok, `{"type":"unplanned","subject":"Mirror check","state":"investigating","content":"Looking.","component_ids":[20]}`, http.StatusCreated)
		published = int64(testserver.At(t, got, "id").(float64))
		for _, site := range sites {
			man := site.waitSequence(t, first.Sequence+1)
			for _, target := range []string{fmt.Sprintf("/notices/%d", published), fmt.Sprintf("/api/v1/notices/%d", published)} {
				if _, ok := man.Files[target]; !ok {
					t.Errorf("%s: the new notice's %s is not in the copy", site.b, target)
				}
			}
			checkIdentical(t, srv.In(t), site, man)
		}
		// What changes: the new notice's 2 files; its component's 2
		// badges; the 6 files of the 3 notices that list that component
		// (105, 200, 302: it is embedded in them with its state); the
		// home page, the history and its 2 feeds; v1's status, the
		// components (and parent_id_null) and the notices (and present and
		// unplanned); the 8 v2 files, which carry the page's updated_at:
		// 26 targets put to a blob and then to their home, and 2 new
		// ones. Not the other 12 notices' files, the assets, nor the other
		// components' badges.
		puts := s3.Puts()
		changed := map[string]bool{}
		for key, n := range puts {
			if n > 1 && !strings.HasPrefix(key, "www/_blobs/") && !strings.HasPrefix(key, "www/mirror.json") {
				changed[key] = true
			}
		}
		if n := sum(puts) - putsBefore; n != 2*26+2+2 || len(changed) != 26 {
			t.Errorf("the publish put %d files, %d of them again: %q", n, len(changed), slices.Sorted(maps.Keys(changed)))
		}
		for _, key := range []string{"www/notices/101", "www/api/v1/notices/101", "www/assets/style.css", "www/badge/components/30.svg"} {
			if puts[key] != 1 {
				t.Errorf("%s was put %d times, want once: it did not change", key, puts[key])
			}
		}
	})

	testserver.Step(t, "a deletion removes its files after the manifest moved on", func(t *testing.T) {
		before := sites[1].manifest(t)
		key := before.Files[fmt.Sprintf("/api/v1/notices/%d", published)].Key
		srv.AdminOK(http.MethodDelete, fmt.Sprintf("/notices/%d", published), tok, "", http.StatusNoContent)
		for _, site := range sites {
			man := site.waitSequence(t, before.Sequence+1)
			if _, ok := man.Files[fmt.Sprintf("/notices/%d", published)]; ok {
				t.Errorf("%s: the deleted notice is still in the copy", site.b)
			}
			checkComplete(t, site, man, fixtureTargets(variant))
		}
		if _, _, ok := s3.Object("www/" + key); ok {
			t.Errorf("the deleted notice's %s is still in the bucket", key)
		}
		if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(key))); !os.IsNotExist(err) {
			t.Errorf("the deleted notice's %s is still in the folder: %v", key, err)
		}
	})

	testserver.Step(t, "a store that refuses for a while is caught up", func(t *testing.T) {
		before := sites[1].manifest(t)
		s3.Refuse(true)
		srv.AdminOK(http.MethodPatch, "/page", tok, `{"name":"Acme Status (mirrored)"}`, http.StatusOK)
		sites[0].waitSequence(t, before.Sequence+1) // the folder does not wait for the bucket
		waitFor(t, "the failure on /readyz", func() bool {
			r := srv.Do(http.MethodGet, "/readyz")
			return r.Status == http.StatusOK && strings.Contains(string(r.Body), "mirror s3://status-copy/www: 1 pushes failed")
		})
		// Read behind the refusal: the copy there is the one before.
		behind := mirrorSite{s3Objects{s3, "www/"}, pub}
		if man := behind.manifest(t); man.Sequence != before.Sequence {
			t.Errorf("the refusing bucket's manifest moved to %d", man.Sequence)
		}
		s3.Refuse(false)
		clk.Add(6 * time.Second) // past the first retry (statusd.MirrorRetry(1) = 5 s)
		man := sites[1].waitSequence(t, before.Sequence+1)
		checkIdentical(t, srv.In(t), sites[1], man)
		waitFor(t, "the recovery on /readyz", func() bool {
			return !strings.Contains(string(srv.Do(http.MethodGet, "/readyz").Body), "mirror")
		})
		// The admin API's view: the key, both destinations caught up, the
		// failure in the log.
		var got statusd.AdminMirror
		r := srv.Authed(http.MethodGet, testserver.AdminRoot+"/mirror", tok, "")
		if err := json.Unmarshal(r.Body, &got); err != nil || r.Status != http.StatusOK {
			t.Fatalf("GET /mirror: %d %s", r.Status, r.Body)
		}
		if got.PublicKey != string(mirror.PublicKeyPEM(pub)) {
			t.Errorf("GET /mirror: public key %q", got.PublicKey)
		}
		if len(got.Destinations) != 2 {
			t.Fatalf("GET /mirror: destinations %+v", got.Destinations)
		}
		for _, d := range got.Destinations {
			if d.Failures != 0 || d.LastSuccessAt == nil || d.NextAttemptAt != nil {
				t.Errorf("GET /mirror: %+v, want caught up", d)
			}
		}
		var failed bool
		for _, p := range got.Pushes {
			failed = failed || (p.URL == "s3://status-copy/www" && strings.Contains(p.Error, "ServiceUnavailable") && p.FilesPut == 0)
		}
		if !failed {
			t.Errorf("the delivery log holds no failed push to the bucket: %+v", got.Pushes)
		}
		// Prometheus has each destination's last success.
		fams := testserver.Scrape(t, srv.URL, tok)
		for _, d := range got.Destinations {
			v, ok := testserver.MetricValue(fams, "statusd_mirror_last_success_timestamp_seconds", "destination", d.URL)
			if want := float64(d.LastSuccessAt.UnixMilli()) / 1000; !ok || v != want {
				t.Errorf("statusd_mirror_last_success_timestamp_seconds{destination=%q} = %v (%v), want %v", d.URL, v, ok, want)
			}
		}
		// The console's delivery log shows the key and the destinations.
		one := srv.In(t)
		one.AdminURL = srv.URL // the console is on the one listener
		viewer := signIn(t, one, srv.Admin(tok), "viewer@acme.test", "viewer")
		page := html.UnescapeString(viewer.do(http.MethodGet, "/manage/deliveries", nil).body)
		for _, want := range []string{got.PublicKey, "<td>s3://status-copy/www</td><td>" + strconv.FormatInt(got.Destinations[1].Sequence, 10) + "</td>"} {
			if !strings.Contains(page, want) {
				t.Errorf("the console's delivery log lacks %q", want)
			}
		}
	})

	testserver.Step(t, "a heartbeat rewrites the manifest alone", func(t *testing.T) {
		before := sites[0].manifest(t)
		puts := sum(s3.Puts())
		clk.Add(mirror.DefaultHeartbeat)
		man := sites[1].waitSequence(t, before.Sequence+1)
		if !man.GeneratedAt.Equal(clk.Now()) {
			t.Errorf("generated_at %v, want %v", man.GeneratedAt, clk.Now())
		}
		// Five minutes move the open incidents' impact and the uptime:
		// those files, and the manifest and its signature.
		if n := sum(s3.Puts()) - puts; n > 40 {
			t.Errorf("the heartbeat put %d files", n)
		}
	})
}

// s3Objects reads an S3 server's objects from its store, past its
// refusals.
type s3Objects struct {
	s      *testenv.S3Server
	prefix string
}

func (o s3Objects) Get(_ context.Context, key string) ([]byte, error) {
	b, _, ok := o.s.Object(o.prefix + key)
	if !ok {
		return nil, fs.ErrNotExist
	}
	return b, nil
}

func (o s3Objects) Put(context.Context, string, []byte, string) error {
	return errors.New("s3Objects only reads")
}
func (o s3Objects) Delete(context.Context, string) error { return errors.New("s3Objects only reads") }
func (o s3Objects) String() string                       { return "the S3 server's store" }

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// waitFor polls ok for 15 s.
func waitFor(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after 15 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMirrorReplicas: two servers on one PostgreSQL database push to one
// folder; five writes through both leave one writer at a time: each
// manifest's sequence once, every copy whole, the last one the page's.
func TestMirrorReplicas(t *testing.T) {
	db := testenv.Postgres(t)
	dir := t.TempDir()
	o := options{db: db, mirrors: []mirror.Bucket{mirror.Dir(dir)}}
	a := startServer(t, testserver.Fixture(time.Now()), o)
	b := startServer(t, nil, o)
	tok := newToken(t, db, "ops")
	site := mirrorSite{mirror.Dir(dir), testserver.MirrorKey(t, db)}
	man := site.waitSequence(t, 1)
	for i := range 5 {
		srv := []*testserver.Server{a, b}[i%2]
		srv.AdminOK(http.MethodPatch, "/page", tok, fmt.Sprintf(`{"name":"Acme Status %d"}`, i), http.StatusOK)
		man = site.waitSequence(t, man.Sequence+1)
	}
	waitFor(t, "the last name in the copy", func() bool {
		man := site.manifest(t)
		body, _ := site.b.Get(context.Background(), man.Files["/api/v1/status"].Key)
		return strings.Contains(string(body), `"name":"Acme Status 4"`)
	})
	var got statusd.AdminMirror
	if err := json.Unmarshal(a.Authed(http.MethodGet, testserver.AdminRoot+"/mirror", tok, "").Body, &got); err != nil {
		t.Fatal(err)
	}
	seen := map[int64]bool{}
	for _, p := range got.Pushes {
		if p.Error != "" || seen[p.Sequence] {
			t.Errorf("push %+v: failed, or its sequence was written twice", p)
		}
		seen[p.Sequence] = true
	}
}
