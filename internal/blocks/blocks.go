// Package blocks hands out room in large shared blocks, so that the many
// small texts of a page being loaded (subjects, update contents) are a few
// hundred objects for the allocator and the garbage collector rather than
// hundreds of thousands.
package blocks

import (
	"unsafe"
)

// Size is how many bytes a block holds.
const Size = 1 << 20

// Of hands out items of type T from shared blocks of Size bytes. The zero
// value is ready to use; a nil *Of allocates each request on its own. It
// is not safe for concurrent use.
type Of[T any] struct {
	cur []T
}

// Carve returns n items, zeroed, capped so that an append to them copies
// rather than writing into the next request's items. A request of more
// than a quarter of a block gets an allocation of its own.
func (b *Of[T]) Carve(n int) []T {
	per := max(Size/int(unsafe.Sizeof(*new(T))), 1)
	if b == nil || n > per/4 {
		return make([]T, n)
	}
	if cap(b.cur)-len(b.cur) < n {
		b.cur = make([]T, 0, per)
	}
	start := len(b.cur)
	b.cur = b.cur[:start+n]
	return b.cur[start : start+n : start+n]
}

// String returns src as a string whose bytes are in a block of b.
//
// A block's bytes are never written again once a text is in them, so the
// strings over them are as immutable as any (the way strings.Builder makes
// its string).
func String(b *Of[byte], src []byte) string {
	if len(src) == 0 {
		return ""
	}
	dst := b.Carve(len(src))
	copy(dst, src)
	return unsafe.String(&dst[0], len(dst))
}
