package snapshot

import (
	"strconv"
	"unicode/utf8"

	"github.com/statusd/statusd"
)

// A page of the notices list is the answer most often computed anew (every
// write starts a new snapshot, and a flood over every page of the list
// finds none of them cached), and encoding/json spent 85% of its time:
// reflection, and a second pass over what each Time and Field marshals.
// AppendNoticesJSON writes it directly. TestAppendJSONMatchesEncodingJSON holds it
// to exactly the bytes of encoding/json with HTML escaping off (what
// httpjson.Marshal uses).

// AppendNoticesJSON appends r as JSON, as encoding/json marshals it with
// HTML escaping off.
func AppendNoticesJSON(b []byte, r statusd.NoticesResponse) []byte {
	b = append(b, `{"notices":`...)
	if r.Notices == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range r.Notices {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendEntry(b, &r.Notices[i])
		}
		b = append(b, ']')
	}
	b = append(b, `,"meta":{"count":`...)
	b = strconv.AppendInt(b, int64(r.Meta.Count), 10)
	b = append(b, `,"total_count":`...)
	b = strconv.AppendInt(b, int64(r.Meta.TotalCount), 10)
	b = append(b, `,"next_page":`...)
	b = appendOptString(b, r.Meta.NextPage)
	return append(b, "}}"...)
}

func appendEntry(b []byte, e *statusd.NoticeListEntry) []byte {
	b = appendFields(b, &e.NoticeFields)
	b = append(b, `,"latest_update":`...)
	b = appendUpdate(b, &e.LatestUpdate)
	return append(b, '}')
}

// appendFields appends the opening brace and the fields of f, in their
// order, and leaves the object open for the fields of the type that embeds
// it.
func appendFields(b []byte, f *statusd.NoticeFields) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, f.ID, 10)
	b = append(b, `,"type":`...)
	b = appendString(b, f.Type, false)
	b = append(b, `,"timeline_state":`...)
	b = appendString(b, f.TimelineState, false)
	if f.State.Set {
		// Field marshals its value with json.Marshal, which escapes HTML.
		b = append(b, `,"state":`...)
		if f.State.Value == nil {
			b = append(b, "null"...)
		} else {
			b = appendString(b, *f.State.Value, true)
		}
	}
	b = append(b, `,"subject":`...)
	b = appendString(b, f.Subject, false)
	b = append(b, `,"url":`...)
	b = appendString(b, f.URL, false)
	b = appendTimeField(b, `,"began_at":`, f.BeganAt)
	b = appendTimeField(b, `,"ended_at":`, f.EndedAt)
	if f.BeginsAt != nil {
		b = statusd.AppendTime(append(b, `,"begins_at":`...), f.BeginsAt.Time)
	}
	if f.EndsAt != nil {
		b = statusd.AppendTime(append(b, `,"ends_at":`...), f.EndsAt.Time)
	}
	b = statusd.AppendTime(append(b, `,"created_at":`...), f.CreatedAt.Time)
	b = statusd.AppendTime(append(b, `,"updated_at":`...), f.UpdatedAt.Time)
	if d := f.ImpactTime; d != nil {
		b = append(b, `,"impact_time":{"seconds":`...)
		b = strconv.AppendInt(b, d.Seconds, 10)
		b = append(b, `,"words":`...)
		b = appendString(b, d.Words, false)
		if d.Calculation != "" {
			b = append(b, `,"calculation":`...)
			b = appendString(b, d.Calculation, false)
		}
		b = append(b, '}')
	}
	b = append(b, `,"tag_list":`...)
	if f.TagList == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range f.TagList {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t, false)
		}
		b = append(b, ']')
	}
	b = append(b, `,"links":{"self":`...)
	b = appendString(b, f.Links.Self, false)
	return append(b, '}')
}

func appendUpdate(b []byte, u *statusd.UpdateResource) []byte {
	b = append(b, '{')
	if u.ID != 0 {
		b = append(b, `"id":`...)
		b = strconv.AppendInt(b, u.ID, 10)
		b = append(b, ',')
	}
	if u.State != nil {
		b = append(b, `"state":`...)
		b = appendString(b, *u.State, false)
		b = append(b, ',')
	}
	b = append(b, `"content":`...)
	b = appendString(b, u.Content, false)
	b = statusd.AppendTime(append(b, `,"created_at":`...), u.CreatedAt.Time)
	b = statusd.AppendTime(append(b, `,"updated_at":`...), u.UpdatedAt.Time)
	return append(b, '}')
}

// appendTimeField appends a Field[Time] with its key, unless it is absent.
func appendTimeField(b []byte, key string, f statusd.Field[statusd.Time]) []byte {
	if !f.Set {
		return b
	}
	b = append(b, key...)
	if f.Value == nil {
		return append(b, "null"...)
	}
	return statusd.AppendTime(b, f.Value.Time)
}

func appendOptString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return appendString(b, *s, false)
}

const hexDigits = "0123456789abcdef"

// appendString appends s as a JSON string with encoding/json's escapes:
// quote and backslash; control characters (\b, \f, \n, \r and \t by name,
// the others as \u00XX); with html, also <, > and &; invalid UTF-8 as
// \ufffd; and U+2028 and U+2029, which JavaScript does not take in a
// string.
func appendString(b []byte, s string, html bool) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && (!html || (c != '<' && c != '>' && c != '&')) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
