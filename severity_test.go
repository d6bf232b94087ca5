package statusd

import (
	"bytes"
	"strings"
	"testing"
)

// TestDocumentImpact: an unplanned notice's optional impact (CONTRACT C5,
// C6) is read, absent meaning minor, exported only when not minor, and
// refused with its path when it is no impact or on another type.
func TestDocumentImpact(t *testing.T) {
	for _, tc := range []struct {
		impact any // nil: left out
		want   Severity
		level  Severity
	}{
		{nil, "", SeverityMinor},
		{"minor", SeverityMinor, SeverityMinor},
		{"major", SeverityMajor, SeverityMajor},
		{"critical", SeverityCritical, SeverityCritical},
	} {
		doc, err := DecodeDocument(strings.NewReader(c5Mutate(t, func(d c5obj) {
			if tc.impact != nil {
				d["notices"].([]any)[0].(c5obj)["impact"] = tc.impact
			}
		})))
		if err != nil {
			t.Fatalf("impact %v: %v", tc.impact, err)
		}
		n := doc.Notices[0]
		if n.Severity != tc.want || n.Severity.Level() != tc.level {
			t.Errorf("impact %v: severity %q (level %q), want %q (%q)", tc.impact, n.Severity, n.Severity.Level(), tc.want, tc.level)
		}
		var b bytes.Buffer
		if err := EncodeDocument(&b, doc); err != nil {
			t.Fatal(err)
		}
		exported := strings.Contains(b.String(), `"impact":`)
		if wantKey := tc.level != SeverityMinor; exported != wantKey {
			t.Errorf("impact %v: exported %v, want %v:\n%s", tc.impact, exported, wantKey, b.String())
		}
		back, err := DecodeDocument(&b)
		if err != nil || back.Notices[0].Severity.Level() != tc.level {
			t.Errorf("impact %v: read back %v, %v", tc.impact, back, err)
		}
	}
	for _, tc := range []struct {
		notice int
		impact any
		msg    string
	}{
		{0, "severe", `notices[0].impact: "severe" is not an impact (minor, major, critical)`},
		{0, "Major", `notices[0].impact: "Major" is not an impact (minor, major, critical)`},
		{0, 2, `notices[0].impact: must be a string`},
		{1, "major", `notices[1].impact: only unplanned notices have impact`},
		{2, "minor", `notices[2].impact: only unplanned notices have impact`},
	} {
		_, err := DecodeDocument(strings.NewReader(c5Mutate(t, func(d c5obj) {
			d["notices"].([]any)[tc.notice].(c5obj)["impact"] = tc.impact
		})))
		if err == nil || !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("notice %d impact %v: %v, want %s", tc.notice, tc.impact, err, tc.msg)
		}
	}
}

// TestSeverityRank: minor < major < critical, the zero value minor.
func TestSeverityRank(t *testing.T) {
	if !(Severity("").Rank() == SeverityMinor.Rank() && SeverityMinor.Rank() < SeverityMajor.Rank() &&
		SeverityMajor.Rank() < SeverityCritical.Rank()) {
		t.Errorf("ranks: %d %d %d %d", Severity("").Rank(), SeverityMinor.Rank(), SeverityMajor.Rank(), SeverityCritical.Rank())
	}
	if _, err := ParseSeverity(""); err == nil {
		t.Error(`ParseSeverity("") took it`)
	}
}
