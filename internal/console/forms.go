package console

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/app"
)

// form is a form as sent, and what is wrong with it, by field (the admin
// API's names): a refused form is shown again with its values and each
// problem at its field; "" holds the problems of no field that it shows.
type form struct {
	Values   url.Values
	Problems map[string][]string
	fields   []string // the fields it shows problems at
}

// newForm is a form of fields with values (nil: none) as sent.
func newForm(values url.Values, fields ...string) *form {
	if values == nil {
		values = url.Values{}
	}
	return &form{Values: values, Problems: map[string][]string{}, fields: fields}
}

// readForm parses the form of a POST, its body limited as the admin
// API's, which shows problems at fields.
func readForm(w http.ResponseWriter, r *http.Request, fields ...string) (*form, error) {
	r.Body = http.MaxBytesReader(w, r.Body, app.MaxBody)
	if err := r.ParseForm(); err != nil {
		return nil, statusd.Errorf(statusd.EInvalidBody, "the form could not be read (%v); please send it again from its page", err)
	}
	return newForm(r.PostForm, fields...), nil
}

// submit serves a form of fields: it reads it and runs act, which reads
// its fields (noting the problems of those it cannot read, and then doing
// nothing) and returns the action's error. When the form has no problems,
// done answers; when act's error is a refusal, or the form has problems,
// again shows it once more, with the status and each problem at its field;
// any other error is answered as it is.
func submit(w http.ResponseWriter, r *http.Request, fields []string, act func(f *form) error,
	again func(status int, f *form) error, done func() error) error {
	f, err := readForm(w, r, fields...)
	if err != nil {
		return err
	}
	status := http.StatusUnprocessableEntity
	if err := act(f); err != nil {
		if status = f.refuse(err); status == 0 {
			return err
		}
	}
	if f.Failed() {
		return again(status, f)
	}
	return done()
}

// back is a done of submit: 303 to the console's path.
func back(w http.ResponseWriter, r *http.Request, path string) func() error {
	return func() error {
		http.Redirect(w, r, Root+path, http.StatusSeeOther)
		return nil
	}
}

// Get is the value sent for the field key.
func (f form) Get(key string) string { return f.Values.Get(key) }

// Has reports whether the field key was sent: a checkbox is ticked.
func (f form) Has(key string) bool { return f.Values.Has(key) }

// HasValue reports whether value is one of a repeated field's.
func (f form) HasValue(key string, value int64) bool {
	return slices.Contains(f.Values[key], strconv.FormatInt(value, 10))
}

// Problem is the problems of the field key ("": of no field), for the
// template "problems".
func (f form) Problem(key string) fieldProblems { return fieldProblems{key, f.Problems[key]} }

// fieldProblems are a field's problems, as the template "problems" shows
// them: the first with the id key-problem.
type fieldProblems struct {
	Field string
	List  []string
}

// Failed reports whether the form has problems.
func (f form) Failed() bool { return len(f.Problems) > 0 }

// problem notes a problem of the field key.
func (f *form) problem(key, message string) {
	if f.Problems == nil {
		f.Problems = map[string][]string{}
	}
	f.Problems[key] = append(f.Problems[key], message)
}

// refusedStatus are the answers of the actions that a form shows at its
// fields, and the status it is shown with.
var refusedStatus = map[string]int{
	statusd.EInvalidField:      http.StatusUnprocessableEntity,
	statusd.EInvalidTransition: http.StatusUnprocessableEntity,
	statusd.EInvalidParameter:  http.StatusUnprocessableEntity,
	statusd.EConflict:          http.StatusConflict,
}

// refuse notes the problems of err, an action's refusal, at their fields
// (statusd.Error's Problems; component_ids[2] is component_ids'): a
// problem of a field the form does not show goes to "" with its path, and
// a refusal that names no field (a conflict, a move the notice cannot
// make) is one sentence of "". It returns the status to show the form
// again with; 0 when err is not a refusal, but a failure to answer as it
// is.
func (f *form) refuse(err error) int {
	status := refusedStatus[statusd.ErrorCode(err)]
	if status == 0 {
		return 0
	}
	list := statusd.ProblemsOf(err)
	if len(list) == 0 {
		f.problem("", statusd.ErrorMessage(err))
	}
	for _, p := range list {
		key, _, _ := strings.Cut(p.Path, "[")
		if slices.Contains(f.fields, key) {
			f.problem(key, p.Message)
		} else {
			f.problem("", p.String())
		}
	}
	return status
}

// text is the form's text field key, for an action's body: nil when it was
// not sent; set even when empty, so that the action says that it must not
// be.
func (f form) text(key string) *string {
	if !f.Has(key) {
		return nil
	}
	v := strings.ReplaceAll(f.Get(key), "\r\n", "\n")
	return &v
}

// check is a checkbox, for an action's body: sent means ticked.
func (f form) check(key string) *bool {
	v := f.Has(key)
	return &v
}

// ids reads a repeated field of component ids, noting those that are not
// ids as its problems.
func (f *form) ids(key string) *[]int64 {
	ids := []int64{}
	for _, v := range f.Values[key] {
		id, err := strconv.ParseInt(v, 10, 64)
		if err != nil || id <= 0 {
			f.problem(key, fmt.Sprintf("%q is not a component id", v))
			continue
		}
		ids = append(ids, id)
	}
	return &ids
}

// timeLayout is how the console writes and reads times: a datetime-local
// input's value, in UTC.
const timeLayout = "2006-01-02T15:04"

// time reads a time field: a datetime-local value (with or without
// seconds) taken as UTC, or RFC 3339 text; empty is no time.
func (f *form) time(key string) statusd.Field[string] {
	v := strings.TrimSpace(f.Get(key))
	if v == "" {
		return statusd.Field[string]{Set: true}
	}
	for _, layout := range []string{timeLayout, timeLayout + ":05", time.RFC3339} {
		if t, err := time.ParseInLocation(layout, v, time.UTC); err == nil {
			s := t.UTC().Format(time.RFC3339)
			return statusd.Field[string]{Set: true, Value: &s}
		}
	}
	f.problem(key, fmt.Sprintf("%q is not a time: write it like 2026-01-31T09:30, in UTC", v))
	return statusd.Field[string]{}
}

// formTime is t as a time field shows it; "" for none.
func formTime(t *time.Time) string {
	if t == nil {
		return ""
	}
	return t.UTC().Format(timeLayout)
}

// fieldsView is what the layout's "message" (a message and notify) and
// "state" (a select of states) show: the form, the input's id, its label
// or the states offered, and whether the input has the focus.
type fieldsView struct {
	Form      *form
	ID        string
	Label     string
	States    []statusd.State
	Autofocus bool
}
