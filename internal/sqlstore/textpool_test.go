package sqlstore

import (
	"strings"
	"testing"
	"unsafe"
)

func TestTextPool(t *testing.T) {
	p := newTextPool()
	a, b := p.short([]byte("resolved")), p.short([]byte("resolved"))
	if a != "resolved" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("short: %q and %q are not one string", a, b)
	}
	src := []byte("We are investigating.")
	first := p.long(src)
	src[0] = 'X' // the caller's buffer is reused, as sql.RawBytes is
	second := p.long([]byte("Fixed."))
	if first != "We are investigating." || second != "Fixed." {
		t.Errorf("long: %q, %q", first, second)
	}
	if unsafe.StringData(second) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(first)), len(first))) {
		t.Error("long: two texts are not packed in one block")
	}
	huge := strings.Repeat("x", textBlock)
	if got := p.long([]byte(huge)); got != huge {
		t.Error("long: a text larger than a block changed")
	}
	if p.long(nil) != "" || p.short(nil) != "" {
		t.Error("empty texts are not empty")
	}
	var none *textPool
	if none.short([]byte("a")) != "a" || none.long([]byte("b")) != "b" {
		t.Error("a nil pool does not make plain strings")
	}
}
