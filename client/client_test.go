package client_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
)

// These tests talk to the real statusd: the binary is built from this
// module, a page is imported with `statusd import`, and `statusd serve` runs
// as a child process on a free port.

var (
	buildOnce sync.Once
	binary    string
	buildErr  error
	buildDir  string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// statusdBinary builds cmd/statusd once for the whole run.
func statusdBinary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		root := filepath.Dir(strings.TrimSpace(string(out)))
		if buildDir, buildErr = os.MkdirTemp("", "statusd-client-test-"); buildErr != nil {
			return
		}
		binary = filepath.Join(buildDir, "statusd")
		cmd := exec.Command("go", "build", "-o", binary, "./cmd/statusd")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/statusd: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

var listening = regexp.MustCompile(`msg="statusd listening" url=(http://\S+)`)

// serve imports doc into a fresh database and serves it with the extra
// flags; the process is stopped when the test ends. It returns the base URL.
func serve(t *testing.T, doc *statusd.Document, flags ...string) string {
	t.Helper()
	return serveDB(t, importPage(t, doc), flags...)
}

// importPage imports doc into a fresh database and returns its path.
func importPage(t *testing.T, doc *statusd.Document) string {
	t.Helper()
	bin := statusdBinary(t)
	dir := t.TempDir()
	db, docPath := filepath.Join(dir, "statusd.db"), filepath.Join(dir, "page.json")
	var buf bytes.Buffer
	if err := statusd.EncodeDocument(&buf, doc); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(docPath, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(bin, "import", "--db", db, docPath).CombinedOutput(); err != nil {
		t.Fatalf("statusd import: %v\n%s", err, out)
	}
	return db
}

// serveDB serves the database at db with the extra flags; the process is
// stopped when the test ends. It returns the base URL.
func serveDB(t *testing.T, db string, flags ...string) string {
	t.Helper()
	bin := statusdBinary(t)
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--db", db, "--rate-limit", "0"}, flags...)
	cmd := exec.Command(bin, args...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-exited
		}
	})
	found := make(chan string, 1)
	var logs strings.Builder
	var logsMu sync.Mutex
	go func() {
		defer close(exited)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			logsMu.Lock()
			logs.WriteString(sc.Text() + "\n")
			logsMu.Unlock()
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
		io.Copy(io.Discard, stderr)
		cmd.Wait()
	}()
	select {
	case url := <-found:
		return url
	case <-exited:
		logsMu.Lock()
		defer logsMu.Unlock()
		t.Fatalf("statusd serve stopped:\n%s", logs.String())
	case <-time.After(20 * time.Second):
		logsMu.Lock()
		defer logsMu.Unlock()
		t.Fatalf("statusd serve did not start:\n%s", logs.String())
	}
	return ""
}

func ptr[T any](v T) *T { return &v }

var created = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// page is the test page:
//
//	components: 1 API (metrics), 2 API EU (child of 1, metrics), 3 Web,
//	4-30 children of 3;
//	notices: 1 an incident on API EU, identified, current; 2-31 incidents on
//	API EU, resolved, notice i i days ago for one hour; 32-45 general; 46 a
//	scheduled maintenance of Web in two days.
func page(now time.Time) *statusd.Document {
	upd := func(s statusd.State, at time.Time, content string) statusd.Update {
		return statusd.Update{State: s, Content: content, CreatedAt: at, UpdatedAt: at}
	}
	doc := &statusd.Document{Page: statusd.Page{Name: "Client Test Status", URL: "https://status.client.test",
		CreatedAt: created, UpdatedAt: created}}
	comp := func(id int64, parent *int64, name string, metrics bool) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: len(doc.Components) + 1, Name: name,
			Description: name + " component", MetricsEnabled: metrics, CreatedAt: created, UpdatedAt: created}
	}
	doc.Components = append(doc.Components, comp(1, nil, "API", true), comp(2, ptr(int64(1)), "API EU", true), comp(3, nil, "Web", false))
	for id := int64(4); id <= 30; id++ {
		doc.Components = append(doc.Components, comp(id, ptr(int64(3)), fmt.Sprintf("Web %d", id), false))
	}
	doc.Notices = append(doc.Notices, statusd.Notice{ID: 1, Type: statusd.Unplanned, Subject: "EU errors",
		TagList: []string{"api"}, ComponentIDs: []int64{2}, CreatedAt: now.Add(-2 * time.Hour), UpdatedAt: now.Add(-time.Hour),
		Updates: []statusd.Update{upd(statusd.Investigating, now.Add(-2*time.Hour), "Looking."),
			upd(statusd.Identified, now.Add(-time.Hour), "Found it.")}})
	for i := 2; i <= 31; i++ {
		at := now.Add(-time.Duration(i) * 24 * time.Hour)
		doc.Notices = append(doc.Notices, statusd.Notice{ID: int64(i), Type: statusd.Unplanned, Subject: fmt.Sprintf("Outage %d", i),
			TagList: []string{}, ComponentIDs: []int64{2}, CreatedAt: at, UpdatedAt: at.Add(time.Hour),
			Updates: []statusd.Update{upd(statusd.Investigating, at, "Down."), upd(statusd.Resolved, at.Add(time.Hour), "Up.")}})
	}
	for i := 32; i <= 45; i++ {
		at := now.Add(-time.Duration(i) * 24 * time.Hour)
		doc.Notices = append(doc.Notices, statusd.Notice{ID: int64(i), Type: statusd.General, Subject: fmt.Sprintf("News %d", i),
			TagList: []string{"news"}, ComponentIDs: []int64{}, CreatedAt: at, UpdatedAt: at,
			Updates: []statusd.Update{upd("", at, "News.")}})
	}
	begins := now.Add(48 * time.Hour)
	doc.Notices = append(doc.Notices, statusd.Notice{ID: 46, Type: statusd.Planned, Subject: "Web upgrade",
		TagList: []string{}, ComponentIDs: []int64{3}, BeginsAt: &begins, EndsAt: ptr(begins.Add(time.Hour)),
		CreatedAt: now.Add(-time.Minute), UpdatedAt: now.Add(-time.Minute),
		Updates: []statusd.Update{upd(statusd.Scheduled, now.Add(-time.Minute), "Planned.")}})
	return doc
}

// counting counts the requests that go through it.
type counting struct {
	n    atomic.Int64
	last atomic.Value // the last request's User-Agent
}

func (c *counting) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	c.last.Store(r.Header.Get("User-Agent"))
	return http.DefaultTransport.RoundTrip(r)
}

func TestClient(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	base := serve(t, page(now))
	rt := &counting{}
	c := client.New(base, client.WithHTTPClient(&http.Client{Transport: rt}), client.WithUserAgent("client-test/1"))
	ctx := context.Background()

	t.Run("Status", func(t *testing.T) {
		p, err := c.Status(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name != "Client Test Status" || p.State != "degraded" || p.URL != "https://status.client.test" {
			t.Errorf("page %+v", p)
		}
		if p.Links.Self != "/api/v1" || p.Links.Components != (statusd.Link{Href: "/v1/components", Count: 30}) ||
			p.Links.Notices != (statusd.Link{Href: "/v1/notices", Count: 46}) {
			t.Errorf("links %+v", p.Links)
		}
		if !p.CreatedAt.Equal(created) {
			t.Errorf("created_at %v", p.CreatedAt)
		}
		if ua, _ := rt.last.Load().(string); ua != "client-test/1" {
			t.Errorf("User-Agent %q", ua)
		}
	})

	t.Run("Components", func(t *testing.T) {
		top, err := c.Components(ctx, client.ComponentQuery{ParentIDNull: ptr(true)})
		if err != nil {
			t.Fatal(err)
		}
		if got := componentIDs(top.Components); !slices.Equal(got, []int64{1, 3}) || top.Meta.TotalCount != 2 || top.Meta.NextPage != nil {
			t.Errorf("top level: %v, meta %+v", got, top.Meta)
		}
		// API is degraded with its child API EU (CONTRACT C3).
		api := top.Components[0]
		if api.Name != "API" || api.State != "degraded" || api.ParentID != nil || api.Links.Children.Count != 1 ||
			api.Links.Children.Href != "/api/v1/components?filter%5Bparent_id_eq%5D=1" {
			t.Errorf("API: %+v", api)
		}
		if !api.MetricsSummary.Set || api.MetricsSummary.Value == nil || api.MetricsSummary.Value.PercentageUptime.Percent >= 100 {
			t.Errorf("API metrics_summary %+v", api.MetricsSummary)
		}
		if web := top.Components[1]; !web.MetricsSummary.Set || web.MetricsSummary.Value != nil {
			t.Errorf("Web metrics_summary %+v, want null", web.MetricsSummary)
		}
		eu, err := c.Components(ctx, client.ComponentQuery{ParentIDEq: 1})
		if err != nil {
			t.Fatal(err)
		}
		if len(eu.Components) != 1 || eu.Components[0].State != "degraded" || *eu.Components[0].ParentID != 1 {
			t.Errorf("children of 1: %+v", eu.Components)
		}
		second, err := c.Components(ctx, client.ComponentQuery{ParentIDEq: 3, Page: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := componentIDs(second.Components); !slices.Equal(got, []int64{29, 30}) || second.Meta.Count != 2 || second.Meta.TotalCount != 27 {
			t.Errorf("children of 3, page 2: %v, meta %+v", got, second.Meta)
		}
	})

	t.Run("AllComponents", func(t *testing.T) {
		before := rt.n.Load()
		var ids []int64
		for comp, err := range c.AllComponents(ctx, client.ComponentQuery{ParentIDEq: 3}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, comp.ID)
		}
		if want := seq(4, 30); !slices.Equal(ids, want) {
			t.Errorf("children of 3: %v, want %v", ids, want)
		}
		if n := rt.n.Load() - before; n != 2 {
			t.Errorf("%d requests for 27 components, want 2", n)
		}
	})

	t.Run("AllNotices", func(t *testing.T) {
		before := rt.n.Load()
		var ids []int64
		for n, err := range c.AllNotices(ctx, client.NoticeQuery{}) {
			if err != nil {
				t.Fatal(err)
			}
			ids = append(ids, n.ID)
		}
		// Newest first: 46 (a minute ago), 1 (2 hours ago), then 2, 3, ... 45.
		if want := append([]int64{46, 1}, seq(2, 45)...); !slices.Equal(ids, want) {
			t.Errorf("all notices: %v, want %v", ids, want)
		}
		if n := rt.n.Load() - before; n != 2 {
			t.Errorf("%d requests for 46 notices, want 2", n)
		}
		// Filters are kept from page to page.
		var unplanned []int64
		for n, err := range c.AllNotices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{statusd.Unplanned},
			TimelineStates: []statusd.TimelineState{client.Past, statusd.Present}}) {
			if err != nil {
				t.Fatal(err)
			}
			if n.Type != "unplanned" {
				t.Errorf("notice %d is %s", n.ID, n.Type)
			}
			unplanned = append(unplanned, n.ID)
		}
		if want := append([]int64{1}, seq(2, 31)...); !slices.Equal(unplanned, want) {
			t.Errorf("unplanned: %v, want %v", unplanned, want)
		}
		// Breaking out stops fetching.
		before = rt.n.Load()
		count := 0
		for _, err := range c.AllNotices(ctx, client.NoticeQuery{}) {
			if err != nil {
				t.Fatal(err)
			}
			if count++; count == 3 {
				break
			}
		}
		if n := rt.n.Load() - before; n != 1 {
			t.Errorf("%d requests for 3 notices, want 1", n)
		}
	})

	t.Run("Notices", func(t *testing.T) {
		r, err := c.Notices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{statusd.Unplanned}, TimelineStates: []statusd.TimelineState{statusd.Present}})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Notices) != 1 || r.Notices[0].ID != 1 || r.Meta.NextPage != nil {
			t.Fatalf("current incidents: %+v", r)
		}
		n := r.Notices[0]
		if *n.State.Value != "identified" || n.LatestUpdate.Content != "Found it." || n.ImpactTime == nil || n.ImpactTime.Seconds < 7200 {
			t.Errorf("current incident: %+v", n)
		}
		planned, err := c.Notices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{statusd.Planned, statusd.General}, Page: 1})
		if err != nil {
			t.Fatal(err)
		}
		if planned.Meta.TotalCount != 15 || planned.Notices[0].ID != 46 || planned.Notices[0].BeginsAt == nil ||
			planned.Notices[0].BeganAt.Value != nil || !planned.Notices[0].BeganAt.Set {
			t.Errorf("planned and general: %+v", planned)
		}
		general := planned.Notices[1]
		if general.Type != "general" || general.State.Set || general.BeganAt.Set || general.LatestUpdate.State != nil {
			t.Errorf("general notice: %+v", general)
		}
		counted, err := c.Notices(ctx, client.NoticeQuery{MetricsComponentID: 1, ImpactFrom: now.Add(-5*24*time.Hour - time.Minute), ImpactTo: now})
		if err != nil {
			t.Fatal(err)
		}
		if got := noticeIDs(counted.Notices); !slices.Equal(got, []int64{1, 2, 3, 4, 5}) {
			t.Errorf("impact in the past 5 days: %v", got)
		}
		if _, err := c.Notices(ctx, client.NoticeQuery{ImpactFrom: now}); err == nil {
			t.Error("ImpactFrom without ImpactTo accepted")
		}
		_, err = c.Notices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{"bogus"}})
		var e *client.Error
		if !errors.As(err, &e) || e.Status != 400 || e.Code != statusd.EInvalidParameter || !strings.Contains(e.Message, "filter[type_eq]") ||
			!errors.Is(err, client.ErrInvalidParameter) {
			t.Errorf("bad filter: %v", err)
		}
	})

	t.Run("Notice", func(t *testing.T) {
		n, err := c.Notice(ctx, 1)
		if err != nil {
			t.Fatal(err)
		}
		if n.ID != 1 || n.Subject != "EU errors" || len(n.Updates) != 2 || n.Updates[0].ID == 0 || *n.Updates[1].State != "identified" ||
			len(n.Components) != 1 || n.Components[0].ID != 2 || n.Components[0].State != "degraded" || n.Links.Self != "/api/notices/1" ||
			!n.BeganAt.Value.Equal(now.Add(-2*time.Hour)) || n.EndedAt.Value != nil {
			t.Errorf("notice 1: %+v", n)
		}
	})

	t.Run("Metrics", func(t *testing.T) {
		m, err := c.Metrics(ctx, 1, client.MetricsQuery{ShowCalculations: true})
		if err != nil {
			t.Fatal(err)
		}
		if m.Component.ID != "1" || m.Component.Name != "API" || m.CalculationData == nil || m.PercentageUptime.Calculation == "" {
			t.Fatalf("metrics: %+v", m)
		}
		// Notices 2-29 ended within the default 30 days, and 1 is current
		// (30 and 31 began 30 and 31 days ago, before the timeframe).
		if m.CalculationData.Notices.Count < 28 || m.MeanTimeToRecovery.Seconds <= 0 || m.PercentageUptime.Percent >= 100 {
			t.Errorf("metrics: %+v %+v", m, m.CalculationData)
		}
		from, to := now.AddDate(0, 0, -3), now.AddDate(0, 0, -1)
		m, err = c.Metrics(ctx, 2, client.MetricsQuery{From: from, To: to})
		if err != nil {
			t.Fatal(err)
		}
		if m.TimeframeStart != from.Format(statusd.DateLayout) || m.TimeframeEnd != to.Format(statusd.DateLayout) || m.CalculationData != nil {
			t.Errorf("metrics of a timeframe: %+v", m)
		}
		_, err = c.Metrics(ctx, 3, client.MetricsQuery{})
		if !client.IsNotFound(err) || !errors.Is(err, client.ErrMetricsDisabled) || errors.Is(err, client.ErrNotFound) {
			t.Errorf("component without metrics: %v", err)
		}
		_, err = c.Metrics(ctx, 1, client.MetricsQuery{From: now.AddDate(-2, 0, 0)})
		if !errors.Is(err, client.ErrInvalidParameter) {
			t.Errorf("a start two years ago: %v", err)
		}
	})

	t.Run("NotFound", func(t *testing.T) {
		_, err := c.Notice(ctx, 999)
		var e *client.Error
		if !errors.As(err, &e) {
			t.Fatalf("notice 999: %T %v", err, err)
		}
		if e.Status != 404 || e.Code != statusd.ENotFound || e.Message != "notice 999 not found" {
			t.Errorf("notice 999: %+v", e)
		}
		if !client.IsNotFound(err) || !errors.Is(err, client.ErrNotFound) || errors.Is(err, client.ErrRateLimited) {
			t.Errorf("notice 999: not a typed not_found: %v", err)
		}
		if got := err.Error(); got != "statusd: 404 not_found: notice 999 not found" {
			t.Errorf("message %q", got)
		}
		if _, err := c.Metrics(ctx, 999, client.MetricsQuery{}); !errors.Is(err, client.ErrNotFound) {
			t.Errorf("metrics of component 999: %v", err)
		}
	})
}

func TestClientVariantB(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	c := client.New(serve(t, page(now), "--variant", "b"))
	ctx := context.Background()
	if _, err := c.Metrics(ctx, 1, client.MetricsQuery{}); !client.IsNotFound(err) {
		t.Errorf("metrics in Variant B: %v", err)
	}
	r, err := c.Components(ctx, client.ComponentQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Components[0].MetricsSummary.Set {
		t.Error("metrics_summary in Variant B")
	}
	n, err := c.Notice(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	if n.ImpactTime != nil {
		t.Error("impact_time in Variant B")
	}
}

// TestClientRetries checks the waits on 429: a burst over the limit
// succeeds thanks to the retries, no retries give the typed 429 at once,
// and a context that ends stops the wait.
func TestClientRetries(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	base := serve(t, page(now), "--rate-limit", "2")
	ctx := context.Background()

	rt := &counting{}
	c := client.New(base, client.WithHTTPClient(&http.Client{Transport: rt}))
	const burst = 6
	start := time.Now()
	var wg sync.WaitGroup
	errs := make([]error, burst)
	for i := range burst {
		wg.Go(func() { _, errs[i] = c.Notice(ctx, 1) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("request %d of the burst: %v", i, err)
		}
	}
	if n := rt.n.Load(); n <= burst {
		t.Errorf("%d requests for a burst of %d over a limit of 2: no retries", n, burst)
	}
	if elapsed := time.Since(start); elapsed < 900*time.Millisecond {
		t.Errorf("the burst took %v: the client did not wait", elapsed)
	}

	// Without retries, the 429 comes back typed.
	noRetry := client.New(base, client.WithMaxRetries(0))
	var limited error
	for range 10 {
		if _, limited = noRetry.Status(ctx); limited != nil {
			break
		}
	}
	var e *client.Error
	if !errors.As(limited, &e) || e.Status != 429 || e.Code != statusd.ERateLimited || e.RetryAfter < time.Second ||
		!client.IsRateLimited(limited) || !errors.Is(limited, client.ErrRateLimited) {
		t.Fatalf("over the limit without retries: %v (%+v)", limited, e)
	}

	// A context that ends stops the wait for Retry-After.
	for range 10 {
		if _, err := noRetry.Status(ctx); err != nil {
			break
		}
	}
	short, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start = time.Now()
	_, err := c.Status(short)
	if elapsed := time.Since(start); elapsed > 800*time.Millisecond {
		t.Errorf("the call took %v after its context ended", elapsed)
	}
	if !errors.Is(err, context.DeadlineExceeded) || !client.IsRateLimited(err) {
		t.Errorf("cancelled wait: %v", err)
	}
}

func TestNewBadBaseURL(t *testing.T) {
	for _, base := range []string{"status.example.com", "ftp://example.com", "://"} {
		if _, err := client.New(base).Status(context.Background()); err == nil || client.IsNotFound(err) {
			t.Errorf("New(%q): %v", base, err)
		}
	}
}

func componentIDs(list []statusd.ComponentResource) []int64 {
	var out []int64
	for _, c := range list {
		out = append(out, c.ID)
	}
	return out
}

func noticeIDs(list []statusd.NoticeListEntry) []int64 {
	var out []int64
	for _, n := range list {
		out = append(out, n.ID)
	}
	return out
}

func seq(from, to int64) []int64 {
	var out []int64
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// TestNoInternalImports keeps the SDK free of the server's packages: it may
// use the module's root package (the wire types) and the standard library
// only.
func TestNoInternalImports(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "-f", "{{if not .Standard}}{{.ImportPath}}{{end}}", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		if pkg != "github.com/statusd/statusd" && pkg != "github.com/statusd/statusd/client" {
			t.Errorf("the client depends on %s", pkg)
		}
	}
}
