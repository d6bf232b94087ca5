package snapshot

import (
	"math"
	"time"
	"unsafe"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/blocks"
)

// updateList is a notice's updates in a form that the garbage collector
// does not look into: fixed-size records without pointers, and every
// content in one string. A page of 100,000 notices holds 400,000 updates;
// as statusd.Update values (two strings and two times each) they made up
// half of what every collection marked, and so of the pause-free but
// CPU-hungry work that slows requests down while it runs on a busy core.
// The updates are made again, as statusd.Update, when a request needs them.
type updateList struct {
	records []updateRecord
	// contents holds the contents one after the other; records[i].end is
	// where content i ends.
	contents string
}

// updateRecord is one update without its content.
type updateRecord struct {
	id         int64
	createdSec int64
	updatedSec int64
	createdNs  int32
	updatedNs  int32
	end        uint32
	state      uint8 // an index in updateStates
}

// updateStates are the states a record can name, "" (general notices) first.
var updateStates = func() []statusd.State {
	out := []statusd.State{""}
	for _, t := range []statusd.NoticeType{statusd.Unplanned, statusd.Planned} {
		out = append(out, statusd.States(t)...)
	}
	return out
}()

// compactUpdates returns us as an updateList, its records and contents
// from pack. ok is false when us cannot be made one exactly: a state that
// is not known, a time not in UTC, or contents past 4 GB.
func compactUpdates(us []statusd.Update, pack *packer) (l updateList, ok bool) {
	size := 0
	for _, u := range us {
		if stateIndex(u.State) < 0 || u.CreatedAt.Location() != time.UTC || u.UpdatedAt.Location() != time.UTC {
			return updateList{}, false
		}
		size += len(u.Content)
	}
	if size > math.MaxUint32 {
		return updateList{}, false
	}
	l.records = pack.records(len(us))
	contents := pack.bytes(size)
	for i, u := range us {
		contents = append(contents, u.Content...)
		l.records[i] = updateRecord{
			id: u.ID, state: uint8(stateIndex(u.State)), end: uint32(len(contents)),
			createdSec: u.CreatedAt.Unix(), createdNs: int32(u.CreatedAt.Nanosecond()),
			updatedSec: u.UpdatedAt.Unix(), updatedNs: int32(u.UpdatedAt.Nanosecond()),
		}
	}
	if size > 0 {
		// Nothing writes these bytes again (the way strings.Builder makes
		// its string).
		l.contents = unsafe.String(&contents[0], size)
	}
	return l, true
}

func stateIndex(s statusd.State) int {
	for i, v := range updateStates {
		if v == s {
			return i
		}
	}
	return -1
}

// len returns the number of updates.
func (l updateList) len() int { return len(l.records) }

// at returns update i.
func (l updateList) at(i int) statusd.Update {
	r := &l.records[i]
	start := uint32(0)
	if i > 0 {
		start = l.records[i-1].end
	}
	return statusd.Update{
		ID:        r.id,
		State:     updateStates[r.state],
		Content:   l.contents[start:r.end],
		CreatedAt: time.Unix(r.createdSec, int64(r.createdNs)).UTC(),
		UpdatedAt: time.Unix(r.updatedSec, int64(r.updatedNs)).UTC(),
	}
}

// list returns every update, oldest first.
func (l updateList) list() []statusd.Update {
	out := make([]statusd.Update, len(l.records))
	for i := range out {
		out[i] = l.at(i)
	}
	return out
}

// packer hands out records, bytes and intervals from shared blocks (see
// package blocks). A nil packer allocates each on its own (one notice at a
// time, after a write).
type packer struct {
	recs  blocks.Of[updateRecord]
	texts blocks.Of[byte]
	ivs   blocks.Of[[2]int64]
}

func (p *packer) records(n int) []updateRecord {
	if p == nil {
		return make([]updateRecord, n)
	}
	return p.recs.Carve(n)
}

func (p *packer) intervals(n int) [][2]int64 {
	if p == nil {
		return make([][2]int64, n)
	}
	return p.ivs.Carve(n)
}

// bytes returns room for n bytes: an empty slice with capacity n.
func (p *packer) bytes(n int) []byte {
	if p == nil {
		return make([]byte, 0, n)
	}
	return p.texts.Carve(n)[:0]
}
