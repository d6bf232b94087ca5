package testserver

// The subscription tests' page, and their reads of the delivery log and
// of the server's store.

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/client"
	"github.com/statusd/statusd/internal/sqlstore"
)

// SubDoc is the page of the subscription tests: Website 1, API 2 and
// Database 3 at the top level, Replica 4 under Database.
func SubDoc() *statusd.Document {
	comp := func(id int64, parent *int64, pos int, name string) statusd.Component {
		return statusd.Component{ID: id, ParentID: parent, Position: pos, Name: name, CreatedAt: PageCreated, UpdatedAt: PageCreated}
	}
	return &statusd.Document{
		Page: statusd.Page{Name: "Sub Status", URL: "https://status.sub.test", CreatedAt: PageCreated, UpdatedAt: PageCreated},
		Components: []statusd.Component{
			comp(1, nil, 1, "Website"), comp(2, nil, 2, "API"), comp(3, nil, 3, "Database"), comp(4, Ptr(int64(3)), 4, "Replica"),
		},
	}
}

// OpenStore opens a store of the test's own on the server's database at
// db, beside the server, as the statusd commands do; it closes when the
// test ends.
func OpenStore(t *testing.T, db string) *sqlstore.Store {
	t.Helper()
	st, err := sqlstore.Open(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st
}

// SubExpand turns every stored event into its deliveries, as the sender
// does first.
func SubExpand(t *testing.T, st *sqlstore.Store) {
	t.Helper()
	for range 100 {
		n, err := st.Subscribers().Expand(context.Background(), time.Now(), 100)
		if err != nil {
			t.Fatalf("expand: %v", err)
		}
		if n == 0 {
			return
		}
	}
	t.Fatal("the events never ran out")
}

// SubDeliveries is every page of the delivery log the filter chooses,
// checked to be newest first.
func SubDeliveries(t *testing.T, adm *client.Admin, f statusd.DeliveryFilter) []statusd.AdminDelivery {
	t.Helper()
	var all []statusd.AdminDelivery
	for page := 1; ; page++ {
		r, err := adm.Deliveries(context.Background(), f, page)
		if err != nil {
			t.Fatalf("deliveries page %d: %v", page, err)
		}
		all = append(all, r.Deliveries...)
		if r.Meta.NextPage == nil {
			break
		}
	}
	for i := 1; i < len(all); i++ {
		if all[i].ID >= all[i-1].ID {
			t.Fatalf("the delivery log is not newest first: %d after %d", all[i].ID, all[i-1].ID)
		}
	}
	return all
}

// SubSettled polls the deliveries of f up to 10 s, until done says the
// worker left them as the test expects, and returns them.
func SubSettled(t *testing.T, adm *client.Admin, f statusd.DeliveryFilter, done func([]statusd.AdminDelivery) bool) []statusd.AdminDelivery {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		all := SubDeliveries(t, adm, f)
		if done(all) {
			return all
		}
		if time.Now().After(deadline) {
			t.Fatalf("the deliveries of %+v did not settle within 10 s: %+v", f, all)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// SubSent is what the delivery log holds for a notice: "kind update_id
// subscriber_id" lines, sorted.
func SubSent(list []statusd.AdminDelivery, noticeID int64) []string {
	out := []string{}
	for _, d := range list {
		if d.Event.NoticeID != nil && *d.Event.NoticeID == noticeID {
			u := int64(0)
			if d.Event.UpdateID != nil {
				u = *d.Event.UpdateID
			}
			out = append(out, fmt.Sprintf("%s %d %d", d.Event.Kind, u, d.SubscriberID))
		}
	}
	slices.Sort(out)
	return out
}

// SubLines builds the SubSent lines of one event sent to subscribers.
func SubLines(kind statusd.EventKind, updateID int64, subscribers ...int64) []string {
	out := []string{}
	for _, s := range subscribers {
		out = append(out, fmt.Sprintf("%s %d %d", kind, updateID, s))
	}
	return out
}

// SecretPattern is a webhook secret: whsec_ and the base64 of 32 bytes.
var SecretPattern = regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)

// SubSorted joins line lists and sorts them.
func SubSorted(lists ...[]string) []string {
	out := []string{}
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return out
}
