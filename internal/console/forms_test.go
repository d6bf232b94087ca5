package console

import (
	"errors"
	"reflect"
	"testing"

	"github.com/statusd/statusd"
)

// TestRefuse: an action's refusal is put at its fields' problems, by
// their paths; a problem of a field the form does not show, or a refusal
// that names no field, goes to ""; an error that is no refusal is left to
// the error page.
func TestRefuse(t *testing.T) {
	invalid := func(code string, problems ...statusd.Problem) error { return statusd.Invalid(code, problems) }
	for _, tc := range []struct {
		err    error
		status int
		want   map[string][]string
	}{
		{invalid(statusd.EInvalidField, statusd.Problem{Path: "name", Message: "must not be empty"},
			statusd.Problem{Path: "url", Message: "must be http or https"}, statusd.Problem{Path: "name", Message: "is too long"}), 422,
			map[string][]string{"name": {"must not be empty", "is too long"}, "url": {"must be http or https"}}},
		{statusd.FieldError(statusd.EInvalidField, "component_ids[1]", "no component has id 9"), 422,
			map[string][]string{"component_ids": {"no component has id 9"}}},
		{statusd.Errorf(statusd.EConflict, "component 1 has 1 components below it; delete them first"), 409,
			map[string][]string{"": {"component 1 has 1 components below it; delete them first"}}},
		{statusd.FieldError(statusd.EInvalidTransition, "state", "subscriber 2 is pending"), 422,
			map[string][]string{"state": {"subscriber 2 is pending"}}},
		{invalid(statusd.EInvalidField, statusd.Problem{Path: "type", Message: "must be one of incident, maintenance"},
			statusd.Problem{Path: "name", Message: "is required"}), 422,
			map[string][]string{"": {"type: must be one of incident, maintenance"}, "name": {"is required"}}},
		{invalid(statusd.EInvalidField, statusd.Problem{Path: "url", Message: "a; b"},
			statusd.Problem{Path: "component_ids[0]", Message: "no component has id 0"}), 422,
			map[string][]string{"url": {"a; b"}, "component_ids": {"no component has id 0"}}},
		{statusd.Errorf(statusd.EInvalidTransition, "the incident is resolved; going back to identified requires an explicit reopen"), 422,
			map[string][]string{"": {"the incident is resolved; going back to identified requires an explicit reopen"}}},
		{statusd.Errorf(statusd.ENotFound, "component 7 not found"), 0, map[string][]string{}},
		{errors.New("disk full"), 0, map[string][]string{}},
	} {
		f := newForm(nil, "name", "url", "component_ids", "state")
		if status := f.refuse(tc.err); status != tc.status || !reflect.DeepEqual(f.Problems, tc.want) {
			t.Errorf("%v: %d %v, want %d %v", tc.err, status, f.Problems, tc.status, tc.want)
		}
	}
}
