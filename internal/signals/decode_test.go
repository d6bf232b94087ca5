package signals

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

func readTestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The expected batches are worked out by hand from the files in testdata
// (their README says where each comes from).
func TestDecodePayloads(t *testing.T) {
	amGroup := `{}/{severity="page"}:{alertname="InstanceDown"}`
	amURL := "http://prometheus.example.com:9090/graph?g0.expr=up+%3D%3D+0&g0.tab=1"
	kumaLabels := map[string]string{"monitor_id": "7", "monitor_name": "API health", "monitor_type": "http"}
	gatusLabels := map[string]string{"statusd_component": "website", "endpoint": "website", "group": ""}
	tests := []struct {
		file   string
		format Format
		want   Batch
	}{
		{"alertmanager.json", Alertmanager, Batch{
			Receiver:    "statusd",
			ExternalURL: "http://alertmanager.example.com:9093",
			Alerts: []Alert{{
				Key:    "3f9a1c2b7d4e5f60",
				Status: Firing,
				Labels: map[string]string{"alertname": "InstanceDown", "instance": "api-1:9100", "job": "api",
					"severity": "page", "statusd_component": "api"},
				Annotations: map[string]string{"summary": "Instance api-1:9100 down",
					"description": "api-1:9100 of job api has been down for more than 5 minutes."},
				URL:      amURL,
				StartsAt: time.Date(2026, 3, 4, 10, 15, 30, 123456789, time.UTC),
				Group:    amGroup,
			}, {
				Key:    "a07e2b91c4d3e8f5",
				Status: Resolved,
				Labels: map[string]string{"alertname": "InstanceDown", "instance": "api-2:9100", "job": "api",
					"severity": "page", "statusd_component": "api"},
				Annotations: map[string]string{},
				URL:         amURL,
				StartsAt:    time.Date(2026, 3, 4, 8, 58, 0, 0, time.UTC),
				EndsAt:      time.Date(2026, 3, 4, 9, 12, 45, 500_000_000, time.UTC),
				Group:       amGroup,
			}},
		}},
		{"grafana.json", Grafana, Batch{
			Receiver:    "My Super Webhook",
			ExternalURL: "https://play.grafana.org/",
			Alerts: []Alert{{
				Key:    "c6eadffa33fcdf37",
				Status: Firing,
				Labels: map[string]string{"alertname": "High memory usage", "team": "blue", "zone": "us-1"},
				Annotations: map[string]string{"description": "The system has high memory usage",
					"runbook_url": "https://myrunbook.com/runbook/1234", "summary": "This alert was triggered for zone us-1"},
				URL:      "https://play.grafana.org/alerting/1afz29v7z/edit",
				StartsAt: time.Date(2021, 10, 12, 7, 51, 3, 157076000, time.UTC),
				Group:    "{}:{}",
			}, {
				Key:    "bc97ff14869b13e3",
				Status: Firing,
				Labels: map[string]string{"alertname": "High CPU usage", "team": "blue", "zone": "eu-1"},
				Annotations: map[string]string{"description": "The system has high CPU usage",
					"runbook_url": "https://myrunbook.com/runbook/1234", "summary": "This alert was triggered for zone eu-1"},
				URL:      "https://play.grafana.org/alerting/d1rdpdv7k/edit",
				StartsAt: time.Date(2021, 10, 12, 7, 56, 3, 157076000, time.UTC),
				Group:    "{}:{}",
			}},
		}},
		{"uptime_kuma_down.json", UptimeKuma, Batch{Alerts: []Alert{{
			Key:         "kuma:7",
			Status:      Firing,
			Labels:      kumaLabels,
			Annotations: map[string]string{"msg": "[API health] [🔴 Down] Request failed with status code 503"},
			URL:         "https://api.example.com/healthz",
			StartsAt:    time.Date(2026, 3, 4, 10, 15, 30, 482_000_000, time.UTC),
		}}}},
		{"uptime_kuma_up.json", UptimeKuma, Batch{Alerts: []Alert{{
			Key:         "kuma:7",
			Status:      Resolved,
			Labels:      kumaLabels,
			Annotations: map[string]string{"msg": "[API health] [✅ Up] 200 - OK"},
			URL:         "https://api.example.com/healthz",
			StartsAt:    time.Date(2026, 3, 4, 10, 15, 30, 482_000_000, time.UTC),
			EndsAt:      time.Date(2026, 3, 4, 10, 24, 31, 7_000_000, time.UTC),
		}}}},
		{"uptime_kuma_test.json", UptimeKuma, Batch{Test: true}},
		{"gatus_triggered.json", Generic, Batch{Alerts: []Alert{{
			Key:    "gatus:/website",
			Status: Firing,
			Labels: gatusLabels,
			Annotations: map[string]string{"description": "health check failed",
				"errors": `Get "https://twin.sh/health": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`},
			URL: "https://twin.sh/health",
		}}}},
		{"gatus_resolved.json", Generic, Batch{Alerts: []Alert{{
			Key:         "gatus:/website",
			Status:      Resolved,
			Labels:      gatusLabels,
			Annotations: map[string]string{"description": "health check failed", "errors": ""},
			URL:         "https://twin.sh/health",
		}}}},
		{"datadog.json", Generic, Batch{Alerts: []Alert{{
			Key:    "9bd4ac313a4d1e8fae2482df7b77628",
			Status: Firing,
			Labels: map[string]string{"monitor_id": "1234", "priority": "P1",
				"scope": "availability-zone:us-east-1a, role:computing-node"},
			Annotations: map[string]string{"title": "[Triggered on {host:ip-012345}] Host is Down",
				"summary": "system.load.1 over host:my-host was > 0 at least once during the last 1m"},
			URL: "https://app.datadoghq.com/monitors/1234",
		}, {
			Key:         "5f1c0b7e2a9d4c3b8e6f1a2d3c4b5a69",
			Status:      Resolved,
			Labels:      map[string]string{"monitor_id": "1235", "priority": "P2", "scope": "host:db-1"},
			Annotations: map[string]string{"title": "[Recovered on {host:db-1}] Disk almost full"},
			URL:         "https://app.datadoghq.com/monitors/1235",
		}}}},
		{"script.json", Generic, Batch{Alerts: []Alert{{
			Key:         "backup-nightly",
			Status:      Resolved,
			Labels:      map[string]string{"component": "backups,storage"},
			Annotations: map[string]string{"statusd_summary": "The nightly backup finished late."},
			StartsAt:    time.Date(2026, 3, 4, 0, 0, 0, 0, time.UTC),
			EndsAt:      time.Date(2026, 3, 4, 3, 30, 15, 250_000_000, time.UTC),
		}}}},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			got, err := Decode(tt.format, readTestdata(t, tt.file))
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Decode:\n got %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

// Each sender's body read as another format is refused: a source of the
// wrong format does not take in alerts by chance.
func TestDecodeOtherFormat(t *testing.T) {
	tests := []struct {
		file   string
		format Format
		path   string
	}{
		{"alertmanager.json", Grafana, "version"},
		{"grafana.json", Alertmanager, "version"},
		{"uptime_kuma_down.json", Alertmanager, "version"},
		{"gatus_triggered.json", UptimeKuma, "heartbeat"},
		{"alertmanager.json", Generic, "dedup_key"},
		{"uptime_kuma_test.json", Generic, "dedup_key"},
	}
	for _, tt := range tests {
		_, err := Decode(tt.format, readTestdata(t, tt.file))
		if code := statusd.ErrorCode(err); code != statusd.EInvalidField {
			t.Errorf("%s as %s: code %s (%v), want invalid_field", tt.file, tt.format, code, err)
			continue
		}
		if p := statusd.ProblemsOf(err); len(p) == 0 || p[0].Path != tt.path {
			t.Errorf("%s as %s: problems %v, want the first at %s", tt.file, tt.format, p, tt.path)
		}
	}
}

func TestDecodeVersionMessage(t *testing.T) {
	_, err := Decode(Alertmanager, readTestdata(t, "grafana.json"))
	want := `invalid_field: version: is "1"; Alertmanager's webhook body has version "4"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
	_, err = Decode(Grafana, readTestdata(t, "alertmanager.json"))
	want = `invalid_field: version: is "4"; the body of Grafana's webhook contact point has version "1"`
	if err == nil || err.Error() != want {
		t.Errorf("got %v, want %s", err, want)
	}
}

func TestDecodeUptimeKumaNoChange(t *testing.T) {
	down := string(readTestdata(t, "uptime_kuma_down.json"))
	for _, status := range []string{"2", "3"} { // PENDING, MAINTENANCE
		body := strings.Replace(down, `"status": 0,`, `"status": `+status+`,`, 1)
		b, err := Decode(UptimeKuma, []byte(body))
		if err != nil {
			t.Fatalf("status %s: %v", status, err)
		}
		if len(b.Alerts) != 1 || b.Alerts[0].Status != Unchanged || b.Alerts[0].Key != "kuma:7" ||
			!b.Alerts[0].StartsAt.IsZero() || !b.Alerts[0].EndsAt.IsZero() {
			t.Errorf("status %s: got %+v, want one unchanged alert kuma:7 without times", status, b.Alerts)
		}
	}
}

// Uptime Kuma leaves "https://" in the url of a monitor that is not an
// HTTP one; that is no link.
func TestDecodeUptimeKumaURL(t *testing.T) {
	down := string(readTestdata(t, "uptime_kuma_down.json"))
	for url, want := range map[string]string{
		`"https://"`:                "",
		`null`:                      "",
		`"ftp://files.example.com"`: "",
		`"http://10.0.0.1:8080/x"`:  "http://10.0.0.1:8080/x",
	} {
		body := strings.Replace(down, `"url": "https://api.example.com/healthz"`, `"url": `+url, 1)
		b, err := Decode(UptimeKuma, []byte(body))
		if err != nil {
			t.Fatalf("url %s: %v", url, err)
		}
		if got := b.Alerts[0].URL; got != want {
			t.Errorf("url %s: got %q, want %q", url, got, want)
		}
	}
}

func TestDecodeGenericStatusWords(t *testing.T) {
	for word, want := range map[string]Status{
		"firing": Firing, "FIRING": Firing, "Triggered": Firing, "TRIGGERED": Firing, "problem": Firing, "PrObLeM": Firing,
		"resolved": Resolved, "Resolved": Resolved, "ok": Resolved, "OK": Resolved, "recovered": Resolved, "Recovered": Resolved,
	} {
		b, err := Decode(Generic, []byte(`{"dedup_key": "k", "status": "`+word+`"}`))
		if err != nil {
			t.Errorf("%s: %v", word, err)
			continue
		}
		if got := b.Alerts[0].Status; got != want {
			t.Errorf("%s: got %s, want %s", word, got, want)
		}
	}
	for _, word := range []string{"Re-Triggered", "warn", "No Data", "down", "up", " ok", "firing\n", "unchanged"} {
		_, err := Decode(Generic, []byte(`{"dedup_key": "k", "status": "`+strings.ReplaceAll(word, "\n", `\n`)+`"}`))
		if p := statusd.ProblemsOf(err); len(p) != 1 || p[0].Path != "status" {
			t.Errorf("%q: got %v, want a problem at status", word, err)
		}
	}
}

func TestDecodeRefusals(t *testing.T) {
	type problem = statusd.Problem
	tests := []struct {
		name     string
		format   Format
		body     string
		code     string
		problems []problem // exactly these, in this order
	}{
		{"not JSON", Alertmanager, `{"version": "4",`, statusd.EInvalidBody, nil},
		{"empty", Generic, ``, statusd.EInvalidBody, nil},
		{"not UTF-8", Generic, "{\"dedup_key\": \"\xff\", \"status\": \"ok\"}", statusd.EInvalidBody, nil},
		{"two values", Generic, `{"dedup_key": "k", "status": "ok"} {}`, statusd.EInvalidBody, nil},
		{"not an object", Grafana, `[{"version": "1"}]`, statusd.EInvalidField,
			[]problem{{Path: "", Message: "the body must be a JSON object"}}},
		{"no version", Alertmanager, `{"alerts": []}`, statusd.EInvalidField,
			[]problem{{Path: "version", Message: "is required"}}},
		{"version a number", Alertmanager, `{"version": 4, "alerts": []}`, statusd.EInvalidField,
			[]problem{{Path: "version", Message: "must be a string"}}},
		{"version 3", Alertmanager, `{"version": "3", "alerts": "x"}`, statusd.EInvalidField,
			[]problem{{Path: "version", Message: `is "3"; Alertmanager's webhook body has version "4"`}}},
		{"no alerts", Grafana, `{"version": "1"}`, statusd.EInvalidField,
			[]problem{{Path: "alerts", Message: "is required"}}},
		{"alerts null", Alertmanager, `{"version": "4", "alerts": null}`, statusd.EInvalidField,
			[]problem{{Path: "alerts", Message: "must be an array"}}},
		{"no fingerprint", Alertmanager, `{"version": "4", "alerts": [{"status": "firing"}]}`, statusd.EInvalidField,
			[]problem{{Path: "alerts[0].fingerprint", Message: "is required"}}},
		{"status unknown", Grafana, `{"version": "1", "alerts": [{"fingerprint": "f", "status": "pending"}]}`, statusd.EInvalidField,
			[]problem{{Path: "alerts[0].status", Message: `must be "firing" or "resolved", not "pending"`}}},
		{"NUL in a label", Alertmanager, `{"version": "4", "alerts": [{"fingerprint": "f", "status": "firing", "labels": {"x": "a\u0000"}}]}`,
			statusd.EInvalidField, []problem{{Path: "alerts[0].labels.x", Message: `holds a NUL character (\u0000)`}}},
		{"every problem, alertmanager", Alertmanager, `{"version": "4", "truncatedAlerts": -1, "groupKey": 5, "alerts": [
			{"status": "pending", "labels": {"a": 1}, "startsAt": "yesterday"},
			"x",
			{"fingerprint": "", "status": "firing", "annotations": "text"},
			{"fingerprint": "a\u0001b", "status": "resolved", "labels": {"bad\u0007": "v", "": "w"}}]}`,
			statusd.EInvalidField, []problem{
				{Path: "truncatedAlerts", Message: "must not be negative"},
				{Path: "groupKey", Message: "must be a string"},
				{Path: "alerts[0].fingerprint", Message: "is required"},
				{Path: "alerts[0].labels.a", Message: "must be a string"},
				{Path: "alerts[0].startsAt", Message: `must be a time like 2026-01-01T00:00:00Z (RFC 3339), not "yesterday"`},
				{Path: "alerts[0].status", Message: `must be "firing" or "resolved", not "pending"`},
				{Path: "alerts[1]", Message: "must be an object"},
				{Path: "alerts[2].fingerprint", Message: "must not be empty"},
				{Path: "alerts[2].annotations", Message: "must be an object of strings"},
				{Path: "alerts[3].fingerprint", Message: "holds a control character"},
				{Path: "alerts[3].labels", Message: "has an empty name"},
				{Path: "alerts[3].labels", Message: `the name "bad\a" holds a control character`},
			}},
		{"kuma without keys", UptimeKuma, `{"msg": "hello"}`, statusd.EInvalidField, []problem{
			{Path: "heartbeat", Message: "is required (null in a test message)"},
			{Path: "monitor", Message: "is required (null in a test message)"},
		}},
		{"kuma heartbeat null alone", UptimeKuma, `{"heartbeat": null, "monitor": {"id": 1}}`, statusd.EInvalidField,
			[]problem{{Path: "heartbeat", Message: "must be an object"}}},
		{"every problem, kuma", UptimeKuma, `{"heartbeat": {"status": "0", "time": "04/03/2026"}, "monitor": {"id": 1.5, "name": 7}, "msg": 1}`,
			statusd.EInvalidField, []problem{
				{Path: "msg", Message: "must be a string"},
				{Path: "monitor.id", Message: "must be an integer, not 1.5"},
				{Path: "monitor.name", Message: "must be a string"},
				{Path: "heartbeat.time", Message: `must be a time like 2026-01-01 00:00:00.000 (UTC), not "04/03/2026"`},
				{Path: "heartbeat.status", Message: "must be an integer"},
			}},
		{"kuma without ids", UptimeKuma, `{"heartbeat": {}, "monitor": {}}`, statusd.EInvalidField, []problem{
			{Path: "monitor.id", Message: "is required"},
			{Path: "heartbeat.status", Message: "is required"},
		}},
		{"generic without status", Generic, `{"dedup_key": "k"}`, statusd.EInvalidField,
			[]problem{{Path: "status", Message: "is required"}}},
		{"generic events not an array", Generic, `{"events": {"dedup_key": "k", "status": "ok"}}`, statusd.EInvalidField,
			[]problem{{Path: "events", Message: "must be an array"}}},
		{"every problem, generic", Generic, `{"events": [
			{"status": "warn", "labels": {"x": null}},
			{"dedup_key": 5, "status": "OK", "started_at": "2026-03-04 10:00"},
			{"dedup_key": "k\n", "status": "", "url": 3, "ended_at": 1}]}`,
			statusd.EInvalidField, []problem{
				{Path: "events[0].dedup_key", Message: "is required"},
				{Path: "events[0].labels.x", Message: "must be a string"},
				{Path: "events[0].status", Message: `"warn" is not a status: firing, triggered or problem; resolved, ok or recovered`},
				{Path: "events[1].dedup_key", Message: "must be a string"},
				{Path: "events[1].started_at", Message: `must be a time like 2026-01-01T00:00:00Z (RFC 3339), not "2026-03-04 10:00"`},
				{Path: "events[2].dedup_key", Message: "holds a control character"},
				{Path: "events[2].url", Message: "must be a string"},
				{Path: "events[2].ended_at", Message: "must be a string"},
				{Path: "events[2].status", Message: "must not be empty"},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := Decode(tt.format, []byte(tt.body))
			var e *statusd.Error
			if !errors.As(err, &e) {
				t.Fatalf("got %+v, %v; want a *statusd.Error", b, err)
			}
			if e.Code != tt.code {
				t.Errorf("code %s (%v), want %s", e.Code, err, tt.code)
			}
			if !reflect.DeepEqual(e.Problems, tt.problems) {
				t.Errorf("problems\n got %q\nwant %q", e.Problems, tt.problems)
			}
			if !reflect.DeepEqual(b, Batch{}) {
				t.Errorf("a refused body gave %+v", b)
			}
		})
	}
}

func TestDecodeLimits(t *testing.T) {
	alerts := func(n int) string {
		a := make([]string, n)
		for i := range a {
			a[i] = `{"fingerprint": "f", "status": "firing"}`
		}
		return "[" + strings.Join(a, ",") + "]"
	}
	events := func(n int) string {
		return strings.ReplaceAll(strings.ReplaceAll(alerts(n), "fingerprint", "dedup_key"), "firing", "ok")
	}
	pad := func(body string, size int) string { return body + strings.Repeat(" ", size-len(body)) }
	event := `{"dedup_key": "k", "status": "ok"}`
	tests := []struct {
		name   string
		format Format
		body   string
		code   string // "" for accepted
	}{
		{"1000 alerts", Alertmanager, `{"version": "4", "alerts": ` + alerts(MaxAlerts) + `}`, ""},
		{"1001 alerts", Alertmanager, `{"version": "4", "alerts": ` + alerts(MaxAlerts+1) + `}`, statusd.ETooLarge},
		{"1001 alerts, grafana", Grafana, `{"version": "1", "alerts": ` + alerts(MaxAlerts+1) + `}`, statusd.ETooLarge},
		{"1000 events", Generic, `{"events": ` + events(MaxAlerts) + `}`, ""},
		{"1001 events", Generic, `{"events": ` + events(MaxAlerts+1) + `}`, statusd.ETooLarge},
		{"MaxBody bytes", Generic, pad(event, MaxBody), ""},
		{"MaxBody+1 bytes", Generic, pad(event, MaxBody+1), statusd.ETooLarge},
		{"MaxBody+1 bytes of garbage", Generic, pad("x", MaxBody+1), statusd.ETooLarge},
	}
	for _, tt := range tests {
		b, err := Decode(tt.format, []byte(tt.body))
		switch {
		case tt.code == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.code == "" && len(b.Alerts) == 0:
			t.Errorf("%s: no alerts", tt.name)
		case tt.code != "" && statusd.ErrorCode(err) != tt.code:
			t.Errorf("%s: got %v, want code %s", tt.name, err, tt.code)
		}
	}
}

func TestFormat(t *testing.T) {
	for _, f := range []Format{Alertmanager, Grafana, UptimeKuma, Generic} {
		if !f.Valid() {
			t.Errorf("%s is not valid", f)
		}
	}
	for _, f := range []Format{"", "prometheus", "Generic", "uptime-kuma"} {
		if f.Valid() {
			t.Errorf("%q is valid", f)
		}
		if _, err := Decode(f, []byte(`{"dedup_key": "k", "status": "ok"}`)); err == nil {
			t.Errorf("Decode(%q) took a body", f)
		}
	}
}
