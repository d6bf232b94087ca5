package snapshot

import (
	"slices"
	"time"

	"github.com/statusd/statusd"
)

// With returns the snapshot that follows s after the change, at now. The
// derived parts of every notice the change does not touch are shared with s,
// and so are the merged impacts of every component whose counting notices
// did not change.
func (s *Snapshot) With(ch statusd.Written, now time.Time) *Snapshot {
	settings := s.Doc
	if ch.Page != nil {
		settings.Page = *ch.Page
	}
	if ch.ComponentsChanged {
		settings.Components = ch.Components
	}
	var d delta
	for id, src := range ch.Notices {
		if old := s.Notice(id); old != nil {
			d.removed = append(d.removed, old)
		}
		if src != nil {
			d.added = append(d.added, newNotice(*src, now))
		}
	}
	notices := s.notices(s.order) // newest first, a list of their own
	for _, n := range d.removed {
		if i, ok := slices.BinarySearchFunc(notices, n, newestFirst); ok {
			notices = slices.Delete(notices, i, i+1)
		}
	}
	for _, n := range d.added {
		i, _ := slices.BinarySearchFunc(notices, n, newestFirst)
		notices = slices.Insert(notices, i, n)
	}
	if ch.ComponentsChanged {
		// A new tree may move any notice's counting: index it all again.
		return assemble(settings, notices, ch.Version, now, s.Options, nil, nil)
	}
	return assemble(settings, notices, ch.Version, now, s.Options, s, &d)
}

// Retime returns the snapshot of the same page at now, after a time rule
// fired: only the notices whose timeline state has changed are derived
// again, and the metrics data is shared with s (time rules do not change
// which notices count).
func (s *Snapshot) Retime(now time.Time) *Snapshot {
	notices := s.notices(s.order) // newest first, a list of their own
	var d delta
	at := instantOf(now)
	for i, n := range notices {
		if n.hasNext && at.compare(n.next) >= 0 {
			notices[i] = newNotice(n.Full(), now)
			d.removed = append(d.removed, n)
			d.added = append(d.added, notices[i])
		}
	}
	return assemble(s.Doc, notices, s.Version, now, s.Options, s, &d)
}
