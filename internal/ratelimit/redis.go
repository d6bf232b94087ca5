package ratelimit

import (
	"context"
	"log/slog"
	"math"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
)

// Shared is one limit across every server that uses the same Redis: GCRA in
// Redis (redis_rate). Requests never fail or wait because of Redis: when it
// does not answer in time, the server limits on its own (a local Limiter)
// at once and from then on, without asking Redis, while a probe asks it in
// the background, ever less often, until it answers again (a circuit
// breaker). Each change is logged once. It is safe for concurrent use.
type Shared struct {
	client  *redis.Client
	limiter *redis_rate.Limiter
	limit   redis_rate.Limit
	local   *Limiter
	timeout time.Duration
	log     *slog.Logger
	// down is set from the first failure until the probe sees Redis
	// answer.
	down atomic.Bool
	// ctx ends at Close, and with it a probe.
	ctx  context.Context
	stop context.CancelFunc
}

// The probe asks Redis first probeFirst after a failure, then waits twice
// as long after each failure, up to probeMax: a Redis that is back is
// used again within probeMax, and a hung one costs a probe every probeMax.
const (
	probeFirst = 100 * time.Millisecond
	probeMax   = 5 * time.Second
)

// NewShared returns a limit of perSecond requests a second per client,
// burst perSecond, kept in the Redis at url (redis://host:port/db).
func NewShared(url string, perSecond float64, log *slog.Logger) (*Shared, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, err
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = 200*time.Millisecond, 100*time.Millisecond, 100*time.Millisecond
	opts.MaxRetries = 0
	client := redis.NewClient(opts)
	local := New(perSecond, 0)
	ctx, stop := context.WithCancel(context.Background())
	return &Shared{
		client:  client,
		limiter: redis_rate.NewLimiter(client),
		limit:   redis_rate.Limit{Rate: local.burst, Burst: local.burst, Period: time.Duration(float64(local.burst) / perSecond * float64(time.Second))},
		local:   local,
		timeout: 150 * time.Millisecond,
		log:     log,
		ctx:     ctx,
		stop:    stop,
	}, nil
}

// Burst is the size of each client's bucket.
func (s *Shared) Burst() int { return s.local.burst }

// Up reports whether the limit is shared through Redis now, rather than
// kept by this server alone because Redis did not answer.
func (s *Shared) Up() bool { return !s.down.Load() }

// Allow takes a token from the client's shared bucket, or from the local one
// while Redis does not answer.
func (s *Shared) Allow(client string, now time.Time) Result {
	if s.down.Load() {
		return s.local.Allow(client, now)
	}
	res, err := s.allow(client, 1)
	if err != nil {
		if !s.down.Swap(true) {
			s.log.Warn("Redis cannot be reached; each server limits on its own, and Redis is probed in the background until it answers", "err", err)
			go s.probe()
		}
		return s.local.Allow(client, now)
	}
	r := Result{
		OK:        res.Allowed > 0,
		Remaining: res.Remaining,
		Reset:     int(math.Ceil(res.ResetAfter.Seconds())),
	}
	if !r.OK {
		r.Retry = max(1, int(math.Ceil(res.RetryAfter.Seconds())))
	}
	return r
}

// allow takes n tokens from the client's bucket in Redis, waiting at most
// the timeout.
func (s *Shared) allow(client string, n int) (*redis_rate.Result, error) {
	ctx, cancel := context.WithTimeout(s.ctx, s.timeout)
	defer cancel()
	return s.limiter.AllowN(ctx, "statusd:rl:"+client, s.limit, n)
}

// probe asks Redis what Allow asks, at no cost (0 tokens), with a growing
// pause between tries, until it answers; then the limit is shared again.
// It ends early at Close.
func (s *Shared) probe() {
	pause := probeFirst
	for {
		select {
		case <-s.ctx.Done():
			return
		case <-time.After(pause):
		}
		if _, err := s.allow("probe", 0); err == nil {
			s.down.Store(false)
			s.log.Info("Redis can be reached again; the rate limit is shared again")
			return
		}
		pause = min(2*pause, probeMax)
	}
}

// Close stops the probe and closes the connection to Redis.
func (s *Shared) Close() error {
	s.stop()
	return s.client.Close()
}
