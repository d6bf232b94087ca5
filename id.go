package statusd

import (
	"strconv"
	"strings"
)

// ParseID reads the id of a record (what: "notice", "component") from a
// request path, the one rule for every path that takes an id. An id is an
// integer written in decimal digits, with an optional leading minus;
// anything else ("+5", " 5", "5a", "0x5", "") is 400 invalid_parameter
// naming id. An integer that no record can have (ids are >= 1), zero,
// negative or past int64, is 404 not_found, like an id that names nothing.
func ParseID(what, v string) (int64, error) {
	digits := strings.TrimPrefix(v, "-")
	if digits == "" || strings.Trim(digits, "0123456789") != "" {
		return 0, Errorf(EInvalidParameter, "id: %q is not an integer", v)
	}
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id < 1 {
		return 0, Errorf(ENotFound, "%s %s not found", what, v)
	}
	return id, nil
}

// ParsePage reads a list's page parameter, the one rule for every list: an
// integer >= 1 written in decimal digits, else 400 invalid_parameter naming
// page. One too large for 64 bits is simply past the end: 1<<62, which no
// list reaches and whose offset in 25s still fits in int64.
func ParsePage(v string) (int64, error) {
	if v == "" || strings.Trim(v, "0123456789") != "" || strings.Trim(v, "0") == "" {
		return 0, Errorf(EInvalidParameter, "page: %q is not an integer >= 1", v)
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 1 << 62, nil
	}
	return n, nil
}
