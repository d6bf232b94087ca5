package testenv

import (
	"bytes"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"testing"
	"time"
)

// amRequest is a request as the test's webhook receiver got it.
type amRequest struct {
	method, path, auth, contentType, userAgent string
	body                                       []byte
}

// amMessage is the part of Alertmanager's webhook body (version 4) that
// the test checks.
type amMessage struct {
	Version     string            `json:"version"`
	Status      string            `json:"status"`
	Receiver    string            `json:"receiver"`
	GroupKey    string            `json:"groupKey"`
	GroupLabels map[string]string `json:"groupLabels"`
	ExternalURL string            `json:"externalURL"`
	Alerts      []struct {
		Status       string            `json:"status"`
		Labels       map[string]string `json:"labels"`
		Annotations  map[string]string `json:"annotations"`
		StartsAt     time.Time         `json:"startsAt"`
		EndsAt       time.Time         `json:"endsAt"`
		GeneratorURL string            `json:"generatorURL"`
		Fingerprint  string            `json:"fingerprint"`
	} `json:"alerts"`
}

// The recorded body, internal/signals/testdata/alertmanager-real.json, is
// written again by
//
//	STATUSD_RECORD_ALERTMANAGER=1 go test ./internal/testenv -run TestAlertmanager
const amRecorded = "../signals/testdata/alertmanager-real.json"

// TestAlertmanager starts a real Alertmanager, posts a firing alert and then
// the same alert resolved, and checks the two notifications that its
// webhook receiver posts.
func TestAlertmanager(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs Alertmanager (a minute the first time on a machine)")
	}
	got := make(chan amRequest, 16)
	rec := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		got <- amRequest{r.Method, r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Content-Type"), r.Header.Get("User-Agent"), body}
	}))
	defer rec.Close()
	const token = "am-test-token-5f2c9e"
	started := time.Now()
	am := Alertmanager(t, rec.URL+"/hooks/alertmanager", token)
	t.Logf("Alertmanager at %s, started in %s", am, time.Since(started).Round(time.Millisecond))

	labels := map[string]string{"alertname": "HighLatency", "severity": "critical", "statusd_component": "api"}
	// As Prometheus posts an alert: with the time it began firing, here
	// half a minute ago.
	alert := AMAlert{
		Labels:       labels,
		StartsAt:     time.Now().Add(-30 * time.Second),
		Annotations:  map[string]string{"summary": "p99 latency of api above 2 s"},
		GeneratorURL: "http://prometheus.example:9090/graph?g0.expr=latency_p99%3E2",
	}
	// wait returns the next notification, which must come within 15 s.
	wait := func(what string) (amRequest, amMessage, time.Duration) {
		t.Helper()
		posted := time.Now()
		var r amRequest
		select {
		case r = <-got:
		case <-time.After(15 * time.Second):
			t.Fatalf("no %s notification within 15 s", what)
		}
		took := time.Since(posted)
		if r.method != http.MethodPost || r.path != "/hooks/alertmanager" {
			t.Errorf("%s: %s %s, want POST /hooks/alertmanager", what, r.method, r.path)
		}
		if r.auth != "Bearer "+token {
			t.Errorf("%s: Authorization %q, want %q", what, r.auth, "Bearer "+token)
		}
		if r.contentType != "application/json" {
			t.Errorf("%s: Content-Type %q", what, r.contentType)
		}
		if want := "Alertmanager/" + AlertmanagerVersion[1:]; r.userAgent != want {
			t.Errorf("%s: User-Agent %q, want %q", what, r.userAgent, want)
		}
		var m amMessage
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatalf("%s: body is not JSON: %v\n%s", what, err, r.body)
		}
		if m.Version != "4" || m.Receiver != "statusd" || m.ExternalURL != am ||
			!maps.Equal(m.GroupLabels, map[string]string{"alertname": "HighLatency"}) ||
			m.GroupKey != `{}:{alertname="HighLatency"}` {
			t.Errorf("%s: version %q receiver %q externalURL %q groupLabels %v groupKey %q, want 4, statusd, %s, alertname=HighLatency, {}:{alertname=\"HighLatency\"}",
				what, m.Version, m.Receiver, m.ExternalURL, m.GroupLabels, m.GroupKey, am)
		}
		if len(m.Alerts) != 1 {
			t.Fatalf("%s: %d alerts, want 1:\n%s", what, len(m.Alerts), r.body)
		}
		a := m.Alerts[0]
		if !maps.Equal(a.Labels, labels) || !maps.Equal(a.Annotations, alert.Annotations) || a.GeneratorURL != alert.GeneratorURL {
			t.Errorf("%s: alert labels %v annotations %v generatorURL %q, want %v %v %q",
				what, a.Labels, a.Annotations, a.GeneratorURL, labels, alert.Annotations, alert.GeneratorURL)
		}
		if !regexp.MustCompile(`^[0-9a-f]{16}$`).MatchString(a.Fingerprint) {
			t.Errorf("%s: fingerprint %q, want 16 hex digits", what, a.Fingerprint)
		}
		if !a.StartsAt.Equal(alert.StartsAt) {
			t.Errorf("%s: startsAt %s, want %s as posted", what, a.StartsAt, alert.StartsAt)
		}
		return r, m, took
	}

	PostAlerts(t, am, alert)
	firing, fm, took := wait("firing")
	t.Logf("firing notification %s after the POST", took.Round(time.Millisecond))
	if fm.Status != "firing" || fm.Alerts[0].Status != "firing" || !fm.Alerts[0].EndsAt.IsZero() {
		t.Errorf("firing: status %q, alert status %q, endsAt %s; want firing, firing, zero",
			fm.Status, fm.Alerts[0].Status, fm.Alerts[0].EndsAt)
	}

	// Resolved as Prometheus resolves it: the same startsAt, an endsAt in
	// the past.
	resolvedAt := time.Now().Add(-time.Second)
	alert.EndsAt = resolvedAt
	PostAlerts(t, am, alert)
	_, rm, took := wait("resolved")
	t.Logf("resolved notification %s after the POST", took.Round(time.Millisecond))
	ra := rm.Alerts[0]
	if rm.Status != "resolved" || ra.Status != "resolved" {
		t.Errorf("resolved: status %q, alert status %q; want resolved, resolved", rm.Status, ra.Status)
	}
	if !ra.EndsAt.Equal(resolvedAt) {
		t.Errorf("resolved: endsAt %s, want %s", ra.EndsAt, resolvedAt)
	}
	if ra.Fingerprint != fm.Alerts[0].Fingerprint {
		t.Errorf("resolved: fingerprint %s, want the firing alert's %s", ra.Fingerprint, fm.Alerts[0].Fingerprint)
	}
	// Resolved and sent, the alert is done: nothing more comes.
	select {
	case r := <-got:
		t.Errorf("a third notification:\n%s", r.body)
	case <-time.After(2 * amGroupInterval):
	}

	// Two alerts of a new group in one POST, without startsAt (Alertmanager
	// takes the time it receives them): group_wait holds the group long
	// enough for both to go in its first notification.
	disk := func(instance string) AMAlert {
		return AMAlert{Labels: map[string]string{"alertname": "DiskFull", "instance": instance, "statusd_component": "storage"}}
	}
	posted := time.Now()
	PostAlerts(t, am, disk("db-1"), disk("db-2"))
	select {
	case r := <-got:
		t.Logf("a group's first notification %s after the POST (group_wait %s)", time.Since(posted).Round(time.Millisecond), amGroupWait)
		var m amMessage
		if err := json.Unmarshal(r.body, &m); err != nil {
			t.Fatal(err)
		}
		var instances []string
		for _, a := range m.Alerts {
			if a.Status == "firing" {
				instances = append(instances, a.Labels["instance"])
			}
		}
		slices.Sort(instances)
		if m.Status != "firing" || !slices.Equal(instances, []string{"db-1", "db-2"}) || m.GroupKey != `{}:{alertname="DiskFull"}` {
			t.Errorf("DiskFull: status %q, firing instances %v, groupKey %q; want firing, [db-1 db-2], {}:{alertname=\"DiskFull\"}:\n%s",
				m.Status, instances, m.GroupKey, r.body)
		}
	case <-time.After(15 * time.Second):
		t.Fatal("no DiskFull notification within 15 s")
	}

	var pretty bytes.Buffer
	if err := json.Indent(&pretty, firing.body, "", "  "); err != nil {
		t.Fatal(err)
	}
	pretty.WriteByte('\n')
	if os.Getenv("STATUSD_RECORD_ALERTMANAGER") == "1" {
		if err := os.WriteFile(amRecorded, pretty.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("recorded the firing body in %s", filepath.Clean(amRecorded))
	}
	// The recorded body has the keys that Alertmanager sends now, at the
	// top and in each alert: the file still stands for what it sends.
	b, err := os.ReadFile(amRecorded)
	if err != nil {
		t.Fatal(err)
	}
	if want, have := amKeys(t, firing.body), amKeys(t, b); !slices.Equal(want, have) {
		t.Errorf("%s has the keys %v, Alertmanager sends %v: record it again (STATUSD_RECORD_ALERTMANAGER=1)", amRecorded, have, want)
	}
}

// amKeys lists the keys of a webhook body and of its alerts.
func amKeys(t *testing.T, body []byte) []string {
	t.Helper()
	var m struct {
		Alerts []map[string]json.RawMessage `json:"alerts"`
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(body, &m); err != nil {
		t.Fatal(err)
	}
	keys := slices.Collect(maps.Keys(top))
	for _, a := range m.Alerts {
		for k := range a {
			keys = append(keys, "alerts[]."+k)
		}
	}
	slices.Sort(keys)
	return slices.Compact(keys)
}
