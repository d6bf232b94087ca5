package statusd

import (
	"context"
	"crypto/ed25519"
	"time"
)

// MirrorState is where one destination of the mirror stands (CONTRACT
// C10): the last manifest written there and its retry schedule.
type MirrorState struct {
	// URL names the destination (file:///dir or s3://bucket/prefix).
	URL string
	// Sequence is that of the last manifest written there.
	Sequence      int64
	LastSuccessAt *time.Time
	LastAttemptAt *time.Time
	// Failures counts the pushes that failed since the last success;
	// LastError says why the last one did.
	Failures  int
	LastError string
	// NextAttemptAt is when a failed push is tried again.
	NextAttemptAt time.Time
	// Stale are the keys a push meant to delete once its manifest was
	// written; a success of the next push clears them.
	Stale []string
}

// MirrorPush is one attempt to bring a destination up to date: a line of
// the mirror's delivery log.
type MirrorPush struct {
	URL string
	// Sequence is the manifest's that the push wrote (or meant to).
	Sequence   int64
	StartedAt  time.Time
	FinishedAt time.Time
	// Error says why the push failed; "" when it succeeded.
	Error string
	// FilesPut and BytesPut count the files uploaded, FilesDeleted those
	// removed because the page no longer serves them.
	FilesPut     int
	BytesPut     int64
	FilesDeleted int
}

// MirrorRetry is how long after its failures-th failure in a row a
// destination is tried again: 5 seconds, doubling, at most 5 minutes.
func MirrorRetry(failures int) time.Duration {
	d := 5 * time.Second
	for i := 1; i < failures && d < 5*time.Minute; i++ {
		d *= 2
	}
	return min(d, 5*time.Minute)
}

// After returns the state that push leaves: on success the new sequence
// and no failures; on failure one more, and the time of the next try
// (MirrorRetry).
func (s MirrorState) After(push MirrorPush) MirrorState {
	at := push.FinishedAt
	s.LastAttemptAt = &at
	if push.Error == "" {
		s.Sequence, s.LastSuccessAt, s.Failures, s.LastError, s.NextAttemptAt, s.Stale = push.Sequence, &at, 0, "", time.Time{}, nil
		return s
	}
	s.Failures++
	s.LastError = push.Error
	s.NextAttemptAt = at.Add(MirrorRetry(s.Failures))
	return s
}

// MirrorStore keeps the mirror's signing key and its destinations' state,
// shared by every replica.
type MirrorStore interface {
	// SigningKey returns the key that signs the manifests, made at now
	// when there is none, or a new one when rotate is set.
	SigningKey(ctx context.Context, now time.Time, rotate bool) (ed25519.PrivateKey, error)
	// Claim makes holder the one writer of the destination at url until
	// now+lease, unless another holder's lease runs on: then it returns
	// nil. It returns the destination's state.
	Claim(ctx context.Context, url, holder string, now time.Time, lease time.Duration) (*MirrorState, error)
	// Remember keeps the keys a push to url is to delete (Stale).
	Remember(ctx context.Context, url string, keys []string) error
	// Record logs push and saves the state it leaves (MirrorState.After).
	Record(ctx context.Context, push MirrorPush) (*MirrorState, error)
	// States returns every destination's state, by URL.
	States(ctx context.Context) ([]MirrorState, error)
	// Pushes returns the last limit pushes, newest first.
	Pushes(ctx context.Context, limit int) ([]MirrorPush, error)
}
