package admin

import "testing"

// TestNotUTF8 names the key or string whose bytes are not UTF-8 by its JSON
// path, and nothing when they are outside any string.
func TestNotUTF8(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"{\"subject\":\"a\\\"\xff\"}", "subject"},
		{"{\"a\":1,\"b\":[true,null,{\"c\":\"x\"}],\"d\":{\"e\":[\"ok\",\"\xc0\xaf\"]}}", "d.e[1]"},
		{"{\"a\":[[1],[2,\"\xff\"]]}", "a[1][1]"},
		{"{\"a\":{},\"b\xff\":1}", "b\uFFFD"},
		{"{\"a\":[{\"b\":\"ok\"},{\"b\":\"ok\",\"\xed\xa0\x80\":2}]}", "a[1].\uFFFD\uFFFD\uFFFD"},
		{"\xff{\"a\":\"b\"}", ""},
		{"{\"a\":\"b\"} \xff", ""},
		{"[\"\xff\"]", "[0]"},
		{"\"\xff\"", ""},
		{"{\"a\" \"\xff\"}", ""},
	} {
		if got := notUTF8([]byte(c.body)); got != c.want {
			t.Errorf("notUTF8(%q) = %q, want %q", c.body, got, c.want)
		}
	}
}
