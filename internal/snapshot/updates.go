package snapshot

import (
	"math"
	"time"

	"github.com/statusd/statusd"
)

// A notice's updates are kept in its arena in a form that the garbage
// collector does not look into: fixed-size records without pointers, in
// arena.records, and their contents one after the other in arena.text. A
// page of 100,000 notices holds 400,000 updates. They are made again, as
// statusd.Update, when a request needs them.

// updateRecord is one update without its content and its changes. Its
// times are two instants, split so that the record packs in 40 bytes (two
// instants would take 48).
type updateRecord struct {
	id         int64
	createdSec int64
	updatedSec int64
	createdNs  int32
	updatedNs  int32
	end        uint32 // where the content ends, from the notice's first content
	state      uint8  // an index in states
	notified   bool
	// changes is how many changes the update has: each three ints of the
	// arena (the component's id, and its old and new states as indexes in
	// pageStates), after the previous updates', from the notice's first.
	changes uint8
}

// pageStates are the states of components that changes name.
var pageStates = []statusd.PageState{statusd.PageOperational, statusd.PageDegraded, statusd.PageUnderMaintenance}

func (r *updateRecord) setTimes(created, updated time.Time) {
	c, u := instantOf(created), instantOf(updated)
	r.createdSec, r.createdNs, r.updatedSec, r.updatedNs = c.sec, c.ns, u.sec, u.ns
}

func (r *updateRecord) created() instant { return instant{r.createdSec, r.createdNs} }

func (r *updateRecord) updated() instant { return instant{r.updatedSec, r.updatedNs} }

// states are the states a notice or an update can be in, "" (general
// notices) first.
var states = func() []statusd.State {
	out := []statusd.State{""}
	for _, t := range []statusd.NoticeType{statusd.Unplanned, statusd.Planned} {
		out = append(out, statusd.States(t)...)
	}
	return out
}()

// packCondition packs a change's state and severity into one of the
// arena's ints: the state's index in pageStates, and above it the
// severity's rank (0 for none). It reports false for a state or a
// severity it does not know.
func packCondition(state statusd.PageState, sev statusd.Severity) (int64, bool) {
	i, ok := indexOf(pageStates, state)
	rank := int64(0)
	if sev != "" {
		r, known := indexOf(statusd.Severities, sev)
		if !known {
			return 0, false
		}
		rank = int64(r) + 1
	}
	return int64(i) | rank<<8, ok
}

// unpackCondition is packCondition undone.
func unpackCondition(v int64) (statusd.PageState, statusd.Severity) {
	var sev statusd.Severity
	if rank := v >> 8; rank > 0 {
		sev = statusd.Severities[rank-1]
	}
	return pageStates[v&0xff], sev
}

// addUpdates appends us to n's arena as n's updates. It reports false,
// and adds nothing, when they cannot be kept exactly: a state that is not
// known, more than 255 changes in an update, or contents past 4 GB.
func (n *Notice) addUpdates(us []statusd.Update) bool {
	size := 0
	for _, u := range us {
		if _, ok := indexOf(states, u.State); !ok || len(u.Changes) > math.MaxUint8 {
			return false
		}
		for _, c := range u.Changes {
			_, oldOK := packCondition(c.Old, c.OldSeverity)
			_, newOK := packCondition(c.New, c.NewSeverity)
			if !oldOK || !newOK {
				return false
			}
		}
		size += len(u.Content)
	}
	if size > math.MaxUint32 {
		return false
	}
	a := n.arena
	n.contents = len(a.text)
	n.changes = len(a.ints)
	n.updates.start = len(a.records)
	for _, u := range us {
		a.text = append(a.text, u.Content...)
		state, _ := indexOf(states, u.State)
		r := updateRecord{id: u.ID, state: state, end: uint32(len(a.text) - n.contents),
			notified: u.Notified, changes: uint8(len(u.Changes))}
		r.setTimes(u.CreatedAt, u.UpdatedAt)
		a.records = append(a.records, r)
		for _, c := range u.Changes {
			old, _ := packCondition(c.Old, c.OldSeverity)
			now, _ := packCondition(c.New, c.NewSeverity)
			a.ints = append(a.ints, c.ComponentID, old, now)
		}
	}
	n.updates.end = len(a.records)
	return true
}

// updateCount returns the number of the notice's updates.
func (n *Notice) updateCount() int {
	if w := n.kept(); w != nil {
		return len(w.Updates)
	}
	return n.updates.len()
}

// update returns update i, of a notice whose updates are in its arena.
func (n *Notice) update(i int) statusd.Update {
	records := n.arena.records[n.updates.start:n.updates.end]
	r := &records[i]
	start := 0
	if i > 0 {
		start = int(records[i-1].end)
	}
	u := statusd.Update{
		ID:        r.id,
		State:     states[r.state],
		Content:   n.arena.str(span{n.contents + start, n.contents + int(r.end)}),
		CreatedAt: r.created().time(),
		UpdatedAt: r.updated().time(),
		Notified:  r.notified,
	}
	if r.changes > 0 {
		at := n.changes
		for j := range i {
			at += 3 * int(records[j].changes)
		}
		ints := n.arena.ints[at : at+3*int(r.changes)]
		u.Changes = make([]statusd.ComponentChange, r.changes)
		for j := range u.Changes {
			c := statusd.ComponentChange{ComponentID: ints[3*j]}
			c.Old, c.OldSeverity = unpackCondition(ints[3*j+1])
			c.New, c.NewSeverity = unpackCondition(ints[3*j+2])
			u.Changes[j] = c
		}
	}
	return u
}

// Updates returns the notice's updates, oldest first.
func (n *Notice) Updates() []statusd.Update {
	if w := n.kept(); w != nil {
		return w.Updates
	}
	out := make([]statusd.Update, n.updates.len())
	for i := range out {
		out[i] = n.update(i)
	}
	return out
}

// Latest returns the notice's newest update, without making the others
// again; a notice has at least one.
func (n *Notice) Latest() statusd.Update {
	if w := n.kept(); w != nil {
		return w.Updates[len(w.Updates)-1]
	}
	return n.update(n.updates.len() - 1)
}

// Through returns the notice as it was when its update with id updateID
// was posted: its updates up to and including that one, derived at now
// (the notice itself when that update is its newest). ok is false when
// the notice has no such update.
func (n *Notice) Through(updateID int64, now time.Time) (through *Notice, ok bool) {
	f := n.Full()
	for i, u := range f.Updates {
		if u.ID != updateID {
			continue
		}
		if i == len(f.Updates)-1 {
			return n, true
		}
		f.Updates = f.Updates[:i+1]
		if f.UpdatedAt.After(u.UpdatedAt) {
			f.UpdatedAt = u.UpdatedAt // later edits had not happened
		}
		return newNotice(f, now), true
	}
	return nil, false
}
