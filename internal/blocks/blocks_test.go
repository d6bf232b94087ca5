package blocks

import (
	"strings"
	"testing"
	"unsafe"
)

func TestCarve(t *testing.T) {
	var b Of[int64]
	first, second := b.Carve(3), b.Carve(2)
	if len(first) != 3 || cap(first) != 3 || len(second) != 2 {
		t.Fatalf("Carve: len/cap %d/%d and %d", len(first), cap(first), len(second))
	}
	if &second[0] != &b.cur[3] || &first[0] != &b.cur[0] {
		t.Error("two requests are not side by side in one block")
	}
	if grown := append(first, 7); &grown[0] == &first[0] || second[0] != 0 {
		t.Error("an append to the first request wrote into the second")
	}
	// A block holds Size/8 int64; a request past a quarter of it is its own.
	if big := b.Carve(Size / 8 / 4 * 2); &big[0] == &b.cur[0] || len(big) != Size/8/4*2 {
		t.Error("a large request was put in a block")
	}
	for cap(b.cur)-len(b.cur) >= 1000 {
		b.Carve(1000)
	}
	if next := b.Carve(1000); &next[0] != &b.cur[0] {
		t.Error("a request with no room left did not start a new block")
	}
	var none *Of[int64]
	if got := none.Carve(4); len(got) != 4 {
		t.Error("a nil Of does not allocate")
	}
}

func TestString(t *testing.T) {
	var b Of[byte]
	src := []byte("We are investigating.")
	first := String(&b, src)
	src[0] = 'X' // the caller's buffer is reused, as sql.RawBytes is
	second := String(&b, []byte("Fixed."))
	if first != "We are investigating." || second != "Fixed." {
		t.Errorf("String: %q, %q", first, second)
	}
	if unsafe.StringData(second) != (*byte)(unsafe.Add(unsafe.Pointer(unsafe.StringData(first)), len(first))) {
		t.Error("two texts are not packed in one block")
	}
	huge := strings.Repeat("x", Size)
	if got := String(&b, []byte(huge)); got != huge {
		t.Error("a text larger than a block changed")
	}
	if String(&b, nil) != "" || String(nil, []byte("b")) != "b" {
		t.Error("an empty text, or a nil Of, does not give the plain string")
	}
}
