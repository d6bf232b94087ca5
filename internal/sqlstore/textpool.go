package sqlstore

import (
	"encoding/json"
	"slices"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/blocks"
)

// textPool keeps the texts of one load compactly. Repeated short values
// (types, states, tags) and tag lists are kept once each, and long ones
// (subjects, update contents) are packed into large shared blocks, so that
// 100,000 notices with 400,000 updates are a few hundred text objects, not
// a million: the load allocates less, and a collection that runs while the
// snapshot is built from it has less to mark. (The snapshot copies what it
// keeps into an arena of its own.) A nil pool makes a string of each text, and
// a slice of each tag list, for small loads.
type textPool struct {
	seen  map[string]string
	lists map[string][]string
	block blocks.Of[byte]
}

// newTextPool returns a pool that already holds the notice types and
// update states as the program's own constants, which live outside the
// heap: the collector has nothing to mark for the 500,000 of them a large
// page holds.
func newTextPool() *textPool {
	p := &textPool{seen: map[string]string{}, lists: map[string][]string{}}
	for _, t := range []statusd.NoticeType{statusd.General, statusd.Planned, statusd.Unplanned} {
		p.seen[string(t)] = string(t)
		for _, st := range statusd.States(t) {
			p.seen[string(st)] = string(st)
		}
	}
	return p
}

// short returns b as a string, the same one for equal values.
func (p *textPool) short(b []byte) string {
	if p == nil {
		return string(b)
	}
	if s, ok := p.seen[string(b)]; ok {
		return s
	}
	s := string(b)
	p.seen[s] = s
	return s
}

// long returns b as a string stored in a shared block.
func (p *textPool) long(b []byte) string {
	if p == nil {
		return string(b)
	}
	return blocks.String(&p.block, b)
}

// tagList returns the tag list stored as the JSON array raw, the same
// slice for equal lists (capped, so that an append copies it). No tags:
// an empty list.
func (p *textPool) tagList(raw []byte) ([]string, error) {
	if string(raw) == "[]" {
		return []string{}, nil
	}
	var list []string
	if p == nil {
		err := json.Unmarshal(raw, &list)
		return list, err
	}
	if list, ok := p.lists[string(raw)]; ok {
		return list, nil
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, err
	}
	for i, tag := range list {
		list[i] = p.short([]byte(tag))
	}
	list = slices.Clip(list)
	p.lists[string(raw)] = list
	return list, nil
}
