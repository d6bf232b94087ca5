package testserver

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
)

// Value is the value of a field of the wire, the zero value when it is
// null or absent.
func Value[T any](f statusd.Field[T]) (v T) {
	if f.Value != nil {
		v = *f.Value
	}
	return v
}

// ParseTS parses a timestamp of the wire (CONTRACT C2), failing the test
// unless it is one.
func ParseTS(t *testing.T, v any) time.Time {
	t.Helper()
	s, ok := v.(string)
	if !ok {
		t.Fatalf("timestamp %v is not a string", v)
	}
	tm, err := time.Parse(statusd.TimeLayout, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// Within fails unless tm lies in [lo, hi], lo truncated to the millisecond
// as statusd stores times.
func Within(t *testing.T, what string, tm, lo, hi time.Time) {
	t.Helper()
	if tm.Before(lo.Truncate(time.Millisecond)) || tm.After(hi) {
		t.Errorf("%s = %s, want within [%s, %s]", what, TS(tm), TS(lo), TS(hi))
	}
}

// AssertError checks a JSON error answer of CONTRACT C2: the status, a JSON
// Content-Type and the body {"error": {"status", "code", "message"}}.
func AssertError(t *testing.T, what string, r Response, status int, code string) {
	t.Helper()
	if r.Status != status {
		t.Errorf("%s: status %d, want %d (%s)", what, r.Status, status, r.Body)
		return
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("%s: Content-Type %q, want JSON", what, ct)
	}
	body, ok := r.JSON.(map[string]any)
	if !ok {
		t.Errorf("%s: body is not a JSON object: %s", what, r.Body)
		return
	}
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if len(body) != 1 || len(e) != 3 || e["status"] != float64(status) || e["code"] != code || msg == "" {
		t.Errorf("%s: error body %s, want status %d code %s and a message", what, r.Body, status, code)
	}
}

// AssertErrorBody is AssertError for the public API, whose errors carry
// CORS too (the admin API carries credentials and need not).
func AssertErrorBody(t *testing.T, what string, r Response, status int, code string) {
	t.Helper()
	AssertError(t, what, r, status, code)
	if r.Status == status && r.Header.Get("Access-Control-Allow-Origin") != "*" {
		t.Errorf("%s: errors must carry CORS too", what)
	}
}

// ErrorMessage returns the message of a JSON error answer.
func ErrorMessage(r Response) string {
	body, _ := r.JSON.(map[string]any)
	e, _ := body["error"].(map[string]any)
	msg, _ := e["message"].(string)
	return msg
}

// At returns the JSON value at the dotted path (array indices as numbers)
// of v, failing the test when it is missing.
func At(t *testing.T, v any, path string) any {
	t.Helper()
	cur := v
	if path == "" {
		return cur
	}
	for _, part := range strings.Split(path, ".") {
		switch c := cur.(type) {
		case map[string]any:
			next, ok := c[part]
			if !ok {
				t.Fatalf("%s: key %q missing in %v", path, part, keys(c))
			}
			cur = next
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				t.Fatalf("%s: no index %q in an array of %d", path, part, len(c))
			}
			cur = c[i]
		default:
			t.Fatalf("%s: cannot descend into %T at %q", path, cur, part)
		}
	}
	return cur
}

func keys(m map[string]any) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TS formats a time as the API does.
func TS(t time.Time) string { return t.UTC().Format(statusd.TimeLayout) }

// Normalize turns any value into the generic form encoding/json decodes to,
// so that hand-written expectations compare with decoded answers.
func Normalize(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// AssertJSON fails unless got and want are the same JSON value, with exactly
// the same keys.
func AssertJSON(t *testing.T, what string, got, want any) {
	t.Helper()
	g, w := Normalize(t, got), Normalize(t, want)
	if !reflect.DeepEqual(g, w) {
		gb, _ := json.MarshalIndent(g, "", "  ")
		wb, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\ngot  %s\nwant %s", what, gb, wb)
	}
}

// Obj is shorthand for a JSON object in expectations.
type Obj = map[string]any
