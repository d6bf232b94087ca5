package statusd

// AdminMirror is the body of GET /mirror (CONTRACT C10): the public key
// that signs the copies' manifests, as PEM, so that anyone can check a
// copy (openssl pkeyutl -verify), each destination's state, and the last
// pushes, newest first: the mirror's delivery log.
type AdminMirror struct {
	PublicKey    string                   `json:"public_key"`
	Destinations []AdminMirrorDestination `json:"destinations"`
	Pushes       []AdminMirrorPush        `json:"pushes"`
}

// AdminMirrorDestination is a destination of the mirror and where it
// stands.
type AdminMirrorDestination struct {
	URL           string `json:"url"`
	Sequence      int64  `json:"sequence"`
	LastSuccessAt *Time  `json:"last_success_at"`
	LastAttemptAt *Time  `json:"last_attempt_at"`
	Failures      int    `json:"failures"`
	LastError     string `json:"last_error"`
	NextAttemptAt *Time  `json:"next_attempt_at"`
}

// AdminMirrorPush is one push to a destination: a line of the mirror's
// delivery log; Error is "" when it succeeded.
type AdminMirrorPush struct {
	URL          string `json:"url"`
	Sequence     int64  `json:"sequence"`
	StartedAt    Time   `json:"started_at"`
	FinishedAt   Time   `json:"finished_at"`
	Error        string `json:"error"`
	FilesPut     int    `json:"files_put"`
	BytesPut     int64  `json:"bytes_put"`
	FilesDeleted int    `json:"files_deleted"`
}

// AdminMirrorDestinationOf is s as the admin API shows it.
func AdminMirrorDestinationOf(s MirrorState) AdminMirrorDestination {
	d := AdminMirrorDestination{URL: s.URL, Sequence: s.Sequence, LastSuccessAt: TimePtr(s.LastSuccessAt),
		LastAttemptAt: TimePtr(s.LastAttemptAt), Failures: s.Failures, LastError: s.LastError}
	if !s.NextAttemptAt.IsZero() {
		d.NextAttemptAt = &Time{s.NextAttemptAt}
	}
	return d
}

// AdminMirrorPushOf is p as the admin API shows it.
func AdminMirrorPushOf(p MirrorPush) AdminMirrorPush {
	return AdminMirrorPush{URL: p.URL, Sequence: p.Sequence, StartedAt: Time{p.StartedAt}, FinishedAt: Time{p.FinishedAt},
		Error: p.Error, FilesPut: p.FilesPut, BytesPut: p.BytesPut, FilesDeleted: p.FilesDeleted}
}
