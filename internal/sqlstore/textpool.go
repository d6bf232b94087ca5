package sqlstore

import "unsafe"

// textPool keeps the texts of one load compactly, for the garbage
// collector's sake: the page stays in memory for as long as the server
// runs, and every collection marks each of its objects again. Repeated
// short values (types, states, tags) are kept once each, and long ones
// (subjects, update contents) are packed into large shared blocks, so that
// 100,000 notices with 400,000 updates are a few hundred text objects, not
// a million. A nil pool makes a string of each text, for small loads.
type textPool struct {
	seen  map[string]string
	block []byte
}

// textBlock is the size of a shared block of long texts.
const textBlock = 1 << 20

func newTextPool() *textPool { return &textPool{seen: map[string]string{}} }

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

// long returns b as a string stored in a shared block. A block's bytes are
// never written again once a text is in them, so the strings over them
// are as immutable as any (the way strings.Builder makes its string).
func (p *textPool) long(b []byte) string {
	if p == nil || len(b) == 0 || len(b) > textBlock/4 {
		return string(b)
	}
	if cap(p.block)-len(p.block) < len(b) {
		p.block = make([]byte, 0, textBlock)
	}
	start := len(p.block)
	p.block = append(p.block, b...)
	return unsafe.String(&p.block[start], len(b))
}
