package app

import (
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// A change of a component's state (CONTRACT C3), from any cause, is an
// event of its own (CONTRACT C7: Statuspage's component_update webhook),
// stored in the transaction of the write that made it. A notice write
// changes only the states of the components its notice lists, before or
// after, and of their ancestors (noticeStates); a component write, moving
// or removing components, may change any (treeStates).

// noticeStates returns the states of the components of comps before and
// after a write that made notice was into is (was nil: a new notice; is
// nil: a deleted one), as tx holds them after the write: the states that
// the notices listing the components in the trees of was's and is's
// components make, is standing in for was.
func noticeStates(tx statusd.Tx, comps []statusd.Component, was, is *statusd.Notice) (before, after map[int64]statusd.PageState, err error) {
	var touched []int64
	id := int64(0)
	for _, n := range []*statusd.Notice{was, is} {
		if n != nil {
			touched, id = append(touched, n.ComponentIDs...), n.ID
		}
	}
	current, err := tx.CurrentListing(trees(comps, touched))
	if err != nil {
		return nil, nil, err
	}
	others := slices.DeleteFunc(current, func(n statusd.Notice) bool { return n.ID == id })
	return derive(comps, others, was), derive(comps, others, is), nil
}

// treeStates returns the state of every component of comps, from the
// notices in tx that may make one.
func treeStates(tx statusd.Tx, comps []statusd.Component) (map[int64]statusd.PageState, error) {
	ids := make([]int64, len(comps))
	for i, c := range comps {
		ids[i] = c.ID
	}
	current, err := tx.CurrentListing(ids)
	if err != nil {
		return nil, err
	}
	return derive(comps, current, nil), nil
}

// derive returns the components' states that the notices, and extra when
// not nil, make (statusd.DeriveStates).
func derive(comps []statusd.Component, notices []statusd.Notice, extra *statusd.Notice) map[int64]statusd.PageState {
	_, states := statusd.DeriveStates(comps, func(yield func(statusd.StateNotice, []int64) bool) {
		for i := range notices {
			if !yield(&notices[i], notices[i].ComponentIDs) {
				return
			}
		}
		if extra != nil {
			yield(extra, extra.ComponentIDs)
		}
	})
	return states
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

// diff returns the changes of state of the components of comps (the tree
// after the write), in position order, from before to after (a component
// missing from either is operational there); nil when none changed.
func diff(comps []statusd.Component, before, after map[int64]statusd.PageState) []statusd.ComponentChange {
	var out []statusd.ComponentChange
	for _, c := range comps {
		if was, is := stateOr(before, c.ID), stateOr(after, c.ID); was != is {
			out = append(out, statusd.ComponentChange{ComponentID: c.ID, Old: was, New: is})
		}
	}
	return out
}

// stateOr is the component's state in states: operational when missing.
func stateOr(states map[int64]statusd.PageState, id int64) statusd.PageState {
	if s, ok := states[id]; ok {
		return s
	}
	return statusd.PageOperational
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
			OldState: ch.Old, NewState: ch.New, CreatedAt: now})
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
