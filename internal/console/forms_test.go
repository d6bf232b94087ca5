package console

import (
	"errors"
	"reflect"
	"testing"

	"github.com/statusd/statusd"
)

// TestRefuse: an action's refusal is split into its fields' problems; a
// message of no field, or a sentence, goes to ""; an error that is no
// refusal is left to the error page.
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
		{statusd.Errorf(statusd.ENotFound, "component 7 not found"), 0, nil},
		{errors.New("disk full"), 0, nil},
	} {
		var f form
		if status := f.refuse(tc.err); status != tc.status || !reflect.DeepEqual(f.Problems, tc.want) {
			t.Errorf("%v: %d %v, want %d %v", tc.err, status, f.Problems, tc.status, tc.want)
		}
	}
}
