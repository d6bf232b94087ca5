package app

import (
	"context"
	"crypto/ed25519"

	"github.com/statusd/statusd"
	"github.com/statusd/statusd/internal/mirror"
)

// recentPushes is how many pushes Mirror shows.
const recentPushes = 20

// Mirror returns the mirror's public key, its destinations' states and
// its last pushes (CONTRACT C10), for anyone who may read.
func (a *App) Mirror(ctx context.Context, actor statusd.Actor) (*statusd.AdminMirror, error) {
	if err := May(actor, ActRead); err != nil {
		return nil, err
	}
	ms := a.store.Mirror()
	key, err := ms.SigningKey(ctx, a.now(), false)
	if err != nil {
		return nil, err
	}
	states, err := ms.States(ctx)
	if err != nil {
		return nil, err
	}
	pushes, err := ms.Pushes(ctx, recentPushes)
	if err != nil {
		return nil, err
	}
	out := &statusd.AdminMirror{PublicKey: string(mirror.PublicKeyPEM(key.Public().(ed25519.PublicKey))),
		Destinations: make([]statusd.AdminMirrorDestination, len(states)), Pushes: make([]statusd.AdminMirrorPush, len(pushes))}
	for i, s := range states {
		out.Destinations[i] = statusd.AdminMirrorDestinationOf(s)
	}
	for i, p := range pushes {
		out.Pushes[i] = statusd.AdminMirrorPushOf(p)
	}
	return out, nil
}
