package snapshot

import (
	"time"

	"github.com/statusd/statusd"
)

// The embedded statusd.Notice of a Notice has no updates (they are in an
// updateList), so every method of statusd.Notice that reads them is
// answered here instead: from what derive worked out with the real
// updates, or from the notice made whole again. TestShadowedMethods fails
// when statusd.Notice gains a method that is not answered here.

// Updates returns the notice's updates, oldest first.
func (n *Notice) Updates() []statusd.Update {
	if n.Notice.Updates != nil {
		return n.Notice.Updates
	}
	return n.updates.list()
}

// updateCount returns the number of the notice's updates.
func (n *Notice) updateCount() int {
	if n.Notice.Updates != nil {
		return len(n.Notice.Updates)
	}
	return n.updates.len()
}

// Latest returns the notice's newest update, without making the others
// again; a notice has at least one.
func (n *Notice) Latest() statusd.Update {
	if n.Notice.Updates != nil {
		return n.Notice.Updates[len(n.Notice.Updates)-1]
	}
	return n.updates.at(n.updates.len() - 1)
}

// Full returns the notice with its updates.
func (n *Notice) Full() statusd.Notice {
	f := n.Notice
	f.Updates = n.Updates()
	return f
}

// State is statusd.Notice.State.
func (n *Notice) State() statusd.State { return n.state }

// IsCurrentIncident is statusd.Notice.IsCurrentIncident.
func (n *Notice) IsCurrentIncident() bool { return n.currentIncident }

// IsUnderway is statusd.Notice.IsUnderway.
func (n *Notice) IsUnderway() bool { return n.underway }

// BeganAt is statusd.Notice.BeganAt.
func (n *Notice) BeganAt() *time.Time { return optional(n.began, n.hasBegan) }

// EndedAt is statusd.Notice.EndedAt.
func (n *Notice) EndedAt() *time.Time { return optional(n.ended, n.hasEnded) }

func optional(t time.Time, ok bool) *time.Time {
	if !ok {
		return nil
	}
	return &t
}

// Impact is statusd.Notice.Impact.
func (n *Notice) Impact(now time.Time) []statusd.Interval {
	f := n.Full()
	return f.Impact(now)
}

// ImpactSecondsAt is statusd.Notice.ImpactSecondsAt. Once every impact
// has ended, it no longer moves with the clock.
func (n *Notice) ImpactSecondsAt(now time.Time) int64 {
	if len(n.impacts) == 0 || now.UnixMilli() > n.impacts[len(n.impacts)-1][1] {
		return n.impactSeconds
	}
	f := n.Full()
	return f.ImpactSecondsAt(now)
}

// AutomationDue is statusd.Notice.AutomationDue.
func (n *Notice) AutomationDue(now time.Time) (statusd.State, bool) {
	f := n.Full()
	return f.AutomationDue(now)
}
