package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/sqlstore"
	"github.com/statusd/statusd/internal/testenv"
	"github.com/statusd/statusd/internal/testserver"
)

// fromClient sends a GET as the client behind the trusted proxy.
func fromClient(s *testserver.Server, path, client string) int {
	s.T().Helper()
	return s.Do(http.MethodGet, path, "X-Forwarded-For", client).Status
}

// waitAll polls every replica, seen from t, until check holds on each, or
// fails after the deadline; it returns how long it took.
func waitAll(t *testing.T, reps []*replica, deadline time.Duration, what string, check func(*testserver.Server) bool) time.Duration {
	t.Helper()
	start := time.Now()
	pending := append([]*replica(nil), reps...)
	for len(pending) > 0 {
		if time.Since(start) > deadline {
			t.Fatalf("%s: %d replica(s) still not there after %v", what, len(pending), deadline)
		}
		var next []*replica
		for _, r := range pending {
			if !check(r.In(t)) {
				next = append(next, r)
			}
		}
		pending = next
		if len(pending) > 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	return time.Since(start)
}

// TestReplicas runs three statusd processes on one PostgreSQL and one
// Redis: a write through one is read through all three within a second, a
// client over the limit is limited across replicas, a replica killed in the
// middle of load leaves the others answering, and a PostgreSQL restart in
// the middle is ridden out without restarting statusd.
func TestReplicas(t *testing.T) {
	cluster := testenv.NewCluster(t)
	redisURL := testenv.Redis(t)
	db := cluster.URL
	now := time.Now().UTC().Truncate(time.Second)
	importDoc(t, db, testserver.Fixture(now))
	token := newToken(t, db, "ops")
	var reps []*replica
	for i := 0; i < 3; i++ {
		reps = append(reps, startReplica(t, db, "--redis", redisURL, "--rate-limit", "20", "--trusted-proxies", "127.0.0.1/32"))
	}
	clientN := atomic.Int64{}
	newClient := func() string { return fmt.Sprintf("198.51.100.%d", clientN.Add(1)%250) }

	// rename renames the page through the admin API of s and returns the
	// status it answered.
	rename := func(s *testserver.Server, name string) int {
		_, err := s.Admin(token).UpdatePage(context.Background(), statusd.AdminPageRequest{Name: &name})
		var refused *client.Error
		switch {
		case err == nil:
			return http.StatusOK
		case errors.As(err, &refused):
			return refused.Status
		}
		s.T().Fatal(err)
		return 0
	}
	// hasName reports whether s shows the page named name. Each read comes
	// from a new client behind the trusted proxy, which the SDK cannot
	// say, so that polling is not limited.
	hasName := func(name string) func(*testserver.Server) bool {
		return func(s *testserver.Server) bool {
			res := s.Do(http.MethodGet, "/api/v1/status", "X-Forwarded-For", newClient())
			var st statusd.StatusResponse
			return res.Status == 200 && json.Unmarshal(res.Body, &st) == nil && st.Page.Name == name
		}
	}

	testserver.Step(t, "a write through one replica is read through all three within a second", func(t *testing.T) {
		if code := rename(reps[0].In(t), "Renamed once"); code != 200 {
			t.Fatalf("PATCH page: %d", code)
		}
		took := waitAll(t, reps, time.Second, "write visible", hasName("Renamed once"))
		t.Logf("a write through one replica was read through all three after %v", took)
	})

	testserver.Step(t, "a client over the limit is limited across the replicas", func(t *testing.T) {
		// One client sends 90 requests spread over the replicas: one shared
		// bucket (burst 20, 20 a second) lets through 20 plus what refilled
		// while they were sent, and every replica refuses some; three
		// separate limits would let 60 through at once.
		limited := "203.0.113.77"
		start := time.Now()
		passed := 0
		refused := make([]int, len(reps))
		for i := 0; i < 90; i++ {
			switch code := fromClient(reps[i%3].In(t), "/api/v1/status", limited); code {
			case 200:
				passed++
			case 429:
				refused[i%3]++
			default:
				t.Fatalf("request %d of the limited client: %d", i+1, code)
			}
		}
		refilled := int(time.Since(start).Seconds()*20) + 1
		if passed < 20 || passed > 20+refilled {
			t.Errorf("%d of 90 requests passed in %v; a shared limit lets through 20 plus %d refilled", passed, time.Since(start), refilled)
		}
		for i, n := range refused {
			if n == 0 {
				t.Errorf("replica %d never refused the client over the shared limit", i)
			}
		}
		if code := fromClient(reps[1].In(t), "/api/v1/status", "203.0.113.78"); code != 200 {
			t.Errorf("another client was limited: %d", code)
		}
	})

	testserver.Step(t, "a replica killed under load leaves the others answering", func(t *testing.T) {
		// Load on replicas 1 and 2 while replica 0 is killed.
		var failures, served atomic.Int64
		stop := make(chan struct{})
		var wg sync.WaitGroup
		for w := 0; w < 4; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ; i++ {
					select {
					case <-stop:
						return
					default:
					}
					r := reps[1+i%2]
					req, _ := http.NewRequest(http.MethodGet, r.URL+"/api/v1/notices?page=1", nil)
					req.Header.Set("X-Forwarded-For", newClient())
					res, err := http.DefaultClient.Do(req)
					if err != nil || res.StatusCode != 200 {
						failures.Add(1)
					} else {
						served.Add(1)
					}
					if res != nil {
						res.Body.Close()
					}
				}
			}()
		}
		time.Sleep(300 * time.Millisecond)
		if err := reps[0].cmd.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		reps[0].cmd.Wait()
		time.Sleep(500 * time.Millisecond)
		close(stop)
		wg.Wait()
		if failures.Load() > 0 || served.Load() == 0 {
			t.Errorf("while a replica was killed: %d served, %d failed", served.Load(), failures.Load())
		}
		t.Logf("while replica 0 was killed, replicas 1 and 2 served %d requests, none failed", served.Load())
	})
	alive := reps[1:]

	testserver.Step(t, "with PostgreSQL stopped, reads answer from the snapshot and writes 503", func(t *testing.T) {
		if err := cluster.Stop(); err != nil {
			t.Fatal(err)
		}
		for i, r := range alive {
			if code := fromClient(r.In(t), "/api/v1/status", newClient()); code != 200 {
				t.Errorf("replica %d with PostgreSQL down: %d, want 200 from the last snapshot", i+1, code)
			}
		}
		if code := rename(alive[0].In(t), "While down"); code != 503 {
			t.Errorf("a write with PostgreSQL down: %d, want 503", code)
		}
	})

	testserver.Step(t, "once PostgreSQL is back, writes work again without restarting statusd", func(t *testing.T) {
		if err := cluster.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for rename(alive[0].In(t), "Renamed after restart") != 200 {
			if time.Now().After(deadline) {
				t.Fatal("writes did not come back after PostgreSQL restarted")
			}
			time.Sleep(100 * time.Millisecond)
		}
		took := waitAll(t, alive, time.Second, "write after restart", hasName("Renamed after restart"))
		t.Logf("after PostgreSQL restarted, a write was read through both live replicas after %v", took)
	})
}

// TestMigrateToPostgres copies a SQLite page, its subscribers, its tokens
// and its audit log into PostgreSQL, and the copy exports the same
// document; the subscribers keep the tokens of their links.
func TestMigrateToPostgres(t *testing.T) {
	now := time.Now().UTC().Truncate(time.Second)
	sqlite := filepath.Join(t.TempDir(), "statusd.db")
	importDoc(t, sqlite, testserver.Fixture(now))
	importDoc(t, sqlite, strings.Replace(export(t, sqlite), `"subscribers": []`, `"subscribers": `+impSubscribers, 1), "--replace")
	newToken(t, sqlite, "ops")
	addUsers(t, sqlite, statusd.User{Email: "ann@example.com", Role: statusd.Owner, PasswordHash: "$argon2id$ann", CreatedAt: now, UpdatedAt: now},
		statusd.User{Email: "bob@example.com", Role: statusd.Viewer, CreatedAt: now, UpdatedAt: now})
	pg := testenv.Postgres(t)
	if _, stderr, err := cli(t, "", "migrate", "--from", sqlite, "--to", pg); err != nil || !strings.Contains(stderr, "5 subscribers), 1 token(s), 2 console user(s)") {
		t.Fatalf("migrate: %v\n%s", err, stderr)
	}
	if got, want := storeUsers(t, pg), storeUsers(t, sqlite); len(got) != 2 || !reflect.DeepEqual(got, want) {
		t.Errorf("the users after migrate: %+v, want the source's %+v", got, want)
	}
	if got, want := export(t, pg), export(t, sqlite); got != want || !strings.Contains(got, "hooks.example.com/statusd") {
		t.Errorf("export after migrate differs from the source's, or lacks its subscribers:\n%s\n---\n%s", got, want)
	}
	if got, want := subscriberTokens(t, pg), subscriberTokens(t, sqlite); len(got) != 5 || !reflect.DeepEqual(got, want) {
		t.Errorf("the subscribers' tokens after migrate: %v, want the source's %v", got, want)
	}
	list, _, err := cli(t, "", "token", "list", "--db", pg)
	if err != nil || !strings.Contains(list, "ops") {
		t.Errorf("tokens after migrate: %q, %v", list, err)
	}
	// The target now holds a page: a second migrate needs --replace.
	if _, _, err := cli(t, "", "migrate", "--from", sqlite, "--to", pg); err == nil || !strings.Contains(err.Error(), "--replace") {
		t.Errorf("second migrate without --replace: %v", err)
	}
}

// addUsers adds console users, without setup links, to the database at db.
func addUsers(t *testing.T, db string, users ...statusd.User) {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, u := range users {
		if err := s.Users().Add(context.Background(), &u, nil, time.Time{}, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// storeUsers lists the console users of the database at db.
func storeUsers(t *testing.T, db string) []statusd.User {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	users, err := s.Users().List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return users
}

// subscriberTokens maps the id of each subscriber of the database at db
// to the token of its links.
func subscriberTokens(t *testing.T, db string) map[int64]string {
	t.Helper()
	s, err := sqlstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	subs, _, err := s.Subscribers().List(context.Background(), statusd.SubscriberFilter{}, 1, 100)
	if err != nil {
		t.Fatal(err)
	}
	tokens := map[int64]string{}
	for _, sub := range subs {
		tokens[sub.ID] = sub.Token
	}
	return tokens
}
