package statusd

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Problem is one thing wrong with an import document, at a JSON path such as
// notices[3].updates[0].state.
type Problem struct {
	Path    string
	Message string
}

func (p Problem) String() string {
	if p.Path == "" {
		return p.Message
	}
	return p.Path + ": " + p.Message
}

// ValidationError lists every problem found in a document.
type ValidationError struct {
	Problems []Problem
}

// Error implements the error interface: one problem a line.
func (e *ValidationError) Error() string {
	lines := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		lines[i] = p.String()
	}
	return strings.Join(lines, "\n")
}

// DecodeDocument reads an import document (CONTRACT C5), applies the defaults
// of omitted keys, gives ids to updates that have none, and validates it. On
// any problem it returns a *ValidationError listing every problem found.
func DecodeDocument(r io.Reader) (*Document, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, &ValidationError{[]Problem{{"", "the document could not be read: " + err.Error()}}}
	}
	raw, problems, err := DecodeJSON(data)
	if err != nil {
		return nil, &ValidationError{[]Problem{{"", "not a JSON document: " + err.Error()}}}
	}
	d := reader{problems: problems}
	doc := d.document(raw)
	// The rules that span the document are checked too, except where a
	// problem was already found at the same place or above it.
	reported := make(map[string]bool, len(d.problems))
	for _, p := range d.problems {
		reported[p.Path] = true
	}
	for _, p := range doc.Validate() {
		if !reportedAt(reported, p.Path) {
			d.problems = append(d.problems, p)
			reported[p.Path] = true
		}
	}
	if len(d.problems) > 0 {
		return nil, &ValidationError{d.problems}
	}
	return doc, nil
}

// reader turns the generic JSON tree into a Document, collecting a Problem
// for every key of the wrong type, missing or unknown.
type reader struct {
	problems []Problem
}

func (r *reader) add(path, format string, args ...any) {
	r.problems = append(r.problems, Problem{path, fmt.Sprintf(format, args...)})
}

// reportedAt reports whether reported holds path or a path that contains
// it: the root (""), or path up to a "." or a "[".
func reportedAt(reported map[string]bool, path string) bool {
	if reported[""] || reported[path] {
		return true
	}
	for i := 0; i < len(path); i++ {
		if (path[i] == '.' || path[i] == '[') && reported[path[:i]] {
			return true
		}
	}
	return false
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func index(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }

// object checks that v is an object with only the allowed keys.
func (r *reader) object(path string, v any, allowed ...string) map[string]any {
	m, ok := v.(map[string]any)
	if !ok {
		r.add(path, "must be an object")
		return nil
	}
	for k := range m {
		if !contains(allowed, k) {
			r.add(join(path, k), "unknown key")
		}
	}
	return m
}

func (r *reader) array(path string, v any) []any {
	if v == nil {
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		r.add(path, "must be an array")
	}
	return a
}

// present returns the value of key and whether it is there and not null.
func present(m map[string]any, key string) (any, bool) {
	v, ok := m[key]
	return v, ok && v != nil
}

func (r *reader) str(path string, m map[string]any, key string, required bool) string {
	v, ok := present(m, key)
	if !ok {
		if required {
			r.add(join(path, key), "is required")
		}
		return ""
	}
	s, isStr := v.(string)
	if !isStr {
		r.add(join(path, key), "must be a string")
	}
	return s
}

func (r *reader) integer(path string, v any) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok {
		r.add(path, "must be an integer")
		return 0, false
	}
	i, err := strconv.ParseInt(n.String(), 10, 64)
	if err != nil {
		r.add(path, "%s is not an integer in range", n)
		return 0, false
	}
	return i, true
}

func (r *reader) optInt(path string, m map[string]any, key string) *int64 {
	v, ok := present(m, key)
	if !ok {
		return nil
	}
	i, ok := r.integer(join(path, key), v)
	if !ok {
		return nil
	}
	return &i
}

func (r *reader) boolean(path string, m map[string]any, key string) bool {
	v, ok := present(m, key)
	if !ok {
		return false
	}
	b, isBool := v.(bool)
	if !isBool {
		r.add(join(path, key), "must be true or false")
	}
	return b
}

func (r *reader) optTime(path string, m map[string]any, key string) *time.Time {
	v, ok := present(m, key)
	if !ok {
		return nil
	}
	s, isStr := v.(string)
	t, err := time.Parse(time.RFC3339Nano, s)
	if !isStr || err != nil {
		r.add(join(path, key), "must be a timestamp like 2026-01-01T00:00:00.000Z")
		return nil
	}
	t = t.UTC().Truncate(time.Millisecond)
	return &t
}

func (r *reader) time(path string, m map[string]any, key string) time.Time {
	if _, ok := present(m, key); !ok {
		r.add(join(path, key), "is required")
		return time.Time{}
	}
	if t := r.optTime(path, m, key); t != nil {
		return *t
	}
	return time.Time{}
}

// stamps reads created_at and updated_at; updated_at defaults to created_at.
func (r *reader) stamps(path string, m map[string]any) (created, updated time.Time) {
	created = r.time(path, m, "created_at")
	if u := r.optTime(path, m, "updated_at"); u != nil {
		return created, *u
	}
	return created, created
}

func (r *reader) document(v any) *Document {
	doc := &Document{}
	m := r.object("", v, "page", "components", "notices", "subscribers", "sources")
	if m == nil {
		return doc
	}
	if p, ok := present(m, "page"); ok {
		doc.Page = r.page("page", p)
	} else {
		r.add("page", "is required")
	}
	for i, c := range r.array("components", m["components"]) {
		doc.Components = append(doc.Components, r.component(index("components", i), c, i+1))
	}
	for i, n := range r.array("notices", m["notices"]) {
		doc.Notices = append(doc.Notices, r.notice(index("notices", i), n))
	}
	assignUpdateIDs(doc.Notices)
	// An absent (or null) list keeps the store's subscribers; an empty one
	// removes them.
	if subs, ok := present(m, "subscribers"); ok {
		doc.Subscribers = []Subscriber{}
		for i, s := range r.array("subscribers", subs) {
			doc.Subscribers = append(doc.Subscribers, r.subscriber(index("subscribers", i), s))
		}
	}
	if srcs, ok := present(m, "sources"); ok {
		doc.Sources = []Source{}
		for i, s := range r.array("sources", srcs) {
			doc.Sources = append(doc.Sources, r.source(index("sources", i), s))
		}
	}
	return doc
}

// source reads a source of alerts (CONTRACT C9): its rules and heartbeat
// are read as the admin API reads them, its token's hash is 64 hex
// digits.
func (r *reader) source(path string, v any) Source {
	m := r.object(path, v, "id", "name", "format", "rules", "heartbeat", "token_hash", "secret", "created_at")
	var s Source
	if m == nil {
		return s
	}
	s.ID = r.id(path, m)
	s.Name = r.str(path, m, "name", true)
	s.Format = r.str(path, m, "format", true)
	s.Secret = r.str(path, m, "secret", false)
	s.CreatedAt = r.time(path, m, "created_at")
	hash, err := hex.DecodeString(r.str(path, m, "token_hash", true))
	if err != nil || len(hash) != sha256.Size {
		r.add(join(path, "token_hash"), "must be the SHA-256 of the source's token, in 64 hex digits")
	}
	s.TokenHash = hash
	// The rules and the heartbeat have the admin API's shape.
	for _, f := range []struct {
		key string
		dst any
	}{{"rules", &s.Rules}, {"heartbeat", &s.Heartbeat}} {
		if raw, ok := present(m, f.key); ok {
			key, dst := f.key, f.dst
			b, _ := json.Marshal(raw)
			dec := json.NewDecoder(bytes.NewReader(b))
			dec.DisallowUnknownFields()
			if err := dec.Decode(dst); err != nil {
				r.add(join(path, key), "%v", strings.TrimPrefix(err.Error(), "json: "))
			}
		}
	}
	return s
}

func (r *reader) page(path string, v any) Page {
	m := r.object(path, v, "name", "url", "state_texts", "created_at", "updated_at")
	if m == nil {
		return Page{}
	}
	p := Page{Name: r.str(path, m, "name", true), URL: r.str(path, m, "url", true)}
	if _, ok := present(m, "created_at"); !ok {
		// A page written by hand need not say when it began: now, the
		// time of the import.
		m["created_at"] = time.Now().UTC().Format(TimeLayout)
	}
	p.CreatedAt, p.UpdatedAt = r.stamps(path, m)
	if st, ok := present(m, "state_texts"); ok {
		sp := join(path, "state_texts")
		if tm := r.object(sp, st, "operational", "degraded", "under_maintenance"); tm != nil {
			p.StateTexts = StateTexts{
				Operational:      r.str(sp, tm, "operational", false),
				Degraded:         r.str(sp, tm, "degraded", false),
				UnderMaintenance: r.str(sp, tm, "under_maintenance", false),
			}
		}
	}
	return p
}

func (r *reader) component(path string, v any, position int) Component {
	m := r.object(path, v, "id", "key", "name", "description", "parent_id", "metrics_enabled", "created_at", "updated_at")
	c := Component{Position: position}
	if m == nil {
		return c
	}
	c.ID = r.id(path, m)
	c.Key = r.str(path, m, "key", false)
	c.Name = r.str(path, m, "name", true)
	c.Description = r.str(path, m, "description", false)
	c.ParentID = r.optInt(path, m, "parent_id")
	c.MetricsEnabled = r.boolean(path, m, "metrics_enabled")
	c.CreatedAt, c.UpdatedAt = r.stamps(path, m)
	return c
}

// typeKeys are the notice keys that belong to one type only.
var typeKeys = []struct {
	key   string
	owner NoticeType
}{
	{"begins_at", Planned}, {"ends_at", Planned}, {"automate", Planned},
	{"expires_at", General}, {"impact_seconds", Unplanned}, {"impact", Unplanned},
}

func (r *reader) notice(path string, v any) Notice {
	m := r.object(path, v, "id", "type", "subject", "tag_list", "component_ids", "impact_seconds", "impact",
		"begins_at", "ends_at", "automate", "expires_at", "created_at", "updated_at", "updates")
	var n Notice
	if m == nil {
		return n
	}
	n.ID = r.id(path, m)
	n.Type = NoticeType(r.str(path, m, "type", true))
	if _, given := present(m, "type"); given && !n.Type.Valid() {
		r.add(join(path, "type"), "%q is not a notice type (general, planned, unplanned)", n.Type)
	}
	for _, tk := range typeKeys {
		if _, ok := present(m, tk.key); ok && n.Type.Valid() && n.Type != tk.owner {
			r.add(join(path, tk.key), "only %s notices have %s; leave it out or null", tk.owner, tk.key)
		}
	}
	n.Subject = r.str(path, m, "subject", true)
	n.TagList = []string{}
	for i, t := range r.array(join(path, "tag_list"), m["tag_list"]) {
		s, ok := t.(string)
		if !ok {
			r.add(index(join(path, "tag_list"), i), "must be a string")
		}
		n.TagList = append(n.TagList, s)
	}
	n.ComponentIDs = r.componentIDs(path, m)
	n.ImpactSeconds = r.optInt(path, m, "impact_seconds")
	n.Severity = Severity(r.str(path, m, "impact", false))
	n.BeginsAt = r.optTime(path, m, "begins_at")
	n.EndsAt = r.optTime(path, m, "ends_at")
	n.Automate = r.boolean(path, m, "automate")
	n.ExpiresAt = r.optTime(path, m, "expires_at")
	n.CreatedAt, n.UpdatedAt = r.stamps(path, m)
	up := join(path, "updates")
	for i, u := range r.array(up, m["updates"]) {
		n.Updates = append(n.Updates, r.update(index(up, i), u))
	}
	return n
}

// id reads the required id of an object.
func (r *reader) id(path string, m map[string]any) int64 {
	if _, ok := present(m, "id"); !ok {
		r.add(join(path, "id"), "is required")
		return 0
	}
	if id := r.optInt(path, m, "id"); id != nil {
		return *id
	}
	return 0
}

// componentIDs reads an object's optional component_ids ([] when absent).
func (r *reader) componentIDs(path string, m map[string]any) []int64 {
	ids := []int64{}
	for i, c := range r.array(join(path, "component_ids"), m["component_ids"]) {
		if id, ok := r.integer(index(join(path, "component_ids"), i), c); ok {
			ids = append(ids, id)
		}
	}
	return ids
}

// subscriber reads a subscriber of CONTRACT C7. Its state defaults to
// active (an operator moving a list); what the document does not carry
// (the token of its links, its failures) starts afresh.
func (r *reader) subscriber(path string, v any) Subscriber {
	m := r.object(path, v, "id", "channel", "address", "component_ids", "state", "secret", "created_at")
	s := Subscriber{State: SubscriberActive}
	if m == nil {
		return s
	}
	s.ID = r.id(path, m)
	s.Channel = Channel(r.str(path, m, "channel", true))
	s.Address = r.str(path, m, "address", true)
	s.ComponentIDs = r.componentIDs(path, m)
	if _, ok := present(m, "state"); ok {
		s.State = SubscriberState(r.str(path, m, "state", false))
	}
	s.Secret = r.str(path, m, "secret", false)
	s.CreatedAt = r.time(path, m, "created_at")
	s.UpdatedAt = s.CreatedAt
	return s
}

func (r *reader) update(path string, v any) Update {
	m := r.object(path, v, "id", "state", "content", "created_at", "updated_at", "notified", "component_changes")
	var u Update
	if m == nil {
		return u
	}
	if id := r.optInt(path, m, "id"); id != nil {
		if *id <= 0 {
			r.add(join(path, "id"), "must be a positive integer")
		}
		u.ID = *id
	}
	u.State = State(r.str(path, m, "state", false))
	u.Content = r.str(path, m, "content", true)
	u.CreatedAt, u.UpdatedAt = r.stamps(path, m)
	u.Notified = r.boolean(path, m, "notified")
	u.Changes = r.changes(join(path, "component_changes"), m["component_changes"])
	return u
}

// changes reads an update's component_changes (absent or null: none).
func (r *reader) changes(path string, v any) []ComponentChange {
	var out []ComponentChange
	for i, cv := range r.array(path, v) {
		p := index(path, i)
		m := r.object(p, cv, "component_id", "old_state", "new_state", "old_impact", "new_impact")
		if m == nil {
			continue
		}
		var c ComponentChange
		if id := r.optInt(p, m, "component_id"); id != nil {
			c.ComponentID = *id
		}
		c.Old, c.New = PageState(r.str(p, m, "old_state", true)), PageState(r.str(p, m, "new_state", true))
		c.OldSeverity, c.NewSeverity = Severity(r.str(p, m, "old_impact", false)), Severity(r.str(p, m, "new_impact", false))
		out = append(out, c)
	}
	return out
}

// assignUpdateIDs gives updates without an id consecutive ids in document
// order, from the largest id present plus one, or from 1.
func assignUpdateIDs(notices []Notice) {
	var next int64
	for _, n := range notices {
		for _, u := range n.Updates {
			next = max(next, u.ID)
		}
	}
	for i := range notices {
		for j := range notices[i].Updates {
			if notices[i].Updates[j].ID == 0 {
				next++
				notices[i].Updates[j].ID = next
			}
		}
	}
}

// Validate checks the rules of CONTRACT C5 that span the document: unique
// positive ids, valid and unique component keys, an existing parent and no
// cycle, existing component ids, valid states and update order, and the
// planned schedule. It assumes the document's keys have the right types,
// and returns every problem found.
func (doc *Document) Validate() []Problem {
	var r reader
	r.validatePage(&doc.Page)
	comps := make(map[int64]int, len(doc.Components))
	keys := make(map[string]int64)
	for i, c := range doc.Components {
		p := index("components", i)
		switch _, dup := comps[c.ID]; {
		case c.ID <= 0:
			r.add(join(p, "id"), "must be a positive integer")
		case dup:
			r.add(join(p, "id"), "%d is used by another component", c.ID)
		default:
			comps[c.ID] = i
		}
		switch other, dup := keys[c.Key]; {
		case CheckComponentKey(c.Key) != "":
			r.add(join(p, "key"), "%s", CheckComponentKey(c.Key))
		case dup:
			r.add(join(p, "key"), "%s", keyTaken(c.Key, other))
		case c.Key != "":
			keys[c.Key] = c.ID
		}
		if strings.TrimSpace(c.Name) == "" {
			r.add(join(p, "name"), "must not be empty")
		}
		if c.Position != i+1 {
			r.add(join(p, "position"), "must be %d", i+1)
		}
	}
	cycle := onCycle(doc.Components, comps)
	for i, c := range doc.Components {
		if c.ParentID == nil {
			continue
		}
		if _, ok := comps[*c.ParentID]; !ok {
			r.add(join(index("components", i), "parent_id"), "no component has id %d", *c.ParentID)
		} else if cycle[i] {
			r.add(join(index("components", i), "parent_id"), "%d makes a cycle in the component tree", *c.ParentID)
		}
	}
	notices := make(map[int64]bool, len(doc.Notices))
	updates := make(map[int64]bool)
	for i := range doc.Notices {
		n := &doc.Notices[i]
		p := index("notices", i)
		r.uniqueID(p, n.ID, notices, "notice")
		r.validateNotice(p, n, comps, updates)
		r.tooLong(join(p, "subject"), n.Subject, MaxSubject)
		for j, u := range n.Updates {
			r.tooLong(join(index(join(p, "updates"), j), "content"), u.Content, MaxContent)
		}
	}
	r.validateSubscribers(doc.Subscribers, comps)
	ids, names := map[int64]bool{}, map[string]bool{}
	for i := range doc.Sources {
		s, p := &doc.Sources[i], index("sources", i)
		r.uniqueID(p, s.ID, ids, "source")
		if names[s.Name] {
			r.add(join(p, "name"), "another source is named %q", s.Name)
		}
		names[s.Name] = true
		for _, problem := range CheckSource(s) {
			r.add(join(p, problem.Path), "%s", problem.Message)
		}
	}
	return r.problems
}

// tooLong notes a text at p of more than max characters.
func (r *reader) tooLong(p, s string, max int) {
	if msg := TooLong(s, max); msg != "" {
		r.add(p, "%s", msg)
	}
}

// uniqueID checks the id of an object at p: positive, and not the id of
// another object of its kind (seen, which it is added to).
func (r *reader) uniqueID(p string, id int64, seen map[int64]bool, kind string) {
	switch {
	case id <= 0:
		r.add(join(p, "id"), "must be a positive integer")
	case seen[id]:
		r.add(join(p, "id"), "%d is used by another %s", id, kind)
	default:
		seen[id] = true
	}
}

// validateSubscribers checks the subscribers of a document: unique
// positive ids, a channel, an address valid for it (private targets
// allowed: an import is an operator's act), once per channel, existing
// components, a state, and a secret only on webhooks, as statusd makes
// them.
func (r *reader) validateSubscribers(subs []Subscriber, comps map[int64]int) {
	ids := make(map[int64]bool, len(subs))
	type target struct {
		channel Channel
		address string
	}
	targets := make(map[target]bool, len(subs))
	for i := range subs {
		s := &subs[i]
		p := index("subscribers", i)
		r.uniqueID(p, s.ID, ids, "subscriber")
		key := target{s.Channel, AddressKey(s.Channel, s.Address)}
		switch err := checkAddress(s.Channel, s.Address); {
		case !s.Channel.Valid():
			r.add(join(p, "channel"), "%q is not a channel (%s)", s.Channel, nameList(Channels))
		case err != nil:
			r.add(join(p, "address"), "%s", strings.TrimPrefix(ErrorMessage(err), "address: "))
		case targets[key]:
			r.add(join(p, "address"), "another %s subscriber has the address %s", s.Channel, s.Address)
		default:
			targets[key] = true
		}
		r.validateComponentIDs(p, s.ComponentIDs, comps)
		if !s.State.Valid() {
			r.add(join(p, "state"), "%q is not a subscriber state (pending, active, quarantined, unsubscribed)", s.State)
		}
		switch {
		case s.Secret == "":
		case s.Channel.Valid() && s.Channel != Webhook:
			r.add(join(p, "secret"), "only webhook subscribers have a secret; leave it out")
		case !webhookSecret(s.Secret):
			r.add(join(p, "secret"), "must be whsec_ and the base64 of the signing key, as statusd gives it")
		}
	}
}

// checkAddress checks a subscriber's address for its channel: an email
// address, or a target URL, private ones allowed.
func checkAddress(c Channel, addr string) error {
	if c == Email {
		return CheckEmail(addr)
	}
	return CheckTarget(addr, true)
}

// webhookSecret reports whether s is a Standard Webhooks secret: "whsec_"
// and the standard base64 of a key.
func webhookSecret(s string) bool {
	key, ok := strings.CutPrefix(s, "whsec_")
	b, err := base64.StdEncoding.DecodeString(key)
	return ok && err == nil && len(b) > 0
}

// ValidateNotice checks one notice against the rules of CONTRACT C5 that
// concern it alone and the components it lists; paths are relative to the
// notice ("subject", "updates[1].state").
func ValidateNotice(n *Notice, components []Component) []Problem {
	var r reader
	comps := make(map[int64]int, len(components))
	for i, c := range components {
		comps[c.ID] = i
	}
	r.validateNotice("", n, comps, map[int64]bool{})
	return r.problems
}

func (r *reader) validatePage(p *Page) {
	if strings.TrimSpace(p.Name) == "" {
		r.add("page.name", "must not be empty")
	}
	if err := CheckPageURL(p.URL); err != nil {
		r.add("page.url", "%v", err)
	}
}

// CheckPageURL returns an error unless s is an absolute http or https URL
// with a host, as a page's url must be, and serve --base-url that replaces
// it in every url statusd emits.
func CheckPageURL(s string) error {
	if u, err := url.Parse(s); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q must be an absolute http or https URL", s)
	}
	return nil
}

// onCycle tells for each component whether following parents from it comes
// back to it. It takes linear time: a walk up the tree stops at the first
// component that an earlier walk passed.
func onCycle(cs []Component, byID map[int64]int) []bool {
	cycle := make([]bool, len(cs))
	walk := make([]int, len(cs)) // the walk that passed each component, from 1; 0 for none yet
	parent := func(i int) (int, bool) {
		if cs[i].ParentID == nil {
			return 0, false
		}
		k, ok := byID[*cs[i].ParentID]
		return k, ok
	}
	for start := range cs {
		for i := start; walk[i] == 0; {
			walk[i] = start + 1
			k, ok := parent(i)
			if !ok {
				break
			}
			if walk[k] == start+1 { // back on this walk: k is on a cycle, and so is every parent up from it
				for j := k; !cycle[j]; j, _ = parent(j) {
					cycle[j] = true
				}
				break
			}
			i = k
		}
	}
	return cycle
}

func (r *reader) validateNotice(p string, n *Notice, comps map[int64]int, updateIDs map[int64]bool) {
	if strings.TrimSpace(n.Subject) == "" {
		r.add(join(p, "subject"), "must not be empty")
	}
	for j, t := range n.TagList {
		if strings.TrimSpace(t) == "" {
			r.add(index(join(p, "tag_list"), j), "must not be empty")
		}
	}
	r.validateComponentIDs(p, n.ComponentIDs, comps)
	switch {
	case n.ImpactSeconds == nil:
	case *n.ImpactSeconds < 0:
		r.add(join(p, "impact_seconds"), "must be 0 or more")
	case *n.ImpactSeconds > MaxImpactSeconds:
		r.add(join(p, "impact_seconds"), "must be at most %d (100 years)", MaxImpactSeconds)
	}
	if n.Severity != "" {
		if _, err := ParseSeverity(string(n.Severity)); err != nil {
			r.add(join(p, "impact"), "%v", err)
		} else if n.Type != Unplanned {
			r.add(join(p, "impact"), "only unplanned notices have impact")
		}
	}
	if n.Type == Planned {
		switch {
		case n.BeginsAt == nil:
			r.add(join(p, "begins_at"), "is required for planned notices")
		case n.EndsAt == nil:
			r.add(join(p, "ends_at"), "is required for planned notices")
		case !n.BeginsAt.Before(*n.EndsAt):
			r.add(join(p, "ends_at"), "must be after begins_at")
		}
	}
	if len(n.Updates) == 0 {
		r.add(join(p, "updates"), "a notice needs at least one update")
	}
	for j, u := range n.Updates {
		up := index(join(p, "updates"), j)
		r.uniqueID(up, u.ID, updateIDs, "update")
		r.validateUpdateState(join(up, "state"), n.Type, u.State)
		if j > 0 && u.CreatedAt.Before(n.Updates[j-1].CreatedAt) {
			r.add(join(up, "created_at"), "is before the previous update's; update times never go backwards")
		}
		r.validateChanges(join(up, "component_changes"), u.Changes)
	}
}

// validateChanges checks an update's component_changes: a positive
// component id (a component deleted since keeps its history), component
// states, impacts only beside degraded (the worst impact of the current
// incidents that make it so), and a change of one or the other.
func (r *reader) validateChanges(p string, changes []ComponentChange) {
	for i, c := range changes {
		cp := index(p, i)
		if c.ComponentID <= 0 {
			r.add(join(cp, "component_id"), "must be a positive integer")
		}
		for _, f := range []struct {
			key, impactKey string
			state          PageState
			impact         Severity
		}{{"old_state", "old_impact", c.Old, c.OldSeverity}, {"new_state", "new_impact", c.New, c.NewSeverity}} {
			if f.state != PageOperational && f.state != PageDegraded && f.state != PageUnderMaintenance {
				r.add(join(cp, f.key), "%q is not a component state (operational, degraded, under_maintenance)", f.state)
			}
			switch _, err := ParseSeverity(string(f.impact)); {
			case f.impact == "":
			case f.state != PageDegraded:
				r.add(join(cp, f.impactKey), "is only given beside a degraded %s", f.key)
			case err != nil:
				r.add(join(cp, f.impactKey), "%v", err)
			}
		}
		if c.Old == c.New && c.OldSeverity == c.NewSeverity {
			r.add(join(cp, "new_state"), "is the old state, with the old impact; a change changes one")
		}
	}
}

// validateComponentIDs checks an object's component_ids: existing
// components, each once.
func (r *reader) validateComponentIDs(p string, ids []int64, comps map[int64]int) {
	seen := map[int64]bool{}
	for j, id := range ids {
		cp := index(join(p, "component_ids"), j)
		if _, ok := comps[id]; !ok {
			r.add(cp, "no component has id %d", id)
		} else if seen[id] {
			r.add(cp, "component %d is listed twice", id)
		}
		seen[id] = true
	}
}

func (r *reader) validateUpdateState(path string, t NoticeType, s State) {
	switch {
	case !t.Valid():
	case t == General && s != "":
		r.add(path, "updates of a general notice have no state")
	case t != General && s == "":
		r.add(path, "is required: one of %s", stateList(t))
	case t != General && !ValidState(t, s):
		r.add(path, "%q is not a state of a%s %s notice (%s)", s, article(t), t, stateList(t))
	}
}

func article(t NoticeType) string {
	if t == Unplanned {
		return "n"
	}
	return ""
}

func stateList(t NoticeType) string { return nameList(statesByType[t]) }

// nameList joins the names of a list of values: "viewer, publisher, owner".
func nameList[T ~string](list []T) string {
	names := make([]string, len(list))
	for i, v := range list {
		names[i] = string(v)
	}
	return strings.Join(names, ", ")
}

func contains[T comparable](list []T, v T) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

// The export encoding of the document, in the key order of CONTRACT C5.
type (
	docJSON struct {
		Page        pageJSON         `json:"page"`
		Components  []componentJSON  `json:"components"`
		Notices     []noticeJSON     `json:"notices"`
		Subscribers []subscriberJSON `json:"subscribers,omitzero"`
		Sources     []sourceJSON     `json:"sources,omitzero"`
	}
	sourceJSON struct {
		ID        int64        `json:"id"`
		Name      string       `json:"name"`
		Format    string       `json:"format"`
		Rules     []SignalRule `json:"rules"`
		Heartbeat *Heartbeat   `json:"heartbeat"`
		TokenHash string       `json:"token_hash"`
		Secret    string       `json:"secret,omitempty"`
		CreatedAt Time         `json:"created_at"`
	}
	pageJSON struct {
		Name       string          `json:"name"`
		URL        string          `json:"url"`
		StateTexts *stateTextsJSON `json:"state_texts,omitempty"`
		CreatedAt  Time            `json:"created_at"`
		UpdatedAt  Time            `json:"updated_at"`
	}
	stateTextsJSON struct {
		Operational      string `json:"operational,omitempty"`
		Degraded         string `json:"degraded,omitempty"`
		UnderMaintenance string `json:"under_maintenance,omitempty"`
	}
	componentJSON struct {
		ID             int64  `json:"id"`
		Key            string `json:"key,omitempty"`
		Name           string `json:"name"`
		Description    string `json:"description"`
		ParentID       *int64 `json:"parent_id"`
		MetricsEnabled bool   `json:"metrics_enabled"`
		CreatedAt      Time   `json:"created_at"`
		UpdatedAt      Time   `json:"updated_at"`
	}
	noticeJSON struct {
		ID            int64        `json:"id"`
		Type          NoticeType   `json:"type"`
		Subject       string       `json:"subject"`
		BeginsAt      *Time        `json:"begins_at,omitempty"`
		EndsAt        *Time        `json:"ends_at,omitempty"`
		Automate      *bool        `json:"automate,omitempty"`
		ExpiresAt     Field[Time]  `json:"expires_at,omitzero"`
		ImpactSeconds Field[int64] `json:"impact_seconds,omitzero"`
		Impact        Severity     `json:"impact,omitempty"` // left out when minor, the default
		TagList       []string     `json:"tag_list"`
		ComponentIDs  []int64      `json:"component_ids"`
		CreatedAt     Time         `json:"created_at"`
		UpdatedAt     Time         `json:"updated_at"`
		Updates       []updateJSON `json:"updates"`
	}
	subscriberJSON struct {
		ID           int64           `json:"id"`
		Channel      Channel         `json:"channel"`
		Address      string          `json:"address"`
		ComponentIDs []int64         `json:"component_ids"`
		State        SubscriberState `json:"state"`
		Secret       string          `json:"secret,omitempty"`
		CreatedAt    Time            `json:"created_at"`
	}
	updateJSON struct {
		ID               int64        `json:"id,omitempty"`
		State            State        `json:"state,omitempty"`
		Content          string       `json:"content"`
		CreatedAt        Time         `json:"created_at"`
		UpdatedAt        Time         `json:"updated_at"`
		Notified         bool         `json:"notified,omitempty"`
		ComponentChanges []changeJSON `json:"component_changes,omitempty"`
	}
	changeJSON struct {
		ComponentID int64     `json:"component_id"`
		OldState    PageState `json:"old_state"`
		NewState    PageState `json:"new_state"`
		OldImpact   Severity  `json:"old_impact,omitempty"`
		NewImpact   Severity  `json:"new_impact,omitempty"`
	}
)

// EncodeDocument writes doc as an indented import document (CONTRACT C5),
// with every update's id, so that importing it gives back the same page,
// and its subscribers when it has them (not nil), an empty list included.
func EncodeDocument(w io.Writer, doc *Document) error {
	out := docJSON{
		Page: pageJSON{Name: doc.Page.Name, URL: doc.Page.URL,
			CreatedAt: Time{doc.Page.CreatedAt}, UpdatedAt: Time{doc.Page.UpdatedAt}},
		Components: make([]componentJSON, 0, len(doc.Components)),
		Notices:    make([]noticeJSON, 0, len(doc.Notices)),
	}
	if st := doc.Page.StateTexts; st != (StateTexts{}) {
		out.Page.StateTexts = &stateTextsJSON{st.Operational, st.Degraded, st.UnderMaintenance}
	}
	for _, c := range doc.Components {
		out.Components = append(out.Components, componentJSON{c.ID, c.Key, c.Name, c.Description, c.ParentID,
			c.MetricsEnabled, Time{c.CreatedAt}, Time{c.UpdatedAt}})
	}
	for _, n := range doc.Notices {
		nj := noticeJSON{ID: n.ID, Type: n.Type, Subject: n.Subject, TagList: n.TagList,
			ComponentIDs: n.ComponentIDs, CreatedAt: Time{n.CreatedAt}, UpdatedAt: Time{n.UpdatedAt}}
		switch n.Type {
		case Planned:
			nj.BeginsAt, nj.EndsAt, nj.Automate = TimePtr(n.BeginsAt), TimePtr(n.EndsAt), &n.Automate
		case General:
			nj.ExpiresAt = Field[Time]{Set: true, Value: TimePtr(n.ExpiresAt)}
		case Unplanned:
			nj.ImpactSeconds = Field[int64]{Set: true, Value: n.ImpactSeconds}
			if n.Severity.Level() != SeverityMinor {
				nj.Impact = n.Severity
			}
		}
		for _, u := range n.Updates {
			uj := updateJSON{ID: u.ID, State: u.State, Content: u.Content, CreatedAt: Time{u.CreatedAt},
				UpdatedAt: Time{u.UpdatedAt}, Notified: u.Notified}
			for _, c := range u.Changes {
				uj.ComponentChanges = append(uj.ComponentChanges, changeJSON{c.ComponentID, c.Old, c.New, c.OldSeverity, c.NewSeverity})
			}
			nj.Updates = append(nj.Updates, uj)
		}
		out.Notices = append(out.Notices, nj)
	}
	if doc.Subscribers != nil {
		out.Subscribers = make([]subscriberJSON, 0, len(doc.Subscribers))
	}
	for _, s := range doc.Subscribers {
		ids := s.ComponentIDs
		if ids == nil {
			ids = []int64{}
		}
		out.Subscribers = append(out.Subscribers, subscriberJSON{s.ID, s.Channel, s.Address, ids, s.State, s.Secret, Time{s.CreatedAt}})
	}
	if doc.Sources != nil {
		out.Sources = make([]sourceJSON, 0, len(doc.Sources))
	}
	for _, s := range doc.Sources {
		rules := s.Rules
		if rules == nil {
			rules = []SignalRule{}
		}
		out.Sources = append(out.Sources, sourceJSON{s.ID, s.Name, s.Format, rules, s.Heartbeat, hex.EncodeToString(s.TokenHash), s.Secret, Time{s.CreatedAt}})
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := w.Write(buf.Bytes())
	return err
}
