// Package telemetry is what statusd tells its operators about itself:
// Prometheus metrics on a registry of its own (never the global default),
// and one middleware that gives every request an id, records it in the
// metrics by route pattern and status, and logs it at debug level.
//
// The metric families are:
//
//	statusd_http_requests_total{route,method,code}          counter
//	statusd_http_request_duration_seconds{route,method}     histogram
//	statusd_http_requests_in_flight                         gauge
//	statusd_http_rate_limited_total                         counter (answers 429)
//	statusd_http_shed_total                                 counter (refused by load shedding)
//	statusd_ratelimit_redis_up                              gauge, 1 while the rate limit is shared through Redis (--redis)
//	statusd_snapshot_rebuild_duration_seconds               histogram (fed by ObserveRebuild)
//	statusd_snapshot_version                                gauge
//	statusd_snapshot_built_timestamp_seconds                gauge
//	statusd_page_state{state}                               gauge, 1 for the current state
//	statusd_component_state{component_id,name,state}        gauge, 1 for the current state
//	statusd_notices{type,timeline}                          gauge
//	statusd_build_info{version,commit,goversion}            gauge, always 1
//
// plus the Go runtime and process collectors. route is the pattern of the
// route that answered (r.Pattern), never the raw path, so that the number
// of series stays bounded whatever clients send.
package telemetry

import (
	"log/slog"
	"net/http"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/statusd/statusd/internal/snapshot"
)

// Snapshots is where the page collector reads the current page at scrape
// time; *snapshot.Holder is one.
type Snapshots interface {
	Current() *snapshot.Snapshot
}

// Config configures Metrics.
type Config struct {
	// Snapshots, when set, adds the page, component, notice and snapshot
	// gauges, read at scrape time.
	Snapshots Snapshots
	// Shed, when set, reports how many requests load shedding refused so
	// far (server.Gate.Shed).
	Shed func() int64
	// RedisUp, when set, reports whether the rate limit is shared
	// through Redis now (ratelimit.Shared.Up), rather than kept by each
	// server alone because Redis does not answer.
	RedisUp func() bool
	// Version and Commit label statusd_build_info.
	Version, Commit string
	// Log receives the request log lines (debug level) and scrape errors.
	Log *slog.Logger
}

// Metrics holds statusd's registry and the instruments the middleware and
// the snapshot code feed. It is safe for concurrent use.
type Metrics struct {
	reg      *prometheus.Registry
	log      *slog.Logger
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	// inFlight counts the requests being answered, read by the gauge
	// statusd_http_requests_in_flight when scraped: an atomic add costs
	// a request less than a gauge's own (a compare-and-swap loop on a
	// float).
	inFlight    atomic.Int64
	rateLimited prometheus.Counter
	rebuild     prometheus.Histogram

	// seriesOf are the instruments of the series seen so far (see
	// series); seriesMu serialises adding one.
	seriesMu sync.Mutex
	seriesOf atomic.Pointer[map[seriesKey]requestSeries]
}

// requestBuckets spread from half a millisecond (a snapshot read) to ten
// seconds (a slow admin write).
var requestBuckets = []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}

// New returns Metrics with every family registered.
func New(cfg Config) *Metrics {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		log: log,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "statusd_http_requests_total",
			Help: "HTTP requests answered, by route pattern, method and status code.",
		}, []string{"route", "method", "code"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "statusd_http_request_duration_seconds",
			Help:    "Time to answer an HTTP request, by route pattern and method.",
			Buckets: requestBuckets,
		}, []string{"route", "method"}),
		rateLimited: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "statusd_http_rate_limited_total",
			Help: "HTTP requests answered 429 because a client went over a rate limit.",
		}),
		rebuild: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "statusd_snapshot_rebuild_duration_seconds",
			Help:    "Time to build a new snapshot of the page; the count is the number of rebuilds observed.",
			Buckets: []float64{.0001, .0005, .001, .005, .01, .05, .1, .5, 1, 5},
		}),
	}
	m.seriesOf.Store(&map[seriesKey]requestSeries{})
	m.reg.MustRegister(m.requests, m.duration, m.rateLimited, m.rebuild,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "statusd_http_requests_in_flight",
			Help: "HTTP requests being answered now.",
		}, func() float64 { return float64(m.inFlight.Load()) }),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name:        "statusd_build_info",
			Help:        "Always 1; the labels tell which statusd is running.",
			ConstLabels: prometheus.Labels{"version": cfg.Version, "commit": cfg.Commit, "goversion": runtime.Version()},
		}, func() float64 { return 1 }),
	)
	if cfg.Shed != nil {
		shed := cfg.Shed
		m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "statusd_http_shed_total",
			Help: "HTTP requests refused at once with 503 because the server was at capacity (--max-in-flight).",
		}, func() float64 { return float64(shed()) }))
	}
	if cfg.RedisUp != nil {
		up := cfg.RedisUp
		m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "statusd_ratelimit_redis_up",
			Help: "1 while the rate limit is shared through Redis (--redis); 0 while Redis does not answer and each server limits on its own.",
		}, func() float64 {
			if up() {
				return 1
			}
			return 0
		}))
	}
	if cfg.Snapshots != nil {
		m.reg.MustRegister(newPageCollector(cfg.Snapshots))
	}

	return m
}

// Registry returns the registry, for tests and for more collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text (or negotiated)
// exposition format. It does not authenticate: see RequireToken.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{
		ErrorLog:      slog.NewLogLogger(m.log.Handler(), slog.LevelWarn),
		ErrorHandling: promhttp.ContinueOnError,
		Registry:      m.reg, // promhttp_metric_handler_errors_total
	})
}

// ObserveRebuild records that a snapshot was built in d. The snapshot
// Holder cannot import this package; give it this method as a hook.
func (m *Metrics) ObserveRebuild(d time.Duration) { m.rebuild.Observe(d.Seconds()) }
