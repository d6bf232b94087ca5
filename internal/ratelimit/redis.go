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
// Redis (redis_rate). When Redis cannot be reached, each server falls back
// to its own local Limiter and logs it; requests never fail because of
// Redis. It is safe for concurrent use.
type Shared struct {
	client   *redis.Client
	limiter  *redis_rate.Limiter
	limit    redis_rate.Limit
	local    *Limiter
	timeout  time.Duration
	log      *slog.Logger
	degraded atomic.Bool
}

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
	return &Shared{
		client:  client,
		limiter: redis_rate.NewLimiter(client),
		limit:   redis_rate.Limit{Rate: local.burst, Burst: local.burst, Period: time.Duration(float64(local.burst) / perSecond * float64(time.Second))},
		local:   local,
		timeout: 150 * time.Millisecond,
		log:     log,
	}, nil
}

// Burst is the size of each client's bucket.
func (s *Shared) Burst() int { return s.local.burst }

// Allow takes a token from the client's shared bucket, or from the local one
// while Redis cannot be reached.
func (s *Shared) Allow(client string, now time.Time) Result {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	res, err := s.limiter.Allow(ctx, "statusd:rl:"+client, s.limit)
	if err != nil {
		if !s.degraded.Swap(true) {
			s.log.Warn("Redis cannot be reached; each server limits on its own until it is back", "err", err)
		}
		return s.local.Allow(client, now)
	}
	if s.degraded.Swap(false) {
		s.log.Info("Redis can be reached again; the rate limit is shared again")
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

// Close closes the connection to Redis.
func (s *Shared) Close() error { return s.client.Close() }
