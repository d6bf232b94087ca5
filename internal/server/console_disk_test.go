package server_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// TestConsoleSessionOnFullDisk: on a full disk a signed-in person still
// reads the console: the session's last use, due to be written (last
// written 2 minutes ago, more than a minute), is not, and that is logged,
// not answered 503.
func TestConsoleSessionOnFullDisk(t *testing.T) {
	dir := testenv.SmallDisk(t, "4m")
	srv := startServer(t, consoleDoc(time.Now().UTC()), options{adminListener: true, dbDir: dir})
	adm := srv.Admin(newToken(t, srv.DB, "alice"))
	signedIn(t, srv, adm, "ann@example.com", "viewer")
	users, err := adm.Users(context.Background())
	testserver.NoErr(t, "Users", err)
	secret, hash := statusd.NewSecret()
	err = testserver.OpenStore(t, srv.DB).Users().StartSession(context.Background(), users[0].ID, hash, time.Now().Add(-2*time.Minute))
	testserver.NoErr(t, "StartSession", err)
	b := newBrowser(t, srv.AdminURL)
	b.session = secret

	testenv.FillDisk(t, dir)
	b.do("GET", "/manage", nil).want(t, "home on a full disk", 200, "")
	b.do("GET", "/manage/login", nil).want(t, "the sign-in screen of a person signed in", 303, "/manage")
	if logs := srv.Logs.String(); !strings.Contains(logs, "a console session's last use was not written") {
		t.Errorf("the failed write is not logged:\n%s", logs)
	}
}
