package sqlstore

import (
	"context"
	"sync"
	"time"
)

// usageDelay is how long a token use waits before it is written, with
// every use noted meanwhile.
const usageDelay = time.Second

// usage holds the token uses noted and not yet written, so that checking a
// token never waits for, nor fails on, a write (a full disk, a read-only
// database): the time a token was last used is written later, best effort.
type usage struct {
	mu    sync.Mutex
	noted map[string]time.Time // by token name
	timer *time.Timer          // the flush to come, or running; nil when none
}

// noteUse notes that the named token was used at at, and has it written
// within usageDelay.
func (s *Store) noteUse(name string, at time.Time) {
	u := &s.uses
	u.mu.Lock()
	defer u.mu.Unlock()
	u.add(name, at)
	if u.timer == nil {
		u.timer = time.AfterFunc(usageDelay, s.flushUses)
	}
}

// add notes a use, unless a later one of the token is noted; u.mu is held.
func (u *usage) add(name string, at time.Time) {
	if u.noted == nil {
		u.noted = map[string]time.Time{}
	}
	if at.After(u.noted[name]) {
		u.noted[name] = at
	}
}

// flushUses writes the token uses noted. When the write fails, they stay
// noted, and the next use tries again; the failure is logged by noteWrite
// when it is a storage fault, and at debug level here.
func (s *Store) flushUses() {
	u := &s.uses
	u.mu.Lock()
	noted := u.noted
	u.noted = nil
	u.mu.Unlock()
	var err error
	if len(noted) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		err = s.transact(ctx, func(t tx) error {
			for name, at := range noted {
				// Another server may have written a later use.
				if _, err := t.exec(`UPDATE tokens SET last_used = ? WHERE name = ? AND (last_used IS NULL OR last_used < ?)`,
					ms(at), name, ms(at)); err != nil {
					return err
				}
			}
			return nil
		})
		cancel()
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	u.timer = nil
	if err != nil {
		s.log.Debug("the last uses of tokens were not written; they will be with the next use", "tokens", len(noted), "err", err)
		for name, at := range noted {
			u.add(name, at)
		}
		return
	}
	if len(u.noted) > 0 { // noted while writing
		u.timer = time.AfterFunc(usageDelay, s.flushUses)
	}
}
