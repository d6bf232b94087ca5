package testenv

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// AlertmanagerVersion is the version of Prometheus Alertmanager that
// Alertmanager runs, as bench/alertmanager.sh builds it.
const AlertmanagerVersion = "v0.35.0"

// amHow says how to get the binary when it cannot be had.
const amHow = "bash bench/alertmanager.sh builds it (needs Go 1.26 and the Go module proxy, about a minute once per machine)"

// The timing of the one route. group_wait is short but not zero, so the
// alerts of one POST reach the receiver in one notification; group_interval
// is how long a change to a group (a new alert, a resolved one) waits
// before it is sent. Alertmanager takes durations below a second;
// group_interval cannot be zero.
const (
	amGroupWait     = 200 * time.Millisecond
	amGroupInterval = 500 * time.Millisecond
)

var (
	amOnce sync.Once
	amBin  string
	amErr  error // why there is no binary; with amFatal, a bug rather than a missing tool
	// amFatal is set when the script and this file disagree on where the
	// binary is: a mistake in one of them, never something to skip.
	amFatal bool
)

// AlertmanagerBinary returns the path of an Alertmanager v0.35.0 binary,
// built once per machine by bench/alertmanager.sh into the user's cache
// folder (os.UserCacheDir, then statusd-test/alertmanager-v0.35.0). Without
// bash, Go or the module proxy, the test is skipped (fails under CI=true)
// with a message that says how to get it.
func AlertmanagerBinary(t testing.TB) string {
	t.Helper()
	amOnce.Do(func() {
		start := time.Now()
		amBin, amErr = buildAlertmanager()
		if took := time.Since(start); amErr == nil && took > 2*time.Second {
			t.Logf("built Alertmanager %s in %s: %s", AlertmanagerVersion, took.Round(time.Second), amBin)
		}
	})
	if amFatal {
		t.Fatal(amErr)
	}
	if amErr != nil {
		unavailable(t, "Alertmanager "+AlertmanagerVersion, amErr.Error()+"; "+amHow)
	}
	return amBin
}

// amCachePath is where bench/alertmanager.sh keeps the binary.
func amCachePath() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "statusd-test", "alertmanager-"+AlertmanagerVersion, "alertmanager"), nil
}

// buildAlertmanager runs bench/alertmanager.sh, the one way the binary is
// built, and checks that the path it prints is the one amCachePath says.
func buildAlertmanager() (string, error) {
	want, err := amCachePath()
	if err != nil {
		return "", fmt.Errorf("no cache folder for the binary: %v", err)
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		return "", errors.New("bash is needed to run bench/alertmanager.sh")
	}
	script, err := amScript()
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bash, script)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s: %v\n%s", script, err, strings.TrimSpace(stderr.String()))
	}
	got := strings.TrimSpace(stdout.String())
	if got != want {
		amFatal = true
		return "", fmt.Errorf("%s printed %q, but internal/testenv looks for the binary at %q: make them agree", script, got, want)
	}
	return got, nil
}

// amScript finds bench/alertmanager.sh in the module that holds the
// working folder (a test runs in its package's folder).
func amScript() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if b, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil && bytes.HasPrefix(b, []byte("module github.com/statusd/statusd\n")) {
			return filepath.Join(dir, "bench", "alertmanager.sh"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("bench/alertmanager.sh not found: the working folder is not inside the statusd module")
		}
		dir = parent
	}
}

// amConfig is the configuration Alertmanager runs with: one route to one
// webhook receiver. The URL and the token are written as JSON strings,
// which YAML reads as double-quoted strings.
func amConfig(webhookURL, token string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return `route:
  receiver: statusd
  group_by: ['alertname']
  group_wait: ` + amGroupWait.String() + `
  group_interval: ` + amGroupInterval.String() + `
  repeat_interval: 1h
receivers:
  - name: statusd
    webhook_configs:
      - url: ` + q(webhookURL) + `
        send_resolved: true
        http_config:
          authorization:
            type: Bearer
            credentials: ` + q(token) + `
`
}

// Alertmanager starts a real Prometheus Alertmanager (v0.35.0) whose one
// receiver posts every alert to webhookURL with the header
// "Authorization: Bearer <token>", and returns its base URL
// (http://127.0.0.1:port) for posting alerts (POST /api/v2/alerts, or
// PostAlerts). Alerts are grouped by alertname; a group's first
// notification leaves 200 ms after its first alert arrives (at once when
// the alert's startsAt is older than that), and a change (a new alert, a
// resolved one) within half a second: a test sees each notification within
// a second or so. Resolved alerts are sent too
// (send_resolved). It runs without clustering, its data in a temporary
// folder, and is stopped when the test ends.
func Alertmanager(t testing.TB, webhookURL, token string) string {
	t.Helper()
	bin := AlertmanagerBinary(t)
	dir := t.TempDir()
	config := filepath.Join(dir, "alertmanager.yml")
	if err := os.WriteFile(config, []byte(amConfig(webhookURL, token)), 0o600); err != nil {
		t.Fatal(err)
	}
	// The port was free a moment ago; another test binary running beside
	// this one may have taken it since, so a start that could not bind
	// tries another.
	for try := 1; ; try++ {
		port := FreePort(t)
		base := "http://127.0.0.1:" + strconv.Itoa(port)
		log := &LogBuffer{}
		cmd := exec.Command(bin,
			"--config.file="+config,
			"--storage.path="+filepath.Join(dir, "data"),
			"--web.listen-address=127.0.0.1:"+strconv.Itoa(port),
			// Its links (externalURL in a notification) name this address,
			// not the machine's host name.
			"--web.external-url="+base,
			"--cluster.listen-address=",
			"--log.level=warn")
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("starting Alertmanager: %v", err)
		}
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		stop := func() {
			cmd.Process.Signal(os.Interrupt) // Alertmanager stops on it as on SIGTERM
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
				cmd.Process.Kill()
				<-exited
			}
		}
		err := amReady(base, exited)
		if err == nil {
			t.Cleanup(stop)
			return base
		}
		stop()
		if try < 3 && strings.Contains(log.String(), "address already in use") {
			continue
		}
		t.Fatalf("Alertmanager did not start: %v\nits log:\n%s", err, log.String())
	}
}

// amReady waits until GET /-/ready answers 200, the process exits, or 30
// seconds pass.
func amReady(base string, exited <-chan struct{}) error {
	client := &http.Client{Timeout: time.Second}
	deadline := time.Now().Add(30 * time.Second)
	for {
		res, err := client.Get(base + "/-/ready")
		if err == nil {
			io.Copy(io.Discard, res.Body)
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				return nil
			}
			err = fmt.Errorf("GET /-/ready: %s", res.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready after 30 s: %v", err)
		}
		select {
		case <-exited:
			return errors.New("it exited")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// AMAlert is an alert as Alertmanager's API v2 takes it (POST
// /api/v2/alerts). A zero StartsAt is the time Alertmanager receives it; a
// zero EndsAt leaves it firing until resolve_timeout (5 minutes) passes
// without it being posted again; an EndsAt in the past resolves it.
type AMAlert struct {
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations,omitempty"`
	StartsAt     time.Time         `json:"startsAt,omitzero"`
	EndsAt       time.Time         `json:"endsAt,omitzero"`
	GeneratorURL string            `json:"generatorURL,omitempty"`
}

// PostAlerts posts the alerts to the Alertmanager at amURL (as Alertmanager
// returned it) in one request; anything but 200 fails the test.
func PostAlerts(t testing.TB, amURL string, alerts ...AMAlert) {
	t.Helper()
	if alerts == nil {
		alerts = []AMAlert{}
	}
	body, err := json.Marshal(alerts)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 10 * time.Second}
	res, err := client.Post(strings.TrimSuffix(amURL, "/")+"/api/v2/alerts", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatalf("posting alerts to Alertmanager: %v", err)
	}
	defer res.Body.Close()
	reply, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusOK {
		t.Fatalf("POST %s/api/v2/alerts: %s %s\nbody sent: %s", amURL, res.Status, bytes.TrimSpace(reply), body)
	}
}
