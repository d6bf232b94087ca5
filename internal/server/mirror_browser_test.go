package server_test

import (
	"context"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/statusd/statusd/internal/mirror"
	"github.com/statusd/statusd/internal/route"
	"github.com/statusd/statusd/internal/testserver"
	"github.com/statusd/statusd/internal/web"
)

// TestMirrorStaleBanner: in real Chromium, a page of a copy that was made
// 20 minutes ago, older than its stale_after (15 minutes), says so above
// the page, and its footer tells the copy's age; once a heartbeat renews
// the copy, the same page, loaded again, shows no warning.
func TestMirrorStaleBanner(t *testing.T) {
	browser := webBrowser(t)
	start := time.Now().UTC().Truncate(time.Second)
	clk := newClock(start.Add(-20 * time.Minute)) // the copy is made 20 minutes ago, as the browser's clock sees it
	dir := t.TempDir()
	srv := startServer(t, testserver.Fixture(start.Add(-20*time.Minute)), options{now: clk.Now, mirrors: []mirror.Bucket{mirror.Dir(dir)}})
	site := mirrorSite{mirror.Dir(dir), testserver.MirrorKey(t, srv.DB)}
	first := site.waitSequence(t, 1)

	// The copy, served as serve --from-mirror does.
	log := slog.New(slog.DiscardHandler)
	copies := mirror.NewServer(route.NewErrors(log, web.New(web.Config{Log: log}).ErrorPage), time.Now)
	src := mirror.Source{Bucket: mirror.Dir(dir), Key: site.pub}
	if err := copies.Refresh(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	cp := httptest.NewServer(copies)
	t.Cleanup(cp.Close)

	tab, cancel := chromedp.NewContext(browser)
	defer cancel()
	ctx, cancelTimeout := context.WithTimeout(tab, time.Minute)
	defer cancelTimeout()
	problems := webListen(t, tab, cp.URL)
	look := func(step string) (banner string, hidden bool, age string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.NavigateResponse(cp.URL+"/notices/100")); err != nil {
			t.Fatalf("%s: %v", step, err)
		}
		// The script fetches mirror.json after the page loads.
		if err := chromedp.Do(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("mirror-age").textContent.includes("updated")`,
			chromedp.WithPollingTimeout(10*time.Second))); err != nil {
			t.Fatalf("%s: the footer never told the copy's age: %v", step, err)
		}
		banner, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("mirror-stale").textContent`))
		hidden, _ = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("mirror-stale").hidden`))
		age, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("mirror-age").textContent`))
		return banner, hidden, age
	}

	banner, hidden, age := look("a stale copy")
	if hidden || banner != "This copy was last updated 20 minutes ago; the live page may be unavailable." {
		t.Errorf("a copy of 20 minutes: the banner (hidden %v) says %q", hidden, banner)
	}
	if age != "A copy of the status page, updated 20 minutes ago." {
		t.Errorf("a copy of 20 minutes: the footer says %q", age)
	}

	clk.Set(time.Now()) // a heartbeat is due: the copy is made again, now
	site.waitSequence(t, first.Sequence+1)
	if err := copies.Refresh(context.Background(), src); err != nil {
		t.Fatal(err)
	}
	banner, hidden, age = look("a fresh copy")
	if !hidden {
		t.Errorf("a fresh copy: the banner shows %q", banner)
	}
	if age != "A copy of the status page, updated 0 minutes ago." {
		t.Errorf("a fresh copy: the footer says %q", age)
	}
	if p := problems.take(); len(p) > 0 {
		t.Errorf("the browser complained:\n%s", strings.Join(p, "\n"))
	}
}
