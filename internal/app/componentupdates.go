package app

import (
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// A change of a component's state (CONTRACT C3), or of the severity that
// makes it degraded (C6's impact), from any cause, is an event of its own (CONTRACT C7: Statuspage's component_update webhook),
// stored in the transaction of the write that made it. A notice write
// changes only the states of the components its notice lists, before or
// after, and of their ancestors (noticeStates); a component write, moving
// or removing components, may change any (treeStates).

// noticeStates returns the conditions of the components of comps before
// and after a write that made notice was into is (was nil: a new notice;
// is nil: a deleted one), as tx holds them after the write: those that the
// notices listing the components in the trees of was's and is's
// components make, is standing in for was.
func noticeStates(tx statusd.Tx, comps []statusd.Component, was, is *statusd.Notice) (before, after conditions, err error) {
	var touched []int64
	id := int64(0)
	for _, n := range []*statusd.Notice{was, is} {
		if n != nil {
			touched, id = append(touched, n.ComponentIDs...), n.ID
		}
	}
	current, err := tx.CurrentListing(trees(comps, touched))
	if err != nil {
		return conditions{}, conditions{}, err
	}
	others := slices.DeleteFunc(current, func(n statusd.Notice) bool { return n.ID == id })
	return derive(comps, others, was), derive(comps, others, is), nil
}

// treeStates returns the condition of every component of comps, from the
// notices in tx that may make one.
func treeStates(tx statusd.Tx, comps []statusd.Component) (conditions, error) {
	ids := make([]int64, len(comps))
	for i, c := range comps {
		ids[i] = c.ID
	}
	current, err := tx.CurrentListing(ids)
	if err != nil {
		return conditions{}, err
	}
	return derive(comps, current, nil), nil
}

// conditions are components' states and the severities that make them
// degraded (statusd.DeriveStates, statusd.DeriveSeverities); a component
// missing from one is operational there.
type conditions struct {
	states     map[int64]statusd.PageState
	severities map[int64]statusd.Severity
}

// of returns the state of component id and, when it is degraded, its
// severity.
func (c conditions) of(id int64) (statusd.PageState, statusd.Severity) {
	state, ok := c.states[id]
	if !ok {
		return statusd.PageOperational, ""
	}
	if state != statusd.PageDegraded {
		return state, ""
	}
	return state, c.severities[id]
}

// derive returns the components' conditions that the notices, and extra
// when not nil, make.
func derive(comps []statusd.Component, notices []statusd.Notice, extra *statusd.Notice) conditions {
	all := func(yield func(*statusd.Notice) bool) {
		for i := range notices {
			if !yield(&notices[i]) {
				return
			}
		}
		if extra != nil {
			yield(extra)
		}
	}
	_, states := statusd.DeriveStates(comps, func(yield func(statusd.StateNotice, []int64) bool) {
		for n := range all {
			if !yield(n, n.ComponentIDs) {
				return
			}
		}
	})
	severities := statusd.DeriveSeverities(comps, func(yield func(statusd.Severity, []int64) bool) {
		for n := range all {
			if n.IsCurrentIncident() && !yield(n.Severity, n.ComponentIDs) {
				return
			}
		}
	})
	return conditions{states, severities}
}

// trees returns the ids of the components in the trees of ids: under the
// topmost ancestor of each. A component's state depends only on its
// descendants, and changes only with theirs, so that these are all the
// components whose states a change of ids' can move, and all they depend
// on.
func trees(comps []statusd.Component, ids []int64) []int64 {
	parent := make(map[int64]*int64, len(comps))
	for _, c := range comps {
		parent[c.ID] = c.ParentID
	}
	var out []int64
	for _, id := range ids {
		top := id
		// len(comps) bounds the walk should the tree loop.
		for range len(comps) {
			p := parent[top]
			if p == nil {
				break
			}
			top = *p
		}
		for _, d := range subtree(comps, top) {
			if !slices.Contains(out, d) {
				out = append(out, d)
			}
		}
	}
	return out
}

// diff returns the changes of condition of the components of comps (the
// tree after the write), in position order, from before to after; nil
// when none changed.
func diff(comps []statusd.Component, before, after conditions) []statusd.ComponentChange {
	var out []statusd.ComponentChange
	for _, c := range comps {
		was, wasSeverity := before.of(c.ID)
		is, isSeverity := after.of(c.ID)
		if was != is || wasSeverity != isSeverity {
			out = append(out, statusd.ComponentChange{ComponentID: c.ID, Old: was, New: is, OldSeverity: wasSeverity, NewSeverity: isSeverity})
		}
	}
	return out
}

// noticeChanges returns the changes of state of the components comps
// that a write making notice was into is makes (see noticeStates). It may
// run before or after the write stores is.
func noticeChanges(tx statusd.Tx, comps []statusd.Component, was, is *statusd.Notice) ([]statusd.ComponentChange, error) {
	before, after, err := noticeStates(tx, comps, was, is)
	if err != nil {
		return nil, err
	}
	return diff(comps, before, after), nil
}

// emitChanges stores a component_update event for each change, unless the
// write said "notify": false.
func emitChanges(tx statusd.Tx, notify *bool, changes []statusd.ComponentChange, now time.Time) error {
	if !notifying(notify) {
		return nil
	}
	for _, ch := range changes {
		err := tx.Emit(statusd.Event{Kind: statusd.ComponentUpdated, ComponentIDs: []int64{ch.ComponentID},
			OldState: ch.Old, NewState: ch.New, OldSeverity: ch.OldSeverity, NewSeverity: ch.NewSeverity, CreatedAt: now})
		if err != nil {
			return err
		}
	}
	return nil
}

// record notes, on the update a write posted (the last of is, when the
// write added one to was), the changes it made and whether it notified:
// what Statuspage's affected_components and deliver_notifications show.
func record(was, is *statusd.Notice, notify *bool, changes []statusd.ComponentChange) {
	if was != nil && len(is.Updates) == len(was.Updates) {
		return
	}
	u := &is.Updates[len(is.Updates)-1]
	u.Notified, u.Changes = notifying(notify), changes
}
