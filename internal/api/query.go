package api

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/snapshot"
)

// param is one key=value pair of a query string, decoded.
type param struct{ key, value string }

// parseRawQuery splits a raw query string into decoded pairs, in order.
// Brackets may come raw or percent-encoded; '+' is a space.
func parseRawQuery(raw string) ([]param, error) {
	var out []param
	for part := range strings.SplitSeq(raw, "&") {
		if part == "" {
			continue
		}
		k, v, _ := strings.Cut(part, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return nil, statusd.Errorf(statusd.EInvalidParameter, "query string: %q is not a valid percent-encoded key", k)
		}
		value, err := url.QueryUnescape(v)
		if err != nil {
			return nil, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not a valid percent-encoded value", key, v)
		}
		out = append(out, param{key, value})
	}
	return out, nil
}

// listQuery is what a collection request asked for: the page, the filters
// that apply (for next_page, in a fixed order), and the filter keys that were
// ignored.
type listQuery struct {
	page    int64
	applied []param
	ignored []string
}

// key is the normalised cache key of a collection request: the applied
// filters in their fixed order and the page, whatever order and encoding
// the request used.
func (q listQuery) key(collection string) string {
	var b strings.Builder
	b.WriteString(collection + "?")
	for _, p := range q.applied {
		b.WriteString(p.key + "=" + p.value + "&")
	}
	b.WriteString("page=" + strconv.FormatInt(q.page, 10))
	return b.String()
}

// collector gathers the values of one collection's known filter keys.
type collector struct {
	known  []string // known keys, in the order next_page writes them
	values map[string][]string
	q      listQuery
}

func collect(params []param, known ...string) (*collector, error) {
	c := &collector{known: known, values: map[string][]string{}, q: listQuery{page: 1}}
	for _, p := range params {
		switch {
		case p.key == "page":
			page, err := statusd.ParsePage(p.value)
			if err != nil {
				return nil, err
			}
			c.q.page = page
		case strings.HasPrefix(p.key, "filter["):
			key := canonicalKey(p.key)
			if !contains(known, key) {
				c.q.ignore(p.key)
				continue
			}
			c.values[key] = append(c.values[key], p.value)
		}
	}
	return c, nil
}

// canonicalKey maps the bracketless spelling of a list filter to its []
// spelling, so that both are accepted.
func canonicalKey(key string) string {
	switch key {
	case "filter[impact_timeframe_overlaps]", "filter[type_in]", "filter[timeline_state_in]":
		return key + "[]"
	}
	return key
}

func (q *listQuery) ignore(key string) {
	if !contains(q.ignored, key) {
		q.ignored = append(q.ignored, key)
	}
}

// scalar returns the last non-blank value of a single-valued filter, as Rack
// does; a filter given only blank is ignored, as Ransack does.
func (c *collector) scalar(key string) (string, bool) {
	vals := c.values[key]
	if len(vals) == 0 {
		return "", false
	}
	v := vals[len(vals)-1]
	if v == "" {
		c.q.ignore(key)
		return "", false
	}
	return v, true
}

// list returns the non-blank values of a list filter.
func (c *collector) list(key string) []string {
	var out []string
	for _, v := range c.values[key] {
		if v != "" {
			out = append(out, v)
		}
	}
	if len(out) == 0 && len(c.values[key]) > 0 {
		c.q.ignore(key)
	}
	return out
}

func (c *collector) apply(key string, values ...string) {
	for _, v := range values {
		c.q.applied = append(c.q.applied, param{key, v})
	}
}

func parseID(name, v string) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil {
		return 0, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not an integer", name, v)
	}
	return n, nil
}

func parseBool(name, v string) (bool, error) {
	switch strings.ToLower(v) {
	case "true", "t", "1", "yes", "on":
		return true, nil
	case "false", "f", "0", "no", "off":
		return false, nil
	}
	return false, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not true or false", name, v)
}

// parseComponentQuery reads the query of the components collection.
func parseComponentQuery(raw string) (snapshot.ComponentFilter, listQuery, error) {
	var f snapshot.ComponentFilter
	params, err := parseRawQuery(raw)
	if err != nil {
		return f, listQuery{}, err
	}
	const null, eq = "filter[parent_id_null]", "filter[parent_id_eq]"
	c, err := collect(params, null, eq)
	if err != nil {
		return f, listQuery{}, err
	}
	if v, ok := c.scalar(null); ok {
		b, err := parseBool(null, v)
		if err != nil {
			return f, listQuery{}, err
		}
		f.ParentIDNull = &b
		c.apply(null, strconv.FormatBool(b))
	}
	if v, ok := c.scalar(eq); ok {
		id, err := parseID(eq, v)
		if err != nil {
			return f, listQuery{}, err
		}
		f.ParentIDEq = &id
		c.apply(eq, strconv.FormatInt(id, 10))
	}
	return f, c.q, nil
}

const (
	keyTypeEq      = "filter[type_eq]"
	keyTypeIn      = "filter[type_in][]"
	keyTimelineEq  = "filter[timeline_state_eq]"
	keyTimelineIn  = "filter[timeline_state_in][]"
	keyMetricsComp = "filter[metrics_component_id]"
	keyOverlaps    = "filter[impact_timeframe_overlaps][]"
)

// parseNoticeQuery reads the query of the notices collection.
func parseNoticeQuery(raw string) (snapshot.NoticeFilter, listQuery, error) {
	var f snapshot.NoticeFilter
	params, err := parseRawQuery(raw)
	if err != nil {
		return f, listQuery{}, err
	}
	c, err := collect(params, keyTypeEq, keyTypeIn, keyTimelineEq, keyTimelineIn, keyMetricsComp, keyOverlaps)
	if err != nil {
		return f, listQuery{}, err
	}
	validType := func(v string) bool { return statusd.NoticeType(v).Valid() }
	const typeWant = "one of general, planned, unplanned"
	validTimeline := func(v string) bool {
		return v == "past" || contains(timelineNames, v)
	}
	const timelineWant = "one of future, present, past_recent, past_distant, past"
	for _, key := range []string{keyTypeEq, keyTypeIn} {
		set, err := c.enum(key, validType, typeWant)
		if err != nil {
			return f, listQuery{}, err
		}
		if set != nil {
			types := make([]statusd.NoticeType, len(set))
			for i, v := range set {
				types[i] = statusd.NoticeType(v)
			}
			f.Types = append(f.Types, types)
		}
	}
	for _, key := range []string{keyTimelineEq, keyTimelineIn} {
		set, err := c.enum(key, validTimeline, timelineWant)
		if err != nil {
			return f, listQuery{}, err
		}
		if set != nil {
			f.Timelines = append(f.Timelines, set)
		}
	}
	if v, ok := c.scalar(keyMetricsComp); ok {
		id, err := parseID(keyMetricsComp, v)
		if err != nil {
			return f, listQuery{}, err
		}
		f.MetricsComponentID = &id
		c.apply(keyMetricsComp, strconv.FormatInt(id, 10))
	}
	if vs := c.values[keyOverlaps]; len(vs) > 0 {
		if len(vs) != 2 {
			return f, listQuery{}, statusd.Errorf(statusd.EInvalidParameter,
				"%s: give exactly two values, the start and the end; got %d", keyOverlaps, len(vs))
		}
		from, err := parseOverlapTime(vs[0], false)
		if err != nil {
			return f, listQuery{}, err
		}
		to, err := parseOverlapTime(vs[1], true)
		if err != nil {
			return f, listQuery{}, err
		}
		if from.After(to) {
			return f, listQuery{}, statusd.Errorf(statusd.EInvalidParameter,
				"%s: the start %s is after the end %s", keyOverlaps, vs[0], vs[1])
		}
		f.Overlaps = &snapshot.Range{From: from, To: to}
		c.apply(keyOverlaps, vs...)
	}
	return f, c.q, nil
}

var timelineNames = func() []string {
	names := make([]string, len(statusd.TimelineStates))
	for i, s := range statusd.TimelineStates {
		names[i] = string(s)
	}
	return names
}()

// enum reads a single-valued (_eq) or list (_in) filter whose values must
// pass valid; it returns nil when the filter is not applied.
func (c *collector) enum(key string, valid func(string) bool, want string) ([]string, error) {
	var vals []string
	if strings.HasSuffix(key, "[]") {
		vals = c.list(key)
	} else if v, ok := c.scalar(key); ok {
		vals = []string{v}
	}
	for _, v := range vals {
		if !valid(v) {
			return nil, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not %s", key, v, want)
		}
	}
	c.apply(key, vals...)
	return vals, nil
}

var overlapTime = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z?$`)

// parseOverlapTime reads a bound of the impact overlap filter; an upper bound
// without milliseconds counts to the end of its second.
func parseOverlapTime(v string, upper bool) (time.Time, error) {
	if !overlapTime.MatchString(v) {
		return time.Time{}, statusd.Errorf(statusd.EInvalidParameter,
			"%s: %q is not a UTC timestamp yyyy-mm-ddThh:mm:ss[.sss][Z]", keyOverlaps, v)
	}
	t, err := time.Parse("2006-01-02T15:04:05", strings.TrimSuffix(v, "Z"))
	if err != nil {
		return time.Time{}, statusd.Errorf(statusd.EInvalidParameter, "%s: %q is not a valid time", keyOverlaps, v)
	}
	if upper && !strings.Contains(v, ".") {
		t = t.Add(time.Second - time.Millisecond)
	}
	return t, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}
