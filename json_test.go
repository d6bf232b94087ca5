package statusd

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestDecodeJSONTree: DecodeJSON gives the generic tree encoding/json
// gives, numbers as json.Number.
func TestDecodeJSONTree(t *testing.T) {
	got, problems, err := DecodeJSON([]byte(`{"a": [1, "x", true, null, {}], "b": {"c": -2.5e3}}`))
	if err != nil || len(problems) > 0 {
		t.Fatalf("DecodeJSON: %v, %v", problems, err)
	}
	want := map[string]any{"a": []any{json.Number("1"), "x", true, nil, map[string]any{}},
		"b": map[string]any{"c": json.Number("-2.5e3")}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("DecodeJSON = %#v, want %#v", got, want)
	}
}

// TestDecodeJSONProblems: a key given twice in one object and a string
// with a NUL character are problems at their JSON paths, in document
// order; the first of two keys is kept.
func TestDecodeJSONProblems(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []Problem
		tree     any // when set, the tree kept
	}{
		{"keys twice, nested and at the top",
			`{"a": 1, "b": {"c": [1, {"d": 2, "d": 3}]}, "a": 4}`,
			[]Problem{{"b.c[1].d", "the key is given twice in the object; give it once"},
				{"a", "the key is given twice in the object; give it once"}},
			map[string]any{"a": json.Number("1"), "b": map[string]any{"c": []any{json.Number("1"), map[string]any{"d": json.Number("2")}}}}},
		{"a key twice in another case", `{"name": "x", "Name": "y"}`,
			[]Problem{{"Name", `the key is given twice in the object, as "name" and "Name" (keys are compared without regard to case); give it once`}},
			map[string]any{"name": "x"}},
		// The Kelvin sign folds with k, as encoding/json matches it.
		{"a key twice, once with a Kelvin sign", `{"kind": 1, "\u212aind": 2}`,
			[]Problem{{"\u212aind", `the key is given twice in the object, as "kind" and "` + "\u212a" + `ind" (keys are compared without regard to case); give it once`}}, nil},
		{"an escaped key is the same key", `{"ab": 1, "a\u0062": 2}`,
			[]Problem{{"ab", "the key is given twice in the object; give it once"}}, nil},
		{"the same key in two objects is fine", `[{"a": 1}, {"a": 2}, {"b": {"a": 3}, "a": 4}]`, nil, nil},
		// İ (U+0130) has no simple case folding: it is not i.
		{"dotted capital I is not i", `{"id": 1, "\u0130d": 2}`, nil, nil},
		{"NUL characters", `{"a": ["ok", "x\u0000y"], "b": {"c": "\u0000"}}`,
			[]Problem{{"a[1]", "holds a NUL character (\\u0000); remove it"}, {"b.c", "holds a NUL character (\\u0000); remove it"}}, nil},
		{"an escaped backslash before u0000 is no NUL", `{"a": "\\u0000"}`, nil, map[string]any{"a": `\u0000`}},
		{"a NUL at the top", `"\u0000"`, []Problem{{"", "holds a NUL character (\\u0000); remove it"}}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tree, problems, err := DecodeJSON([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(problems, tc.want) {
				t.Errorf("problems %q, want %q", problems, tc.want)
			}
			if tc.tree != nil && !reflect.DeepEqual(tree, tc.tree) {
				t.Errorf("tree %#v, want %#v", tree, tc.tree)
			}
		})
	}
}

// TestDecodeJSONErrors: what is not one JSON value is an error naming the
// line and column (in characters) where it goes wrong.
func TestDecodeJSONErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		// Line 2 is ` "a": tru` and the newline after it is column 10.
		{"{\n \"a\": tru\n}", "line 2, column 10: invalid character '\\n' in literal true (expecting 'e')"},
		// The second comma is the 13th character.
		{`{"a": [1, 2,, 3]}`, "line 1, column 13: invalid character ',' looking for beginning of value"},
		// é is one character of two bytes: x is the 7th character.
		{`{"é": x}`, "line 1, column 7: invalid character 'x' looking for beginning of value"},
		{"{\n  \"a\": 1\n  \"b\": 2\n}", "line 3, column 3: invalid character '\"' after object key:value pair"},
		{`{"a": 1`, "line 1, column 7: unexpected end of JSON input"},
		{``, "line 1, column 1: unexpected end of JSON input"},
		{"{\"a\": 1}\n\n  x", "line 3, column 3: trailing data after the JSON value"},
		{`{} {}`, "line 1, column 4: trailing data after the JSON value"},
		{`[1] ]`, "line 1, column 5: trailing data after the JSON value"},
		// Nesting deeper than encoding/json allows (10,000) is its error.
		{strings.Repeat("[", 20000), "line 1, column 10001: invalid character '[' exceeded max depth"},
		// Deeper than DecodeJSON allows (1,000): the next bracket.
		{strings.Repeat("[", 1002) + strings.Repeat("]", 1002), "line 1, column 1002: nested more than 1000 deep"},
	} {
		_, _, err := DecodeJSON([]byte(tc.in))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeJSON(%.40q): %v, want %s", tc.in, err, tc.want)
		}
	}
	// The deepest allowed: 1,001 arrays, the outermost at depth 0.
	if _, _, err := DecodeJSON([]byte(strings.Repeat("[", 1001) + strings.Repeat("]", 1001))); err != nil {
		t.Errorf("1,001 nested arrays: %v", err)
	}
}

// TestDecodeJSONNotUTF8 names the key or string whose bytes are not UTF-8
// by its JSON path; bytes that are not UTF-8 outside any string make data
// that is not JSON.
func TestDecodeJSONNotUTF8(t *testing.T) {
	for _, c := range []struct {
		data, path string
		err        bool
	}{
		{data: "{\"subject\":\"a\\\"\xff\"}", path: "subject"},
		{data: "{\"a\":1,\"b\":[true,null,{\"c\":\"x\"}],\"d\":{\"e\":[\"ok\",\"\xc0\xaf\"]}}", path: "d.e[1]"},
		{data: "{\"a\":[[1],[2,\"\xff\"]]}", path: "a[1][1]"},
		{data: "{\"a\":{},\"b\xff\":1}", path: "b\uFFFD"},
		{data: "{\"a\":[{\"b\":\"ok\"},{\"b\":\"ok\",\"\xed\xa0\x80\":2}]}", path: "a[1].\uFFFD\uFFFD\uFFFD"},
		{data: "[\"\xff\"]", path: "[0]"},
		{data: "\"\xff\"", path: ""},
		{data: "\xff{\"a\":\"b\"}", err: true},
		{data: "{\"a\":\"b\"} \xff", err: true},
		{data: "{\"a\" \"\xff\"}", err: true},
	} {
		_, problems, err := DecodeJSON([]byte(c.data))
		switch {
		case c.err:
			if err == nil {
				t.Errorf("DecodeJSON(%q): no error, want one", c.data)
			}
		case err != nil:
			t.Errorf("DecodeJSON(%q): %v", c.data, err)
		case len(problems) != 1 || problems[0].Path != c.path || !strings.Contains(problems[0].Message, "not valid UTF-8"):
			t.Errorf("DecodeJSON(%q) problems %v, want one at %q saying not valid UTF-8", c.data, problems, c.path)
		}
	}
	// U+FFFD itself, written or escaped, and an escaped lone surrogate are
	// valid: read as U+FFFD without a problem.
	for _, data := range []string{"{\"a\":\"\uFFFD\"}", `{"a":"\ufffd"}`, `{"a":"\ud800"}`} {
		if _, problems, err := DecodeJSON([]byte(data)); err != nil || len(problems) != 0 {
			t.Errorf("DecodeJSON(%q) = %v, %v; want no problem", data, problems, err)
		}
	}
}
