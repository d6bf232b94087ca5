package sqlstore

import (
	"slices"
	"strings"
	"testing"
	"unsafe"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/blocks"
)

func TestTextPool(t *testing.T) {
	p := newTextPool()
	a, b := p.short([]byte("resolved")), p.short([]byte("resolved"))
	if a != "resolved" || unsafe.StringData(a) != unsafe.StringData(b) {
		t.Errorf("short: %q and %q are not one string", a, b)
	}
	// Types and states are the program's constants, not copies on the heap.
	for _, v := range []string{string(statusd.Unplanned), string(statusd.Resolved), string(statusd.Cancelled)} {
		if got := p.short([]byte(v)); unsafe.StringData(got) != unsafe.StringData(v) {
			t.Errorf("short(%q) is a copy, not the constant", v)
		}
	}
	tag := p.short([]byte("database"))
	if again := p.short([]byte("database")); unsafe.StringData(tag) != unsafe.StringData(again) {
		t.Error("short: a tag is not kept once")
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
	huge := strings.Repeat("x", blocks.Size)
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

func TestTagListsKeptOnce(t *testing.T) {
	p := newTextPool()
	a, err := p.tagList([]byte(`["database","eu"]`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := p.tagList([]byte(`["database","eu"]`))
	if !slices.Equal(a, []string{"database", "eu"}) || &a[0] != &b[0] {
		t.Errorf("equal lists are not one slice: %q, %q", a, b)
	}
	if cap(a) != len(a) {
		t.Error("a shared list is not capped: an append would write into it")
	}
	if empty, _ := p.tagList([]byte(`[]`)); empty == nil || len(empty) != 0 {
		t.Errorf("no tags: %#v, want an empty list", empty)
	}
	if _, err := p.tagList([]byte(`["a",`)); err == nil {
		t.Error("a broken list is not an error")
	}
	var none *textPool
	c, _ := none.tagList([]byte(`["database","eu"]`))
	d, _ := none.tagList([]byte(`["database","eu"]`))
	if !slices.Equal(c, a) || &c[0] == &d[0] {
		t.Errorf("a nil pool does not make a list each time: %q, %q", c, d)
	}
}
