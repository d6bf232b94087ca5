package main

import (
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd/internal/testserver"
)

// TestOperatorIncidentImpact: incident open and incident edit take
// --impact (CONTRACT C6), which the Statuspage v2 endpoints then show and
// notice show prints; another value is a usage error that sends nothing.
func TestOperatorIncidentImpact(t *testing.T) {
	srv, token := opSetup(t, opDoc(time.Now().UTC()))
	impact := func(id string) any {
		t.Helper()
		return testserver.At(t, srv.Get("/api/v2/incidents/"+id+".json", 200).JSON, "incident.impact")
	}
	out := opMust(t, srv, token, "incident", "open", "--component", "API", "-m", "Errors!", "--impact", "critical")
	id := opMatch(t, "open", out, `^opened incident (\d+) `)
	testserver.AssertJSON(t, "opened critical", impact(id), "critical")
	testserver.AssertJSON(t, "indicator", testserver.At(t, srv.Get("/api/v2/status.json", 200).JSON, "status.indicator"), "critical")

	opMust(t, srv, token, "incident", "edit", id, "--impact", "major")
	testserver.AssertJSON(t, "edited major", impact(id), "major")
	if show := opMust(t, srv, token, "notice", "show", id); !strings.Contains(show, "impact level") || !strings.Contains(show, "major") {
		t.Errorf("notice show:\n%s", show)
	}

	for _, args := range [][]string{
		{"incident", "open", "--component", "API", "-m", "Down.", "--impact", "severe"},
		{"incident", "edit", id, "--impact", "Major"},
	} {
		_, _, err := opCLI(t, srv, token, args...)
		if exitCode(err) != exitCodeUsage || !strings.Contains(err.Error(), `--impact: "`) || !strings.Contains(err.Error(), "is not an impact") {
			t.Errorf("statusd %s: exit %d, %v", strings.Join(args, " "), exitCode(err), err)
		}
	}
	testserver.AssertJSON(t, "after the refusals", impact(id), "major")
}
