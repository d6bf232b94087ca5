// Package client is a Go client for the public, read-only API of a statusd
// status page (or of any service with the same interface): the page and its
// overall state, the tree of components, notices (incidents, maintenance,
// announcements) with their updates, and, in Variant A, component metrics.
// [Admin] is the client of the admin API, which changes them.
//
// Answers are decoded into the wire types of package statusd, the same types
// the server encodes, so a field means here what it means on the wire; fields
// that may be absent (a general notice has no state) are statusd.Field
// values. Collections come 25 records a page: [Client.Components] and
// [Client.Notices] return one page with its pagination meta, and
// [Client.AllComponents] and [Client.AllNotices] iterate over every page by
// following meta.next_page.
//
// Errors the server answers are *[Error] values carrying the HTTP status and
// the statusd error code; use [errors.As], [errors.Is] with the Err*
// sentinels, or [IsNotFound]. When the server answers 429 the client waits
// for Retry-After and tries again, up to [WithMaxRetries] times (3 by
// default), and stops waiting when the context is done.
//
//	c := client.New("https://status.example.com")
//	page, err := c.Status(ctx)
//	for n, err := range c.AllNotices(ctx, client.NoticeQuery{Types: []statusd.NoticeType{statusd.Unplanned}}) {
//		...
//	}
//
// The interface is described by the OpenAPI document statusd serves at
// /api/v1/openapi.json.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/statusd/statusd"
)

// DefaultUserAgent is the User-Agent of requests unless [WithUserAgent]
// changes it.
const DefaultUserAgent = "statusd-go-client/1"

// DefaultMaxRetries is how many times a request answered 429 is tried again
// unless [WithMaxRetries] changes it.
const DefaultMaxRetries = 3

// maxBody bounds the answers the client reads.
const maxBody = 32 << 20

// Client calls the public API of one status page. It is safe for concurrent
// use.
type Client struct {
	base       string // scheme://host[/prefix], without a trailing slash
	baseErr    error
	http       *http.Client
	userAgent  string
	maxRetries int
	token      string       // the admin API's bearer token; see NewAdmin
	onAnswer   func([]byte) // see WithAnswers
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient makes the client send its requests through hc instead of
// http.DefaultClient, for timeouts, proxies or transports of your own.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
		}
	}
}

// WithUserAgent sets the User-Agent header of every request.
func WithUserAgent(ua string) Option { return func(c *Client) { c.userAgent = ua } }

// WithMaxRetries sets how many times a request answered 429 is tried again
// after waiting Retry-After; 0 returns the 429 as an error at once.
func WithMaxRetries(n int) Option { return func(c *Client) { c.maxRetries = max(0, n) } }

// WithAnswers makes the client call f with the body of every successful
// answer, before decoding it: for tools that show the server's own JSON.
// f is called on the goroutine that made the call.
func WithAnswers(f func(body []byte)) Option { return func(c *Client) { c.onAnswer = f } }

// New returns a client of the status page at baseURL, for example
// https://status.example.com; the API paths (/api/v1/...) are appended to it,
// after any path it has. A baseURL that is not an absolute http or https URL
// makes every call fail.
func New(baseURL string, opts ...Option) *Client {
	c := &Client{http: http.DefaultClient, userAgent: DefaultUserAgent, maxRetries: DefaultMaxRetries}
	u, err := url.Parse(baseURL)
	switch {
	case err != nil:
		c.baseErr = fmt.Errorf("statusd client: base URL: %w", err)
	case u.Scheme != "http" && u.Scheme != "https" || u.Host == "":
		c.baseErr = fmt.Errorf("statusd client: base URL %q is not an absolute http or https URL", baseURL)
	default:
		u.RawQuery, u.Fragment = "", ""
		c.base = strings.TrimSuffix(u.String(), "/")
	}
	for _, opt := range opts {
		opt(c)
	}
	return c
}

// Status returns the page with its overall state (GET /api/v1/status).
func (c *Client) Status(ctx context.Context) (*statusd.PageResource, error) {
	var r statusd.StatusResponse
	if err := c.get(ctx, "/api/v1/status", &r); err != nil {
		return nil, err
	}
	return &r.Page, nil
}

// ComponentQuery selects components; the zero value selects all of them,
// first page.
type ComponentQuery struct {
	// ParentIDNull, when set, keeps only top-level components (true) or
	// only children (false): filter[parent_id_null].
	ParentIDNull *bool
	// ParentIDEq, when not zero, keeps the children of that component:
	// filter[parent_id_eq].
	ParentIDEq int64
	// Page is the page to return, from 1; 0 is the first.
	Page int
}

func (q ComponentQuery) path() string {
	v := url.Values{}
	if q.ParentIDNull != nil {
		v.Set("filter[parent_id_null]", strconv.FormatBool(*q.ParentIDNull))
	}
	if q.ParentIDEq != 0 {
		v.Set("filter[parent_id_eq]", strconv.FormatInt(q.ParentIDEq, 10))
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	return withQuery("/api/v1/components", v)
}

// Components returns one page of components, in display order, with its
// pagination meta (GET /api/v1/components).
func (c *Client) Components(ctx context.Context, q ComponentQuery) (*statusd.ComponentsResponse, error) {
	var r statusd.ComponentsResponse
	if err := c.get(ctx, q.path(), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Past is the timeline filter value that stands for both past_recent and
// past_distant.
const Past statusd.TimelineState = "past"

// NoticeQuery selects notices; the zero value selects all of them, first
// page. All given filters apply together.
type NoticeQuery struct {
	// Types keeps notices of these types: one is sent as filter[type_eq],
	// several as filter[type_in][].
	Types []statusd.NoticeType
	// TimelineStates keeps notices in these timeline states ([Past] for
	// both past ones): one is sent as filter[timeline_state_eq], several as
	// filter[timeline_state_in][].
	TimelineStates []statusd.TimelineState
	// MetricsComponentID, when not zero, keeps the notices that count for
	// that component's metrics: filter[metrics_component_id].
	MetricsComponentID int64
	// ImpactFrom and ImpactTo, when both set, keep the unplanned notices
	// whose impact meets [ImpactFrom, ImpactTo]:
	// filter[impact_timeframe_overlaps][]. Setting only one is an error.
	ImpactFrom, ImpactTo time.Time
	// Page is the page to return, from 1; 0 is the first.
	Page int
}

func (q NoticeQuery) path() (string, error) {
	v := url.Values{}
	addEnum := func(eq, in string, values []string) {
		switch len(values) {
		case 0:
		case 1:
			v.Set(eq, values[0])
		default:
			v[in] = values
		}
	}
	types := make([]string, len(q.Types))
	for i, t := range q.Types {
		types[i] = string(t)
	}
	addEnum("filter[type_eq]", "filter[type_in][]", types)
	timelines := make([]string, len(q.TimelineStates))
	for i, t := range q.TimelineStates {
		timelines[i] = string(t)
	}
	addEnum("filter[timeline_state_eq]", "filter[timeline_state_in][]", timelines)
	if q.MetricsComponentID != 0 {
		v.Set("filter[metrics_component_id]", strconv.FormatInt(q.MetricsComponentID, 10))
	}
	if q.ImpactFrom.IsZero() != q.ImpactTo.IsZero() {
		return "", fmt.Errorf("statusd client: NoticeQuery: ImpactFrom and ImpactTo must be set together")
	}
	if !q.ImpactFrom.IsZero() {
		v["filter[impact_timeframe_overlaps][]"] = []string{
			q.ImpactFrom.UTC().Format(statusd.TimeLayout), q.ImpactTo.UTC().Format(statusd.TimeLayout)}
	}
	if q.Page > 1 {
		v.Set("page", strconv.Itoa(q.Page))
	}
	return withQuery("/api/v1/notices", v), nil
}

// Notices returns one page of notices, newest first, with its pagination
// meta (GET /api/v1/notices).
func (c *Client) Notices(ctx context.Context, q NoticeQuery) (*statusd.NoticesResponse, error) {
	path, err := q.path()
	if err != nil {
		return nil, err
	}
	var r statusd.NoticesResponse
	if err := c.get(ctx, path, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Notice returns one notice with its impacted components and every update
// (GET /api/v1/notices/{id}). A notice that does not exist is an *Error with
// code not_found: [IsNotFound] reports true.
func (c *Client) Notice(ctx context.Context, id int64) (*statusd.NoticeDetail, error) {
	var r statusd.NoticeResponse
	if err := c.get(ctx, "/api/v1/notices/"+strconv.FormatInt(id, 10), &r); err != nil {
		return nil, err
	}
	return &r.Notice, nil
}

// MetricsQuery chooses the timeframe of [Client.Metrics].
type MetricsQuery struct {
	// From and To are the first and last days of the timeframe, taken as
	// the calendar dates of the times in their own locations; zero for the
	// server's defaults (30 days ago, today).
	From, To time.Time
	// ShowCalculations asks for the equations and the data behind them
	// (MetricsResponse.CalculationData and the Calculation strings).
	ShowCalculations bool
}

// Metrics returns a component's uptime, mean time to recovery and mean time
// between failures over the timeframe (GET
// /api/v1/components/{id}/metrics; Variant A only). A component without
// Metrics is an *Error with code metrics_disabled; on a Variant B page the
// endpoint does not exist (not_found). [IsNotFound] reports true for both.
func (c *Client) Metrics(ctx context.Context, componentID int64, q MetricsQuery) (*statusd.MetricsResponse, error) {
	v := url.Values{}
	if !q.From.IsZero() {
		v.Set("timeframe_start", q.From.Format(statusd.DateLayout))
	}
	if !q.To.IsZero() {
		v.Set("timeframe_end", q.To.Format(statusd.DateLayout))
	}
	if q.ShowCalculations {
		v.Set("show_calculations", "true")
	}
	var r statusd.MetricsResponse
	if err := c.get(ctx, withQuery("/api/v1/components/"+strconv.FormatInt(componentID, 10)+"/metrics", v), &r); err != nil {
		return nil, err
	}
	return &r, nil
}

func withQuery(path string, v url.Values) string {
	if len(v) == 0 {
		return path
	}
	return path + "?" + v.Encode()
}

// get fetches the relative path (with its query) and decodes the JSON answer
// into out, waiting and retrying on 429.
func (c *Client) get(ctx context.Context, path string, out any) error {
	return c.send(ctx, http.MethodGet, path, nil, out)
}

// send sends method to the relative path (with its query), with in as its
// JSON body unless in is nil, and decodes a JSON answer into out unless out
// is nil, waiting and retrying on 429.
func (c *Client) send(ctx context.Context, method, path string, in, out any) error {
	if c.baseErr != nil {
		return c.baseErr
	}
	if !strings.HasPrefix(path, "/") {
		return fmt.Errorf("statusd client: %q is not a relative path", path)
	}
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return fmt.Errorf("statusd client: %s %s: %w", method, path, err)
		}
	}
	for attempt := 0; ; attempt++ {
		err := c.once(ctx, method, path, body, out)
		var apiErr *Error
		if !errors.As(err, &apiErr) || apiErr.Status != http.StatusTooManyRequests || attempt >= c.maxRetries {
			return err
		}
		wait := apiErr.RetryAfter
		if wait <= 0 {
			wait = time.Second
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return fmt.Errorf("%w (gave up waiting %v to retry: %w)", apiErr, wait, ctx.Err())
		case <-timer.C:
		}
	}
}

// once sends one request. Any 2xx answer is a success.
func (c *Client) once(ctx context.Context, method, path string, body []byte, out any) error {
	var reqBody io.Reader
	if body != nil {
		reqBody = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, reqBody)
	if err != nil {
		return fmt.Errorf("statusd client: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.userAgent != "" {
		req.Header.Set("User-Agent", c.userAgent)
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	res, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("statusd client: %s %s: %w", method, path, err)
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, maxBody))
	if err != nil {
		return fmt.Errorf("statusd client: %s %s: reading the answer: %w", method, path, err)
	}
	if res.StatusCode < 200 || res.StatusCode > 299 {
		return newError(res, answer)
	}
	if c.onAnswer != nil {
		c.onAnswer(answer)
	}
	if out == nil || len(answer) == 0 {
		return nil
	}
	if err := json.Unmarshal(answer, out); err != nil {
		return fmt.Errorf("statusd client: %s %s: decoding the answer: %w", method, path, err)
	}
	return nil
}
