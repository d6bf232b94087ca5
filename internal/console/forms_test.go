package console

import (
	"errors"
	"reflect"
	"testing"

	"github.com/statusd/statusd"
)

// TestRefuse: an action's refusal is split into its fields' problems; a
// problem of a field the form does not show, or a sentence, goes to "";
// a part that names no field continues the one before; an error that is
// no refusal is left to the error page.
func TestRefuse(t *testing.T) {
	for _, tc := range []struct {
		err    error
		status int
		want   map[string][]string
	}{
		{statusd.Errorf(statusd.EInvalidField, "name: must not be empty; url: must be http or https; name: is too long"), 422,
			map[string][]string{"name": {"must not be empty", "is too long"}, "url": {"must be http or https"}}},
		{statusd.Errorf(statusd.EInvalidField, "component_ids[1]: no component has id 9"), 422,
			map[string][]string{"component_ids": {"no component has id 9"}}},
		{statusd.Errorf(statusd.EConflict, "component 1 has 1 components below it; delete them first"), 409,
			map[string][]string{"": {"component 1 has 1 components below it; delete them first"}}},
		{statusd.Errorf(statusd.EInvalidTransition, "state: subscriber 2 is pending"), 422,
			map[string][]string{"state": {"subscriber 2 is pending"}}},
		{statusd.Errorf(statusd.EInvalidField, "type: must be one of incident, maintenance; name: is required"), 422,
			map[string][]string{"": {"type: must be one of incident, maintenance"}, "name": {"is required"}}},
		{statusd.Errorf(statusd.EInvalidField, "url: a; b; component_ids[0]: no component has id 0"), 422,
			map[string][]string{"url": {"a; b"}, "component_ids": {"no component has id 0"}}},
		{statusd.Errorf(statusd.ENotFound, "component 7 not found"), 0, map[string][]string{}},
		{errors.New("disk full"), 0, map[string][]string{}},
	} {
		f := newForm(nil, "name", "url", "component_ids", "state")
		if status := f.refuse(tc.err); status != tc.status || !reflect.DeepEqual(f.Problems, tc.want) {
			t.Errorf("%v: %d %v, want %d %v", tc.err, status, f.Problems, tc.status, tc.want)
		}
	}
}
