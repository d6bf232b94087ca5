package statusd

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxJSONDepth is how deeply DecodeJSON lets arrays and objects nest:
// far more than any document or body of statusd needs, and little enough
// that the recursion stays small.
const maxJSONDepth = 1000

// DecodeJSON reads data, which must hold exactly one JSON value, into a
// generic tree: objects are map[string]any, arrays []any, numbers
// json.Number. It is the one reader of the JSON that statusd is given (the
// import document, the admin API's bodies), so that both refuse the same
// things. Problems, each at its JSON path (notices[3].subject), are what
// the tree would otherwise take in silently:
//
//   - a key given twice in one object, where the first is kept. Keys are
//     compared without regard to case, as encoding/json matches them to
//     struct fields, so that "name" and "Name" are the same key twice.
//   - a string holding a NUL character (\u0000), which PostgreSQL cannot
//     store in text and no text of a status page needs.
//   - a key or string whose bytes are not UTF-8, which encoding/json would
//     silently read as U+FFFD. (An escaped lone surrogate, \ud800, is valid
//     JSON and is read as U+FFFD.)
//
// Data that is not one JSON value is an error that names the line and
// column where it goes wrong.
func DecodeJSON(data []byte) (any, []Problem, error) {
	t := jsonTree{data: data, dec: json.NewDecoder(bytes.NewReader(data))}
	t.dec.UseNumber()
	v, err := t.value()
	if err != nil {
		return nil, nil, jsonSyntaxError(data, err)
	}
	end := t.dec.InputOffset()
	if _, err := t.dec.Token(); err != io.EOF {
		next := end + int64(len(data[end:])-len(bytes.TrimLeft(data[end:], " \t\r\n")))
		return nil, nil, fmt.Errorf("%s: trailing data after the JSON value", jsonPosition(data, next))
	}
	return v, t.problems, nil
}

// jsonTree builds the tree of DecodeJSON from the decoder's tokens.
type jsonTree struct {
	data     []byte
	dec      *json.Decoder
	path     []jsonStep          // from the root to the value being read
	keys     []map[string]string // per depth: the folded keys of the object being read, to their spelling
	problems []Problem
}

// jsonStep is one step of a JSON path: an object's key, or an array's
// index when index >= 0.
type jsonStep struct {
	key   string
	index int
}

func (t *jsonTree) value() (any, error) {
	if len(t.path) > maxJSONDepth {
		return nil, fmt.Errorf("%s: nested more than %d deep", jsonPosition(t.data, t.dec.InputOffset()), maxJSONDepth)
	}
	start := t.dec.InputOffset()
	tok, err := t.dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		return t.object()
	case json.Delim('['):
		return t.array()
	}
	if s, ok := tok.(string); ok {
		if strings.IndexByte(s, 0) >= 0 {
			t.problem("holds a NUL character (\\u0000); remove it")
		}
		t.checkUTF8(s, start)
	}
	return tok, nil
}

// checkUTF8 notes a problem when the bytes of the string token s, read
// from offset start on, are not UTF-8. Only a string holding U+FFFD, which
// the decoder puts in place of such bytes, is looked at again.
func (t *jsonTree) checkUTF8(s string, start int64) {
	if strings.ContainsRune(s, utf8.RuneError) && !utf8.Valid(t.data[start:t.dec.InputOffset()]) {
		t.problem("is not valid UTF-8; send text in UTF-8")
	}
}

func (t *jsonTree) object() (any, error) {
	depth := len(t.path)
	for len(t.keys) <= depth {
		t.keys = append(t.keys, map[string]string{})
	}
	seen := t.keys[depth]
	clear(seen)
	m := map[string]any{}
	for t.dec.More() {
		start := t.dec.InputOffset()
		tok, err := t.dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string) // the decoder gives nothing else in a key's place
		t.path = append(t.path, jsonStep{key: key, index: -1})
		t.checkUTF8(key, start)
		v, err := t.value()
		if err != nil {
			return nil, err
		}
		folded := foldKey(key)
		if first, dup := seen[folded]; !dup {
			seen[folded] = key
			m[key] = v
		} else if first == key {
			t.problem("the key is given twice in the object; give it once")
		} else {
			t.problem("the key is given twice in the object, as %q and %q (keys are compared without regard to case); give it once", first, key)
		}
		t.path = t.path[:len(t.path)-1]
	}
	_, err := t.dec.Token() // }
	return m, err
}

func (t *jsonTree) array() (any, error) {
	a := []any{}
	for i := 0; t.dec.More(); i++ {
		t.path = append(t.path, jsonStep{index: i})
		v, err := t.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		t.path = t.path[:len(t.path)-1]
	}
	_, err := t.dec.Token() // ]
	return a, err
}

// problem notes a problem at the current path.
func (t *jsonTree) problem(format string, args ...any) {
	var b strings.Builder
	for _, s := range t.path {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case b.Len() > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	t.problems = append(t.problems, Problem{b.String(), fmt.Sprintf(format, args...)})
}

// foldKey returns key under simple Unicode case folding, so that two keys
// fold alike exactly when strings.EqualFold (and encoding/json) takes them
// for the same. Keys in lower-case ASCII, nearly all of them, are their
// own folding.
func foldKey(key string) string {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return strings.Map(foldRune, key)
		}
	}
	return key
}

// foldRune returns the smallest rune that r folds with, or its lower case
// when that is an ASCII capital, the same for every rune of the set.
func foldRune(r rune) rune {
	smallest := r
	for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
		smallest = min(smallest, f)
	}
	if 'A' <= smallest && smallest <= 'Z' {
		return smallest + 'a' - 'A'
	}
	return smallest
}

// jsonSyntaxError turns an error of the token walk into one that names
// where data stops being JSON. The walk's decoder reports an offset only
// roughly (the start of the bad value at best), so the place is taken from
// encoding/json's check of the whole input, which is exact.
func jsonSyntaxError(data []byte, err error) error {
	var syntax *json.SyntaxError
	if errors.As(json.Unmarshal(data, new(json.RawMessage)), &syntax) {
		return fmt.Errorf("%s: %s", jsonPosition(data, syntax.Offset-1), syntax.Error())
	}
	return err // already placed (too deep)
}

// jsonPosition names the place of the byte at offset in data as "line L,
// column C", counted from 1, columns in characters.
func jsonPosition(data []byte, offset int64) string {
	offset = min(max(offset, 0), int64(len(data)))
	before := data[:offset]
	line := bytes.Count(before, []byte{'\n'}) + 1
	column := utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:]) + 1
	return fmt.Sprintf("line %d, column %d", line, column)
}
