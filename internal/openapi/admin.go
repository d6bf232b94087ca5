package openapi

import (
	"bytes"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/statusd/statusd"
)

// AdminPath is where the admin API serves its document.
const AdminPath = "/admin/api/v1/openapi.json"

var adminDoc = sync.OnceValue(buildAdmin)

// Admin returns the OpenAPI document of the admin API as indented JSON.
// Its bodies and answers are the wire types of package statusd, described
// by reflection on their fields and JSON tags, so that they cannot drift
// from what the server decodes and encodes. The caller owns the returned
// slice. It is safe for concurrent use.
func Admin() []byte { return bytes.Clone(adminDoc()) }

// adminOp is an operation of the admin API: its method and path (under
// /admin/api/v1), what it does, the request body's type (nil: none), the
// success status and the answer's type (nil: no body), and its query
// parameters.
type adminOp struct {
	method, path, summary string
	body                  any
	status                int
	answer                any
	query                 []string
}

// adminOps is every operation of the admin API, in the order of the
// reference (docs/ADMIN-API.md).
var adminOps = []adminOp{
	{"GET", "/page", "The page and its state texts.", nil, 200, statusd.AdminPage{}, nil},
	{"PATCH", "/page", "Change the page's name, url or state texts (an empty text: the default).", statusd.AdminPageRequest{}, 200, statusd.AdminPage{}, nil},
	{"GET", "/components", "Every component, in position order.", nil, 200, statusd.AdminComponentsResponse{}, nil},
	{"POST", "/components", "Add a component (name required; key optional: lower-case letters, digits, - and _, at least one letter, unique, never public).", statusd.AdminComponentRequest{}, 201, statusd.AdminComponent{}, nil},
	{"GET", "/components/{id}", "One component.", nil, 200, statusd.AdminComponent{}, nil},
	{"PATCH", "/components/{id}", "Change or move a component (a new parent_id, null for the top level, or position; key null or \"\" clears it).", statusd.AdminComponentRequest{}, 200, statusd.AdminComponent{}, nil},
	{"DELETE", "/components/{id}", "Delete a component: with children only with recursive=true, listed by notices only with detach=true (else 409 naming them).", nil, 204, nil, []string{"recursive", "detach"}},
	{"GET", "/notices", "A page of notices, newest first.", nil, 200, statusd.AdminNoticesResponse{}, []string{"page"}},
	{"POST", "/notices", "Publish a notice (type, subject and content required); sent to its subscribers unless notify is false.", statusd.AdminNoticeRequest{}, 201, statusd.AdminNotice{}, nil},
	{"GET", "/notices/{id}", "One notice with every update.", nil, 200, statusd.AdminNotice{}, nil},
	{"PATCH", "/notices/{id}", "Change a notice's subject, tags, components, schedule, expiry or impact (not its type, state or content).", statusd.AdminNoticeRequest{}, 200, statusd.AdminNotice{}, nil},
	{"DELETE", "/notices/{id}", "Delete a notice.", nil, 204, nil, nil},
	{"POST", "/notices/{id}/updates", "Post an update (content required; state left out: unchanged).", statusd.AdminUpdateRequest{}, 201, statusd.AdminNotice{}, nil},
	{"POST", "/notices/{id}/reopen", "Reopen a closed incident (content only), back to investigating.", statusd.AdminUpdateRequest{}, 201, statusd.AdminNotice{}, nil},
	{"GET", "/audit", "A page of the audit log, newest first.", nil, 200, statusd.AdminAuditResponse{}, []string{"page"}},
	{"GET", "/subscribers", "A page of subscribers.", nil, 200, statusd.AdminSubscribersResponse{}, []string{"page", "channel", "state"}},
	{"POST", "/subscribers", "Add a subscriber (channel and address required); a webhook's answer carries its signing secret, once.", statusd.AdminSubscriberRequest{}, 201, statusd.AdminSubscriber{}, nil},
	{"POST", "/subscribers/reactivate", "Set quarantined subscribers active again (those of channel, or those ids lists; neither: all) and send each, for every notice, its newest update of the last 24 hours that it did not get.", statusd.AdminReactivateRequest{}, 200, statusd.AdminReactivateResponse{}, nil},
	{"GET", "/subscribers/{id}", "One subscriber.", nil, 200, statusd.AdminSubscriber{}, nil},
	{"PATCH", "/subscribers/{id}", "Change what a subscriber follows, or make it active again.", statusd.AdminSubscriberRequest{}, 200, statusd.AdminSubscriber{}, nil},
	{"DELETE", "/subscribers/{id}", "Remove a subscriber.", nil, 204, nil, nil},
	{"POST", "/subscribers/{id}/test", "Send a subscriber a test message.", nil, 201, statusd.AdminDelivery{}, nil},
	{"GET", "/deliveries", "A page of the delivery log.", nil, 200, statusd.AdminDeliveriesResponse{}, []string{"page", "subscriber_id", "state"}},
	{"GET", "/users", "Every console user.", nil, 200, statusd.AdminUsersResponse{}, nil},
	{"POST", "/users", "Invite a console user (email and role required); the answer carries the setup link.", statusd.AdminUserRequest{}, 201, statusd.AdminUser{}, nil},
	{"DELETE", "/users/{id}", "Remove a console user.", nil, 204, nil, nil},
	{"POST", "/users/{id}/reset", "End a user's sessions and make a new setup link.", nil, 200, statusd.AdminUser{}, nil},
	{"GET", "/tokens", "Every admin token, without its secret.", nil, 200, statusd.AdminTokensResponse{}, nil},
	{"POST", "/tokens", "Create a token (name required; role owner, the default, publisher or viewer); the answer carries its secret, once.", statusd.AdminTokenRequest{}, 201, statusd.AdminToken{}, nil},
	{"DELETE", "/tokens/{name}", "Revoke a token.", nil, 204, nil, nil},
	{"GET", "/sources", "Every source of alerts (CONTRACT C9), without tokens.", nil, 200, statusd.AdminSourcesResponse{}, nil},
	{"POST", "/sources", "Add a source (name and format required: alertmanager, grafana, uptime_kuma or generic); the answer carries its token, once.", statusd.AdminSourceRequest{}, 201, statusd.AdminSource{}, nil},
	{"GET", "/sources/{id}", "One source, with its state: never, ok or stale.", nil, 200, statusd.AdminSource{}, nil},
	{"PATCH", "/sources/{id}", "Change a source's name, rules, heartbeat or Grafana secret (not its format).", statusd.AdminSourceRequest{}, 200, statusd.AdminSource{}, nil},
	{"DELETE", "/sources/{id}", "Remove a source and its signals; its drafts stay.", nil, 204, nil, nil},
	{"POST", "/sources/{id}/token", "Give a source a new token, shown once; the old one stops working.", nil, 201, statusd.AdminSource{}, nil},
	{"GET", "/mirror", "The mirror (CONTRACT C10): the public key that signs its copies, as PEM; each destination's state; the last 20 pushes, newest first.", nil, 200, statusd.AdminMirror{}, nil},
	{"GET", "/signals", "The signals kept of the sources' alerts.", nil, 200, statusd.AdminSignalsResponse{}, []string{"source_id", "status", "unmapped"}},
	{"GET", "/drafts", "The drafts that signals made, of a state (open, published, discarded, lapsed; all when left out).", nil, 200, statusd.AdminDraftsResponse{}, []string{"state"}},
	{"GET", "/drafts/{id}", "One draft.", nil, 200, statusd.AdminDraft{}, nil},
	{"PATCH", "/drafts/{id}", "Change an open draft's subject, content, notice_state or component_ids (version required; 409 when stale).", statusd.AdminDraftRequest{}, 200, statusd.AdminDraft{}, nil},
	{"POST", "/drafts/{id}/publish", "Publish an open or lapsed draft as its notice write (version required; 409 when stale or no longer open); told to subscribers unless notify is false.", statusd.AdminDraftRequest{}, 201, statusd.AdminPublishedDraft{}, nil},
	{"POST", "/drafts/{id}/discard", "Discard an open or lapsed draft (version required; reason optional).", statusd.AdminDiscardRequest{}, 200, statusd.AdminDraft{}, nil},
	{"GET", "/openapi.json", "This document.", nil, 200, nil, nil},
}

// adminErrors are the error answers every admin operation may give, by
// status, with their codes.
var adminErrors = []struct {
	status int
	desc   string
	codes  []string
}{
	{400, "A parameter or the body cannot be read.", []string{statusd.EInvalidParameter, statusd.EInvalidBody}},
	{401, "No token, or one the server does not know.", []string{statusd.EUnauthorized}},
	{403, "The token's or person's role does not allow it.", []string{statusd.EForbidden}},
	{404, "No such record, or no page yet.", []string{statusd.ENotFound}},
	{409, "The change conflicts with what is stored; the message says what.", []string{statusd.EConflict}},
	{413, "The body is over 1 MiB.", []string{statusd.ETooLarge}},
	{422, "The body breaks a rule: the message names every problem, each by its JSON path (path: problem; ...).", []string{statusd.EInvalidField, statusd.EInvalidTransition}},
	{429, "Too many wrong tokens from this client, or over the rate limit; see Retry-After.", []string{statusd.ERateLimited}},
	{503, "Storage cannot take writes now, or the server is at capacity.", []string{statusd.EUnavailable}},
}

func buildAdmin() []byte {
	s := schemaSet{}
	paths := obj{}
	for _, op := range adminOps {
		o := obj{"operationId": operationID(op), "summary": op.summary, "security": []obj{{"bearer": []string{}}}}
		var params []obj
		if i := strings.Index(op.path, "{"); i >= 0 {
			name := strings.Trim(op.path[i:strings.Index(op.path, "}")+1], "{}")
			kind := obj{"type": "integer", "minimum": 1}
			if name == "name" {
				kind = obj{"type": "string"}
			}
			params = append(params, obj{"name": name, "in": "path", "required": true, "schema": kind})
		}
		for _, q := range op.query {
			kind := obj{"type": "string"}
			switch q {
			case "page", "subscriber_id":
				kind = obj{"type": "integer", "minimum": 1}
			case "recursive", "detach":
				kind = obj{"type": "boolean"}
			}
			params = append(params, obj{"name": q, "in": "query", "required": false, "schema": kind})
		}
		if params != nil {
			o["parameters"] = params
		}
		if op.body != nil {
			o["requestBody"] = obj{"required": true, "content": jsonContent(s.of(reflect.TypeOf(op.body), true))}
		}
		ok := obj{"description": http.StatusText(op.status)}
		switch {
		case op.answer != nil:
			ok["content"] = jsonContent(s.of(reflect.TypeOf(op.answer), false))
		case op.status == 200: // this document
			ok["content"] = jsonContent(obj{"type": "object"})
		}
		responses := obj{strconv.Itoa(op.status): ok}
		for _, e := range adminErrors {
			responses[strconv.Itoa(e.status)] = ref("responses", "Error"+strconv.Itoa(e.status))
		}
		o["responses"] = responses
		item, _ := paths["/admin/api/v1"+op.path].(obj)
		if item == nil {
			item = obj{}
			paths["/admin/api/v1"+op.path] = item
		}
		item[strings.ToLower(op.method)] = o
	}
	responses := obj{}
	for _, e := range adminErrors {
		responses["Error"+strconv.Itoa(e.status)] = obj{"description": e.desc, "content": jsonContent(obj{"allOf": []obj{schema("AdminError"), {
			"type": "object", "properties": obj{"error": obj{"type": "object", "properties": obj{
				"status": obj{"const": e.status}, "code": obj{"enum": e.codes}}}}}}})}
	}
	var codes []string
	for _, e := range adminErrors {
		codes = append(codes, e.codes...)
	}
	s["AdminError"] = closed("The body of every error answer.", obj{"error": closed("", obj{
		"status":  obj{"type": "integer", "description": "The HTTP status, repeated."},
		"code":    enum("What went wrong.", codes...),
		"message": str("What went wrong, for people; a refused body's every problem, each by its JSON path."),
	})})
	return encode(obj{
		"openapi": Version,
		"info": obj{"title": "statusd admin API", "version": "1",
			"description": "The admin API of statusd: JSON in, JSON out, under /admin/api/v1/, every request with " +
				"`Authorization: Bearer <token>` (statusd token create). A POST that creates answers 201, a DELETE 204, " +
				"anything else 200. In a request body a key left out leaves that setting as it is, null clears it, and an " +
				"unknown key is refused. The reference: docs/ADMIN-API.md."},
		"paths":      paths,
		"components": obj{"schemas": obj(s), "responses": responses, "securitySchemes": obj{"bearer": obj{"type": "http", "scheme": "bearer"}}},
	})
}

// operationID names an operation after its method and path:
// PATCH /notices/{id} is patchNoticesId.
func operationID(op adminOp) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(op.method))
	for _, part := range strings.FieldsFunc(op.path, func(r rune) bool { return strings.ContainsRune("/{}._", r) }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// schemaSet holds the named schemas of the wire types the document
// refers to.
type schemaSet obj

var (
	timeType = reflect.TypeFor[statusd.Time]()
	spanType = reflect.TypeFor[statusd.Span]()
)

// of returns the schema of the wire type t. A struct is a named, closed
// object: a field without omitempty or omitzero is required, except in a
// request body (body), where every key may be left out. A pointer, or a
// Field, may be null.
func (s schemaSet) of(t reflect.Type, body bool) obj {
	switch {
	case t == timeType:
		return obj{"type": "string", "format": "date-time"}
	case t == spanType:
		return obj{"type": "string", "description": "a Go duration, such as 90s or 10m"}
	case t.Kind() == reflect.Struct && t.PkgPath() == timeType.PkgPath() && strings.HasPrefix(t.Name(), "Field["):
		return nullable(s.of(t.Field(1).Type.Elem(), body))
	}
	switch t.Kind() {
	case reflect.Pointer:
		return nullable(s.of(t.Elem(), body))
	case reflect.String:
		return obj{"type": "string"}
	case reflect.Bool:
		return obj{"type": "boolean"}
	case reflect.Int, reflect.Int64, reflect.Int32:
		return obj{"type": "integer"}
	case reflect.Float64:
		return obj{"type": "number"}
	case reflect.Slice:
		return obj{"type": "array", "items": s.of(t.Elem(), body)}
	case reflect.Map:
		return obj{"type": "object", "additionalProperties": s.of(t.Elem(), body)}
	case reflect.Struct:
		name := t.Name()
		if _, done := s[name]; !done {
			s[name] = obj{} // a type that refers to itself
			props, optional := obj{}, []string{}
			s.fields(t, body, props, &optional)
			s[name] = closed("", props, optional...)
		}
		return schema(name)
	}
	panic("openapi: no schema for " + t.String())
}

// fields adds the JSON keys of struct type t to props, those of embedded
// structs in line, and names the optional ones.
func (s schemaSet) fields(t reflect.Type, body bool, props obj, optional *[]string) {
	for f := range t.Fields() {
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case f.Anonymous && tag == "":
			s.fields(f.Type, body, props, optional)
			continue
		case name == "":
			name = f.Name
		}
		props[name] = s.of(f.Type, body)
		if body || strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero") {
			*optional = append(*optional, name)
		}
	}
	sort.Strings(*optional)
}

// nullable is s or null.
func nullable(s obj) obj { return obj{"oneOf": []obj{s, {"type": "null"}}} }
