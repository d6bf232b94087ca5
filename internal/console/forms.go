package console

import (
	"net/http"
	"net/url"
	"strings"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/admin"
)

// form is a form as sent, and what is wrong with it, by field: a refused
// form is shown again with its values and each problem at its field (""
// holds those of no field).
type form struct {
	Values   url.Values
	Problems map[string][]string
}

// Get is the value sent for the field key.
func (f form) Get(key string) string { return f.Values.Get(key) }

// Problem lists the problems of the field key.
func (f form) Problem(key string) []string { return f.Problems[key] }

// readForm parses the form of a POST, its body limited as the admin API's.
func readForm(w http.ResponseWriter, r *http.Request) (form, error) {
	r.Body = http.MaxBytesReader(w, r.Body, admin.MaxBody)
	if err := r.ParseForm(); err != nil {
		return form{}, statusd.Errorf(statusd.EInvalidBody, "the form could not be read: %v", err)
	}
	return form{Values: r.PostForm}, nil
}

// submit serves a form: it reads it and runs act; when act succeeds, done
// answers; when it is refused, again shows the form once more, with the
// status and each problem at its field; any other error is answered as it
// is.
func submit(w http.ResponseWriter, r *http.Request, act func(f *form) error, again func(status int, f form) error, done func() error) error {
	f, err := readForm(w, r)
	if err != nil {
		return err
	}
	if err := act(&f); err != nil {
		if status := f.refuse(err); status != 0 {
			return again(status, f)
		}
		return err
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

// refusedStatus are the answers of the actions that a form shows at its
// fields, and the status it is shown with.
var refusedStatus = map[string]int{
	statusd.EInvalidField:      http.StatusUnprocessableEntity,
	statusd.EInvalidTransition: http.StatusUnprocessableEntity,
	statusd.EInvalidParameter:  http.StatusUnprocessableEntity,
	statusd.EConflict:          http.StatusConflict,
}

// refuse notes the problems of err, an action's refusal, at the fields
// its message names ("name: is required; url: ..."; a conflict is one
// sentence, of no field) and returns the status
// to show the form again with; 0 when err is not a refusal, but a failure
// to answer as it is.
func (f *form) refuse(err error) int {
	status := refusedStatus[statusd.ErrorCode(err)]
	if status == 0 {
		return 0
	}
	f.Problems = map[string][]string{}
	parts := []string{statusd.ErrorMessage(err)}
	if status == http.StatusUnprocessableEntity {
		parts = strings.Split(parts[0], "; ") // field: problem; field: problem
	}
	for _, part := range parts {
		key, msg, ok := strings.Cut(part, ": ")
		key, _, _ = strings.Cut(key, "[") // component_ids[2] is component_ids'
		if !ok || strings.ContainsAny(key, " \"") {
			key, msg = "", part
		}
		f.Problems[key] = append(f.Problems[key], msg)
	}
	return status
}

// text is the form's field key as an action's optional text: nil when it
// was not sent.
func (f form) text(key string) *string {
	if _, ok := f.Values[key]; !ok {
		return nil
	}
	v := f.Get(key)
	return &v
}

// checked is a checkbox's state: sent means on.
func (f form) checked(key string) bool { return f.Get(key) != "" }
