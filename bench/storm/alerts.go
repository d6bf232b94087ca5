package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/statusd/statusd"
)

// withKeys reads the import document at page, gives its components the
// keys c1, c2, ... in document order, writes it to out, and returns the
// keys of the components that no open incident and no underway
// maintenance lists, split into groups groups of consecutive keys: the
// storms' alerts name those, so that each group makes a draft of its own
// rather than join a notice.
func withKeys(page, out string, groups int) ([][]string, error) {
	f, err := os.Open(page)
	if err != nil {
		return nil, err
	}
	doc, err := statusd.DecodeDocument(bufio.NewReader(f))
	f.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", page, err)
	}
	busy := map[int64]bool{}
	for i := range doc.Notices {
		n := &doc.Notices[i]
		if n.IsUnderway() || n.Type == statusd.Unplanned && !statusd.IsClosed(n.Type, n.State()) {
			for _, id := range n.ComponentIDs {
				busy[id] = true
			}
		}
	}
	var free []string
	for i := range doc.Components {
		c := &doc.Components[i]
		c.Key = "c" + strconv.Itoa(i+1)
		if !busy[c.ID] {
			free = append(free, c.Key)
		}
	}
	if len(free) < groups {
		return nil, fmt.Errorf("%s has %d components that no current notice lists; the storms need at least %d (-groups)", page, len(free), groups)
	}
	w, err := os.Create(out)
	if err != nil {
		return nil, err
	}
	bw := bufio.NewWriter(w)
	if err := statusd.EncodeDocument(bw, doc); err != nil {
		w.Close()
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		w.Close()
		return nil, err
	}
	return split(free, groups), w.Close()
}

// split cuts keys into n groups of consecutive keys, as even as can be.
func split(keys []string, n int) [][]string {
	out := make([][]string, n)
	for g := range n {
		out[g] = keys[g*len(keys)/n : (g+1)*len(keys)/n]
	}
	return out
}

// amBody is Alertmanager's webhook body, version "4"
// (internal/signals/testdata/alertmanager.json).
type amBody struct {
	Receiver          string            `json:"receiver"`
	Status            string            `json:"status"`
	Alerts            []amAlert         `json:"alerts"`
	GroupLabels       map[string]string `json:"groupLabels"`
	CommonLabels      map[string]string `json:"commonLabels"`
	CommonAnnotations map[string]string `json:"commonAnnotations"`
	ExternalURL       string            `json:"externalURL"`
	Version           string            `json:"version"`
	GroupKey          string            `json:"groupKey"`
	TruncatedAlerts   int               `json:"truncatedAlerts"`
}

// amAlert is one alert of an amBody.
type amAlert struct {
	Status       string            `json:"status"`
	Labels       map[string]string `json:"labels"`
	Annotations  map[string]string `json:"annotations"`
	StartsAt     string            `json:"startsAt"`
	EndsAt       string            `json:"endsAt"`
	GeneratorURL string            `json:"generatorURL"`
	Fingerprint  string            `json:"fingerprint"`
}

// alertNames are the alerts' names, one for each group of components
// (taken in turn when there are more groups).
var alertNames = []string{"HighErrorRate", "InstanceDown", "HighLatency", "DiskFull", "QueueBacklog", "CertificateExpiry"}

// storm describes the bodies of one storm.
type storm struct {
	// Number is the firing storm's number (from 1), which its recovery
	// shares: the alerts' fingerprints are made of it, so every firing
	// storm brings new signals and its recovery resolves them.
	Number int
	// Resolved makes the recovery: the same alerts, resolved at At.
	Resolved bool
	// Requests bodies of PerBody alerts each.
	Requests, PerBody int
	// Groups are the component keys, in groups (withKeys): body b's
	// alerts name the keys of group b mod len(Groups), in turn.
	Groups [][]string
	// StartsAt is when the alerts started firing; At is when they
	// resolved (Resolved only).
	StartsAt, At time.Time
}

// fingerprint is alert i of body b of firing storm n: 16 hex digits, as
// Alertmanager's, distinct for every (n, b, i) of a run.
func fingerprint(n, b, i, perBody int) string {
	return fmt.Sprintf("%08x%08x", n, b*perBody+i)
}

// bodies returns the storm's bodies, JSON-encoded. Body b holds PerBody
// alerts, all of alertname alertNames[g] and job storm-b (its groupKey
// groups by both, so every body is a group of its own), on the components
// of group g = b mod len(Groups), spread evenly over them; severity is
// critical for one alert in four, else warning.
func (s storm) bodies() ([][]byte, error) {
	status, ends := "firing", "0001-01-01T00:00:00Z" // Alertmanager's "no end"
	if s.Resolved {
		status, ends = "resolved", s.At.UTC().Format(time.RFC3339Nano)
	}
	out := make([][]byte, s.Requests)
	for b := range s.Requests {
		g := b % len(s.Groups)
		keys := s.Groups[g]
		name, job := alertNames[g%len(alertNames)], "storm-"+strconv.Itoa(b)
		body := amBody{Receiver: "statusd", Status: status, Alerts: make([]amAlert, s.PerBody), Version: "4",
			GroupLabels:       map[string]string{"alertname": name, "job": job},
			CommonLabels:      map[string]string{"alertname": name, "job": job},
			CommonAnnotations: map[string]string{},
			ExternalURL:       "http://alertmanager.storm.test:9093",
			GroupKey:          fmt.Sprintf(`{}:{alertname=%q, job=%q}`, name, job)}
		for i := range s.PerBody {
			severity := "warning"
			if i%4 == 0 {
				severity = "critical"
			}
			instance := fmt.Sprintf("node-%d-%d:9100", b, i)
			body.Alerts[i] = amAlert{Status: status,
				Labels: map[string]string{"alertname": name, "job": job, "instance": instance, "severity": severity,
					"statusd_component": keys[i%len(keys)]},
				Annotations: map[string]string{"summary": name + " on " + instance,
					"description": fmt.Sprintf("%s has fired on %s for more than 5 minutes.", name, instance)},
				StartsAt:     s.StartsAt.UTC().Format(time.RFC3339Nano),
				EndsAt:       ends,
				GeneratorURL: "http://prometheus.storm.test:9090/graph?g0.expr=" + name + "&g0.tab=1",
				Fingerprint:  fingerprint(s.Number, b, i, s.PerBody)}
		}
		j, err := json.Marshal(body)
		if err != nil {
			return nil, err
		}
		out[b] = j
	}
	return out, nil
}
