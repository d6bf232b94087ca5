package statusd

import (
	"fmt"
	"slices"
)

// Severity is how badly an unplanned notice hurts, in the words of
// Statuspage's incident impact (CONTRACT C6): minor, major or critical.
// The zero value is minor, the default: a notice that says nothing is
// minor. Only the Statuspage v2 endpoints and the admin API show it.
type Severity string

// The severities.
const (
	SeverityMinor    Severity = "minor"
	SeverityMajor    Severity = "major"
	SeverityCritical Severity = "critical"
)

// Severities lists the severities, mildest first.
var Severities = []Severity{SeverityMinor, SeverityMajor, SeverityCritical}

// ParseSeverity returns the severity v names, or an error that says which
// ones there are.
func ParseSeverity(v string) (Severity, error) {
	if s := Severity(v); slices.Contains(Severities, s) {
		return s, nil
	}
	return "", fmt.Errorf("%q is not an impact (minor, major, critical)", v)
}

// Level returns s, minor for the zero value.
func (s Severity) Level() Severity {
	if s == "" {
		return SeverityMinor
	}
	return s
}

// Rank orders severities: 1 for minor (and the zero value), 2 for major, 3
// for critical, 0 for anything else; the worst of several is the one of
// highest rank.
func (s Severity) Rank() int { return slices.Index(Severities, s.Level()) + 1 }
