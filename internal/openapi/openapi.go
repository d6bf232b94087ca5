// Package openapi builds the OpenAPI 3.1 documents of statusd: the public
// v1 API's (docs/API.md), one per variant, and the admin API's (Admin). The
// public document is built in Go from the same vocabulary as the server
// (states, notice types, error codes, the variant's spelling of
// maintenance), so that Variant A's and Variant B's documents cannot
// disagree with each other; the black-box tests of internal/server validate
// the real server's answers against both documents.
package openapi

import (
	"bytes"
	"encoding/json"
	"slices"
	"sync"

	"github.com/statusd/statusd"
)

// Version is the OpenAPI version the document is written in.
const Version = "3.1.0"

var docs = map[statusd.Variant]func() []byte{
	statusd.VariantA: sync.OnceValue(func() []byte { return build(statusd.VariantA) }),
	statusd.VariantB: sync.OnceValue(func() []byte { return build(statusd.VariantB) }),
}

// Document returns the OpenAPI document of the public API in variant v as
// indented JSON. Variant B's has no metrics path, no metrics_summary and no
// impact_time, and spells maintenance under-maintenance; any variant other
// than B gets Variant A's. The caller owns the returned slice. It is safe for
// concurrent use.
func Document(v statusd.Variant) []byte {
	if v != statusd.VariantB {
		v = statusd.VariantA
	}
	return bytes.Clone(docs[v]())
}

// obj is a JSON object of the document.
type obj = map[string]any

func build(v statusd.Variant) []byte {
	b := builder{v: v, metrics: v.HasMetrics()}
	doc := obj{
		"openapi":    Version,
		"info":       b.info(),
		"paths":      b.paths(),
		"components": obj{"schemas": b.schemas(), "parameters": b.parameters(), "responses": b.responses(), "headers": b.headers()},
		"tags": []obj{
			{"name": "page", "description": "The overall page state."},
			{"name": "components", "description": "The tree of components and their states."},
			{"name": "notices", "description": "Incidents (unplanned), maintenance (planned) and general announcements."},
			{"name": "meta", "description": "This document."},
		},
		"x-statusd-variant": string(v),
	}
	return encode(doc)
}

// encode writes a document as indented JSON.
func encode(doc obj) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		panic("openapi: " + err.Error()) // only maps, slices, strings and numbers above
	}
	return buf.Bytes()
}

type builder struct {
	v       statusd.Variant
	metrics bool
}

func (b builder) maintenance() string { return b.v.Name(statusd.PageUnderMaintenance) }

func (b builder) info() obj {
	variant := "Variant A: with component metrics (uptime, mean time to recovery, mean time between failures); the maintenance state is spelled `under_maintenance`."
	if !b.metrics {
		variant = "Variant B: no component metrics (no metrics endpoint, and neither components nor incidents carry metrics fields); the maintenance state is spelled `under-maintenance`."
	}
	return obj{
		"title":   "statusd public API",
		"version": "1",
		"summary": "The read-only JSON API of a statusd status page.",
		"description": "The read-only API of a status page: the overall page state, a tree of components, and notices " +
			"(incidents, maintenance, announcements) with their updates.\n\n" + variant + "\n\n" +
			"Conventions:\n\n" +
			"- Only `GET` (and `HEAD`, which answers the same headers without a body) are allowed; `OPTIONS` answers a CORS " +
			"preflight with 204. Any other method on any API path answers 405 `method_not_allowed` with an `Allow` header " +
			"(components/responses/MethodNotAllowed). Every answer carries `Access-Control-Allow-Origin: *`.\n" +
			"- Every path the API emits (`href`, `next_page`, `links`) resolves on the same server: the API is served at " +
			"`/api/v1/...` and at the aliases `/v1/...` and `/api/notices/{id}`, all described here.\n" +
			"- Timestamps are UTC `yyyy-mm-ddThh:mm:ss.sssZ`; dates `yyyy-mm-dd`.\n" +
			"- Filter parameters are named with brackets (`filter[type_eq]`); brackets may be sent raw or percent-encoded, and " +
			"the paths the API emits write them percent-encoded (`filter%5Btype_eq%5D`). " +
			"Unknown parameters and unknown `filter[...]` keys are ignored and the ignored filter keys are named in the " +
			"`X-Ignored-Filters` header; a filter given a blank value is ignored too. A bad value of a known filter, or a `page` " +
			"that is not an integer >= 1, answers 400 `invalid_parameter` naming the parameter.\n" +
			"- Collections return at most 25 records per page; `meta.next_page` keeps every applied filter and is null on the " +
			"last page; a page past the end is an empty 200.\n" +
			"- Errors are `{\"error\": {\"status\", \"code\", \"message\"}}` with the codes invalid_parameter (400), not_found (404), " +
			"metrics_disabled (404), method_not_allowed (405), rate_limited (429), internal (500) and unavailable (503, until " +
			"a page has been published, or while the server is at capacity: then with `Retry-After`). An unknown path " +
			"under `/api/` or `/v1/` is a JSON 404.\n" +
			"- Rate limit: 10 requests a second per client by default. When a limit is configured every answer carries " +
			"`RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset`; over the limit the answer is 429 with `Retry-After` " +
			"(seconds).",
	}
}

// --- schemas -----------------------------------------------------------------

func ref(kind, name string) obj { return obj{"$ref": "#/components/" + kind + "/" + name} }
func schema(name string) obj    { return ref("schemas", name) }

func str(desc string) obj { return obj{"type": "string", "description": desc} }
func integer(desc string) obj {
	return obj{"type": "integer", "description": desc}
}
func count(desc string) obj {
	return obj{"type": "integer", "minimum": 0, "description": desc}
}
func enum(desc string, values ...string) obj {
	return obj{"type": "string", "enum": values, "description": desc}
}
func constant(desc, value string) obj {
	return obj{"type": "string", "const": value, "description": desc}
}
func array(desc string, items obj) obj {
	return obj{"type": "array", "items": items, "description": desc}
}
func with(o obj, key string, value any) obj {
	out := obj{}
	for k, v := range o {
		out[k] = v
	}
	out[key] = value
	return out
}

// closed is an object with exactly these properties: all are required except
// the optional ones, and no other key is allowed.
func closed(desc string, props obj, optional ...string) obj {
	var required []string
	for k := range props {
		if !slices.Contains(optional, k) {
			required = append(required, k)
		}
	}
	slices.Sort(required)
	o := obj{"type": "object", "properties": props, "required": required, "additionalProperties": false}
	if desc != "" {
		o["description"] = desc
	}
	return o
}

func stateNames[T ~string](states []T) []string {
	out := make([]string, len(states))
	for i, s := range states {
		out[i] = string(s)
	}
	return out
}

const (
	timestampPattern = `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$`
	datePattern      = `^[0-9]{4}-[0-9]{2}-[0-9]{2}$`
)

func (b builder) schemas() obj {
	timeline := stateNames(statusd.TimelineStates)
	unplannedStates := stateNames(statusd.States(statusd.Unplanned))
	plannedStates := stateNames(statusd.States(statusd.Planned))
	s := obj{
		"Timestamp": obj{"type": "string", "format": "date-time", "pattern": timestampPattern,
			"description": "A UTC timestamp with millisecond precision, yyyy-mm-ddThh:mm:ss.sssZ.",
			"examples":    []string{"2026-02-01T10:00:00.000Z"}},
		"NullableTimestamp": obj{"type": []string{"string", "null"}, "format": "date-time", "pattern": timestampPattern,
			"description": "A UTC timestamp with millisecond precision, or null when there is none (yet)."},
		"Date": obj{"type": "string", "format": "date", "pattern": datePattern, "description": "A date, yyyy-mm-dd.",
			"examples": []string{"2026-02-01"}},
		"State": enum("The state of the page or of a component (SPEC §3). The maintenance value is spelled "+
			b.maintenance()+" in this variant.", string(statusd.PageOperational), string(statusd.PageDegraded), b.maintenance()),
		"NoticeType":     enum("The kind of a notice: general (announcement), planned (maintenance), unplanned (incident).", stateNames(statusd.NoticeTypes)...),
		"TimelineState":  enum("Where a notice stands in time; past_recent while it ended (general: expired) less than 7 days ago.", timeline...),
		"UnplannedState": enum("The state of an unplanned notice (incident): the state of its newest update.", unplannedStates...),
		"PlannedState":   enum("The state of a planned notice (maintenance): the state of its newest update.", plannedStates...),
		"Link": closed("A relative path with the number of records behind it.", obj{
			"href":  str("A relative path on this server."),
			"count": count("The number of records behind href."),
		}),
		"Page": closed("The status page.", obj{
			"name":       str("The page name."),
			"state":      with(schema("State"), "description", "The page state: degraded while an incident is current (it wins), else maintenance while one is underway, else operational."),
			"state_text": str("Human-readable text for the state."),
			"url":        str("The public URL of the page."),
			"links": closed("The page's links: the API's index and its collections.", obj{
				"self":       constant("Always /api/v1, the API's index.", statusd.APIRoot),
				"components": with(schema("Link"), "description", "Always /v1/components, with the number of components."),
				"notices":    with(schema("Link"), "description", "Always /v1/notices, with the number of notices."),
			}),
			"created_at": schema("Timestamp"),
			"updated_at": with(schema("Timestamp"), "description", "The latest change to the page, its components or its notices (their updates included)."),
		}),
		"StatusResponse": closed("The body of GET /api/v1/status.", obj{"page": schema("Page")}),
		"IndexResponse": closed("The body of GET /api/v1: the paths of the API's resources.", obj{
			"links": closed("", obj{
				"status":     constant("The page and its state.", statusd.APIRoot+"/status"),
				"components": constant("The components list.", statusd.APIRoot+"/components"),
				"notices":    constant("The notices list.", statusd.APIRoot+"/notices"),
			}),
		}),
		"PaginationMeta": closed("The pagination block of a collection.", obj{
			"count":       count("Records on this page."),
			"total_count": count("Records across all pages."),
			"next_page": obj{"type": []string{"string", "null"}, "pattern": `^/api/v1/`,
				"description": "The relative path of the next page: /api/v1/<collection>?<applied filters>&page=<n+1>, brackets percent-encoded; null on the last page and past it."},
		}),
		"Component": b.component(),
		"ComponentsResponse": closed("The body of GET /api/v1/components.", obj{
			"components": array("At most 25 components, by position then id.", schema("Component")),
			"meta":       schema("PaginationMeta"),
		}),
		"EmbeddedComponent": closed("A component impacted by a notice: exactly these seven keys.", obj{
			"id":          integer("The component id."),
			"state":       with(schema("State"), "description", componentStateText),
			"name":        str("The component name."),
			"description": str("The component description."),
			"parent_id":   obj{"type": []string{"integer", "null"}, "description": "The parent component's id; null for a top-level component."},
			"created_at":  schema("Timestamp"),
			"updated_at":  schema("Timestamp"),
		}),
		"NoticeLinks": closed("The notice's own path.", obj{
			"self": obj{"type": "string", "pattern": `^/api/notices/[0-9]+$`, "description": "/api/notices/<id>, without a version segment."},
		}),
		"NoticeListEntry": obj{"description": "A notice in the notices list; its keys depend on its type.",
			"oneOf": []obj{schema("UnplannedNotice"), schema("PlannedNotice"), schema("GeneralNotice")}},
		"NoticeDetail": obj{"description": "A notice with its impacted components and every update; its keys depend on its type.",
			"oneOf": []obj{schema("UnplannedNoticeDetail"), schema("PlannedNoticeDetail"), schema("GeneralNoticeDetail")}},
		"NoticesResponse": closed("The body of GET /api/v1/notices.", obj{
			"notices": array("At most 25 notices, newest first (created_at descending, then id descending).", schema("NoticeListEntry")),
			"meta":    schema("PaginationMeta"),
		}),
		"NoticeResponse": closed("The body of GET /api/v1/notices/{id}.", obj{"notice": schema("NoticeDetail")}),
		"Error": closed("The body of every error answer.", obj{
			"error": closed("", obj{
				"status":  obj{"type": "integer", "description": "The HTTP status, repeated."},
				"code":    enum("What went wrong.", statusd.EInvalidParameter, statusd.ENotFound, statusd.EMetricsDisabled, statusd.EMethodNotAllowed, statusd.ERateLimited, statusd.EInternal, statusd.EUnavailable),
				"message": str("What went wrong, for people: names the parameter or the missing record."),
			}),
		}),
	}
	for _, t := range []statusd.NoticeType{statusd.Unplanned, statusd.Planned, statusd.General} {
		name := map[statusd.NoticeType]string{statusd.Unplanned: "Unplanned", statusd.Planned: "Planned", statusd.General: "General"}[t]
		s[name+"Notice"] = b.notice(t, false)
		s[name+"NoticeDetail"] = b.notice(t, true)
		s[name+"LatestUpdate"] = b.update(t, false)
		s[name+"Update"] = b.update(t, true)
	}
	if b.metrics {
		s["MetricsSummary"] = closed("The component's uptime over the past 30 days (the default timeframe).", obj{
			"timeframe_start":   schema("Date"),
			"timeframe_end":     schema("Date"),
			"percentage_uptime": schema("Uptime"),
			"url":               str("The component's public metrics page."),
		})
		s["Uptime"] = closed("An uptime percentage in numbers and in words.", obj{
			"percent": obj{"type": "number", "minimum": 0, "maximum": 100, "description": "100 - ((total_impact_time / total_time) * 100)."},
			"words":   str("The percent truncated (never rounded up) to two decimals, with %: 99.99%."),
		})
		s["UptimeWithCalculation"] = closed("An uptime percentage with its equation.", obj{
			"percent":     obj{"type": "number", "minimum": 0, "maximum": 100, "description": "100 - ((total_impact_time / total_time) * 100)."},
			"words":       str("The percent truncated (never rounded up) to two decimals, with %: 99.99%."),
			"calculation": str("The equation with its numbers."),
		})
		s["Duration"] = closed("A length of time in whole seconds (rounded down) and in plain English.", obj{
			"seconds": count("Whole seconds."),
			"words":   str("In plain English: 2 hours 5 minutes, 0 seconds."),
		})
		s["DurationWithCalculation"] = closed("A length of time with its equation.", obj{
			"seconds":     count("Whole seconds."),
			"words":       str("In plain English: 2 hours 5 minutes, 0 seconds."),
			"calculation": str("The equation with its numbers."),
		})
		metricsProps := func(calc bool) obj {
			uptime, duration := "Uptime", "Duration"
			if calc {
				uptime, duration = "UptimeWithCalculation", "DurationWithCalculation"
			}
			p := obj{
				"component": closed("The component whose metrics these are.", obj{
					"id":   obj{"type": "string", "pattern": `^[0-9]+$`, "description": "The component id, as a JSON string."},
					"name": str("The component name."),
				}),
				"timeframe_start":            schema("Date"),
				"timeframe_end":              schema("Date"),
				"percentage_uptime":          schema(uptime),
				"mean_time_to_recovery":      with(schema(duration), "description", "total_impact_time / notices.count; 0 when no notice counted."),
				"mean_time_between_failures": with(schema(duration), "description", "(total_time - total_impact_time) / notices.count; total_time when no notice counted."),
				"url":                        str("The component's public metrics page for the timeframe."),
			}
			if calc {
				p["calculation_data_in_timeframe"] = closed("The data behind the equations.", obj{
					"total_time":        with(schema("Duration"), "description", "The timeframe's length, cut at now."),
					"total_impact_time": with(schema("Duration"), "description", "The union of the counted notices' impacts, clipped to the timeframe."),
					"notices": with(schema("Link"), "description", "The counted notices: /api/v1/notices?filter%5Bmetrics_component_id%5D=<id>"+
						"&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=<start>T00:00:00&filter%5Bimpact_timeframe_overlaps%5D%5B%5D=<end>T23:59:59."),
				})
			}
			return p
		}
		s["Metrics"] = closed("A component's metrics without calculations (show_calculations absent or false).", metricsProps(false))
		s["MetricsWithCalculations"] = closed("A component's metrics with their equations and data (show_calculations=true).", metricsProps(true))
		s["MetricsResponse"] = obj{"description": "The body of GET /api/v1/components/{component_id}/metrics: no envelope.",
			"oneOf": []obj{schema("Metrics"), schema("MetricsWithCalculations")}}
	}
	return s
}

// componentStateText says how a component's state follows from notices
// (CONTRACT C3).
const componentStateText = "degraded while a current incident lists it (it wins), else maintenance while an underway maintenance lists it, else operational; " +
	"then the worst over the component and its descendants, so that a group whose child is degraded is degraded."

func (b builder) component() obj {
	props := obj{
		"id":          integer("The component id."),
		"state":       with(schema("State"), "description", componentStateText),
		"name":        str("The component name."),
		"description": str("The component description."),
		"parent_id":   obj{"type": []string{"integer", "null"}, "description": "The parent component's id; null for a top-level component."},
		"position":    integer("Display order, lowest first."),
		"links": closed("The component's children.", obj{
			"children": with(schema("Link"), "description", "/api/v1/components?filter%5Bparent_id_eq%5D=<id>, with the number of children."),
		}),
		"created_at": schema("Timestamp"),
		"updated_at": schema("Timestamp"),
	}
	if b.metrics {
		props["metrics_summary"] = obj{"description": "The uptime of the past 30 days; null when the component does not have Metrics enabled.",
			"oneOf": []obj{schema("MetricsSummary"), {"type": "null"}}}
	}
	return closed("A component in the components list.", props)
}

// notice is a notice of type t, as a list entry or a detail, with the
// presence rules of SPEC §2 and CONTRACT C3.
func (b builder) notice(t statusd.NoticeType, detail bool) obj {
	kind := map[statusd.NoticeType]string{statusd.Unplanned: "Unplanned", statusd.Planned: "Planned", statusd.General: "General"}[t]
	props := obj{
		"id":             integer("The notice id."),
		"type":           constant("The notice type.", string(t)),
		"timeline_state": schema("TimelineState"),
		"subject":        str("The subject."),
		"url":            str("The notice's public page."),
		"created_at":     schema("Timestamp"),
		"updated_at":     schema("Timestamp"),
		"tag_list":       array("Tags; may be empty.", obj{"type": "string"}),
		"links":          schema("NoticeLinks"),
	}
	switch t {
	case statusd.Unplanned:
		props["state"] = schema("UnplannedState")
		props["began_at"] = with(schema("NullableTimestamp"), "description", "When the first update was posted.")
		props["ended_at"] = with(schema("NullableTimestamp"), "description", "When the final run of resolved/false_alarm updates began; null while open.")
		if b.metrics {
			props["impact_time"] = with(schema("Duration"), "description", "The total length of the incident's impact (0 seconds for a false alarm); grows with the clock while it is current.")
		}
	case statusd.Planned:
		props["state"] = schema("PlannedState")
		props["began_at"] = with(schema("NullableTimestamp"), "description", "When it entered underway; null before.")
		props["ended_at"] = with(schema("NullableTimestamp"), "description", "When the final run of complete/cancelled updates began; null before.")
		props["begins_at"] = with(schema("Timestamp"), "description", "The scheduled start.")
		props["ends_at"] = with(schema("Timestamp"), "description", "The scheduled end.")
	}
	desc := map[statusd.NoticeType]string{
		statusd.Unplanned: "An incident",
		statusd.Planned:   "A maintenance",
		statusd.General:   "A general announcement: no state, began_at or ended_at",
	}[t]
	if detail {
		props["components"] = array("The impacted components, by position.", schema("EmbeddedComponent"))
		props["updates"] = array("Every update, oldest first.", schema(kind+"Update"))
		return closed(desc+", in detail.", props)
	}
	props["latest_update"] = schema(kind + "LatestUpdate")
	return closed(desc+", as the notices list shows it.", props)
}

// update is a progress update of a notice of type t: in a detail's updates
// (with its id) or as latest_update (without).
func (b builder) update(t statusd.NoticeType, withID bool) obj {
	props := obj{
		"content":    str("The update's text."),
		"created_at": schema("Timestamp"),
		"updated_at": schema("Timestamp"),
	}
	switch t {
	case statusd.Unplanned:
		props["state"] = schema("UnplannedState")
	case statusd.Planned:
		props["state"] = schema("PlannedState")
	}
	desc := "The newest update."
	if withID {
		props["id"] = integer("The update id.")
		desc = "A progress update."
	}
	if t == statusd.General {
		desc += " General notices' updates carry no state."
	}
	return closed(desc, props)
}

// --- parameters --------------------------------------------------------------

func query(name, desc string, s obj) obj {
	return obj{"name": name, "in": "query", "required": false, "description": desc, "schema": s}
}

// filter is a filter parameter: given blank, it is ignored (and named in
// X-Ignored-Filters).
func filter(name, desc string, s obj) obj {
	return with(query(name, desc+" A blank value is ignored.", s), "allowEmptyValue", true)
}

func (b builder) parameters() obj {
	noticeTypes := stateNames(statusd.NoticeTypes)
	timelines := append(stateNames(statusd.TimelineStates), "past")
	overlapTime := obj{"type": "string", "pattern": `^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{3})?Z?$`}
	p := obj{
		"page": query("page", "The page of the collection, from 1; a page past the end is an empty 200.",
			obj{"type": "integer", "minimum": 1, "default": 1}),
		"filterParentIdNull": filter("filter[parent_id_null]", "true returns only top-level components (also accepted: t, f, 1, 0, yes, no, on, off).",
			obj{"type": "boolean"}),
		"filterParentIdEq": filter("filter[parent_id_eq]", "Returns the children of the component with this id.", obj{"type": "integer"}),
		"filterTypeEq":     filter("filter[type_eq]", "Only notices of this type.", obj{"type": "string", "enum": noticeTypes}),
		"filterTypeIn": filter("filter[type_in][]", "Only notices of one of these types (repeat the parameter).",
			obj{"type": "array", "items": obj{"type": "string", "enum": noticeTypes}}),
		"filterTimelineStateEq": filter("filter[timeline_state_eq]", "Only notices in this timeline state; past means past_recent or past_distant.",
			obj{"type": "string", "enum": timelines}),
		"filterTimelineStateIn": filter("filter[timeline_state_in][]", "Only notices in one of these timeline states (repeat the parameter).",
			obj{"type": "array", "items": obj{"type": "string", "enum": timelines}}),
		"filterMetricsComponentId": filter("filter[metrics_component_id]", "Only the notices that count for this component's metrics at any time: "+
			"unplanned notices with an impact (not false alarms, not impact_seconds 0), listing the component or one of its descendants.", obj{"type": "integer"}),
		"filterImpactTimeframeOverlaps": filter("filter[impact_timeframe_overlaps][]", "Given exactly twice, start then end (UTC yyyy-mm-ddThh:mm:ss[.sss][Z]): "+
			"only unplanned notices whose impact meets the closed range; an end without milliseconds counts to the end of its second.",
			obj{"type": "array", "items": overlapTime, "minItems": 2, "maxItems": 2}),
		"ifNoneMatch": obj{"name": "If-None-Match", "in": "header", "required": false,
			"description": "The ETag of a copy the client holds: 304 when it is current.", "schema": obj{"type": "string"}},
		"noticeId": obj{"name": "id", "in": "path", "required": true, "description": "The notice id.", "schema": obj{"type": "integer"}},
	}
	if b.metrics {
		p["componentId"] = obj{"name": "component_id", "in": "path", "required": true,
			"description": "The component whose metrics are computed; it must have Metrics enabled.", "schema": obj{"type": "integer"}}
		p["timeframeStart"] = query("timeframe_start", "The first day of the timeframe; at most 12 calendar months in the past, not after today or timeframe_end. Default: 30 days ago.",
			schema("Date"))
		p["timeframeEnd"] = query("timeframe_end", "The last day of the timeframe; a future day is echoed and the window is cut at now. Default: today.",
			schema("Date"))
		p["showCalculations"] = query("show_calculations", "true adds the equations and calculation_data_in_timeframe.", obj{"type": "boolean", "default": false})
	}
	return p
}

// --- responses and headers ---------------------------------------------------

func (b builder) headers() obj {
	integerHeader := func(desc string) obj {
		return obj{"description": desc, "schema": obj{"type": "integer", "minimum": 0}}
	}
	return obj{
		"RateLimit-Limit":     integerHeader("Requests allowed per second (the burst); present when a limit is configured."),
		"RateLimit-Remaining": integerHeader("Requests left before the limit applies."),
		"RateLimit-Reset":     integerHeader("Seconds until the allowance is full again."),
		"Retry-After": obj{"description": "Seconds to wait before retrying.", "required": true,
			"schema": obj{"type": "integer", "minimum": 1}},
		"X-Ignored-Filters": obj{"description": "The filter keys of the request that were ignored (unknown, or blank), comma-separated.",
			"schema": obj{"type": "string"}},
		"Allow": obj{"description": "The allowed methods: GET, HEAD, OPTIONS.", "required": true, "schema": obj{"type": "string"}},
		"Access-Control-Allow-Origin": obj{"description": "Any origin may read the API.", "required": true,
			"schema": obj{"type": "string", "enum": []string{"*"}}},
		"ETag": obj{"description": "The version of the answer, for If-None-Match.", "schema": obj{"type": "string"}},
		"Cache-Control": obj{"description": "How long caches may keep a successful answer; errors are no-store.",
			"schema": obj{"type": "string"}},
	}
}

func header(name string) obj { return ref("headers", name) }

// rateHeaders are the headers of every answer.
func rateHeaders(extra ...string) obj {
	h := obj{
		"RateLimit-Limit":             header("RateLimit-Limit"),
		"RateLimit-Remaining":         header("RateLimit-Remaining"),
		"RateLimit-Reset":             header("RateLimit-Reset"),
		"Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
	}
	for _, name := range extra {
		h[name] = header(name)
	}
	return h
}

func jsonContent(s obj) obj { return obj{"application/json": obj{"schema": s}} }

// errorSchema is the error body with its status and codes pinned down.
func errorSchema(status int, codes ...string) obj {
	return obj{"allOf": []obj{schema("Error"), {
		"type": "object",
		"properties": obj{"error": obj{"type": "object", "properties": obj{
			"status": obj{"const": status},
			"code":   obj{"enum": codes},
		}}},
	}}}
}

func errorResponse(desc string, status int, headers obj, codes ...string) obj {
	return obj{"description": desc, "headers": headers, "content": jsonContent(errorSchema(status, codes...))}
}

func (b builder) responses() obj {
	r := obj{
		"BadRequest": errorResponse("A parameter has a bad value; the message names it.", 400, rateHeaders(), statusd.EInvalidParameter),
		"NotFound":   errorResponse("No such record, or no such endpoint.", 404, rateHeaders(), statusd.ENotFound),
		"MethodNotAllowed": errorResponse("A method other than GET, HEAD or OPTIONS: the API is read-only.", 405,
			rateHeaders("Allow"), statusd.EMethodNotAllowed),
		"TooManyRequests": errorResponse("Over the rate limit; retry after Retry-After seconds.", 429,
			obj{
				"RateLimit-Limit":             with(header("RateLimit-Limit"), "required", true),
				"RateLimit-Remaining":         with(header("RateLimit-Remaining"), "required", true),
				"RateLimit-Reset":             with(header("RateLimit-Reset"), "required", true),
				"Retry-After":                 header("Retry-After"),
				"Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
			}, statusd.ERateLimited),
		"InternalError": errorResponse("An internal error; the message discloses nothing.", 500, rateHeaders(), statusd.EInternal),
		"Unavailable": errorResponse("No page has been published yet, or the server is at capacity: then retry after "+
			"Retry-After seconds.", 503, with(rateHeaders(), "Retry-After", obj{
			"description": "Seconds to wait before retrying; present when the server is at capacity.",
			"schema":      obj{"type": "integer", "minimum": 1}}), statusd.EUnavailable),
	}
	if b.metrics {
		r["MetricsNotFound"] = errorResponse("No such component (not_found), or the component does not have Metrics enabled (metrics_disabled).",
			404, rateHeaders(), statusd.ENotFound, statusd.EMetricsDisabled)
	}
	return r
}

// --- paths -------------------------------------------------------------------

// operation is a GET with the common error answers; errs lists the extra
// error responses by status.
func operation(id, tag, summary, desc string, params []obj, ok obj, errs obj) obj {
	responses := obj{
		"200": ok,
		"304": obj{"description": "Not modified: the ETag given in If-None-Match is current.",
			"headers": obj{"ETag": header("ETag"), "Cache-Control": header("Cache-Control")}},
		"429": ref("responses", "TooManyRequests"),
		"500": ref("responses", "InternalError"),
		"503": ref("responses", "Unavailable"),
	}
	for k, v := range errs {
		responses[k] = v
	}
	return obj{"operationId": id, "tags": []string{tag}, "summary": summary, "description": desc, "responses": responses,
		"parameters": append(params, param("ifNoneMatch"))}
}

func okJSON(desc, schemaName string, extraHeaders ...string) obj {
	return obj{"description": desc, "headers": rateHeaders(append(extraHeaders, "ETag", "Cache-Control")...),
		"content": jsonContent(schema(schemaName))}
}

func param(name string) obj { return ref("parameters", name) }

func (b builder) paths() obj {
	paths := obj{}
	type alias struct{ prefix, suffix, note string }
	for _, a := range []alias{
		{"/api/v1", "", ""},
		{"/v1", "V1", " Alias of the /api/v1 path, for clients that build paths from SPEC's samples (the page links use it)."},
	} {
		paths[a.prefix] = obj{"get": operation("getIndex"+a.suffix, "page", "The API's index",
			"The paths of the page, the components and the notices: the target of page.links.self."+a.note, nil,
			okJSON("The index.", "IndexResponse"), nil)}
		paths[a.prefix+"/status"] = obj{"get": operation("getStatus"+a.suffix, "page", "The page and its overall state",
			"The page: name, state, state text, url, links to its collections."+a.note, nil,
			okJSON("The page.", "StatusResponse"), nil)}
		paths[a.prefix+"/components"] = obj{"get": operation("listComponents"+a.suffix, "components", "List components",
			"Components by position then id, 25 a page."+a.note,
			[]obj{param("filterParentIdNull"), param("filterParentIdEq"), param("page")},
			okJSON("A page of components.", "ComponentsResponse", "X-Ignored-Filters"),
			obj{"400": ref("responses", "BadRequest")})}
		if b.metrics {
			paths[a.prefix+"/components/{component_id}/metrics"] = obj{"get": operation("getComponentMetrics"+a.suffix, "components",
				"A component's uptime, mean time to recovery and mean time between failures",
				"Metrics over [timeframe_start 00:00Z, timeframe_end + 1 day 00:00Z), cut at now, for the component and its "+
					"descendants (the union of their incidents' impacts)."+a.note,
				[]obj{param("componentId"), param("timeframeStart"), param("timeframeEnd"), param("showCalculations")},
				okJSON("The metrics.", "MetricsResponse"),
				obj{"400": ref("responses", "BadRequest"), "404": ref("responses", "MetricsNotFound")})}
		}
		paths[a.prefix+"/notices"] = obj{"get": operation("listNotices"+a.suffix, "notices", "List notices",
			"Past, present and future notices, newest first, 25 a page; all given filters apply together."+a.note,
			[]obj{param("filterTypeEq"), param("filterTypeIn"), param("filterTimelineStateEq"), param("filterTimelineStateIn"),
				param("filterMetricsComponentId"), param("filterImpactTimeframeOverlaps"), param("page")},
			okJSON("A page of notices.", "NoticesResponse", "X-Ignored-Filters"),
			obj{"400": ref("responses", "BadRequest")})}
		paths[a.prefix+"/notices/{id}"] = obj{"get": b.noticeOperation("getNotice"+a.suffix, a.note)}
	}
	paths["/api/notices/{id}"] = obj{"get": b.noticeOperation("getNoticeUnversioned",
		" The path of a notice's links.self, without a version segment.")}
	doc := operation("getOpenAPIDocument", "meta", "This document",
		"The OpenAPI document of this API, for this server's variant.", nil,
		obj{"description": "The OpenAPI document.", "headers": rateHeaders(),
			"content": jsonContent(obj{"type": "object", "required": []string{"openapi", "info", "paths"}})}, nil)
	delete(doc["responses"].(obj), "304")
	delete(doc, "parameters")
	paths["/api/v1/openapi.json"] = obj{"get": doc}
	return paths
}

func (b builder) noticeOperation(id, note string) obj {
	return operation(id, "notices", "A notice with its impacted components and every update",
		"One notice in detail."+note, []obj{param("noticeId")},
		okJSON("The notice.", "NoticeResponse"),
		obj{"400": ref("responses", "BadRequest"), "404": ref("responses", "NotFound")})
}
