-- The mirror of CONTRACT C10: the keys that sign its manifests (the newest
-- is the one in use; older ones are kept after a rotation), each
-- destination's state (its one writer's lease, the last manifest's
-- sequence, the retry schedule, the keys a push is to delete, as a JSON
-- list), and the log of its pushes.
CREATE TABLE mirror_keys (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    seed       BLOB NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE TABLE mirror_destinations (
    url             TEXT PRIMARY KEY,
    holder          TEXT NOT NULL DEFAULT '',
    lease_until     INTEGER NOT NULL DEFAULT 0,
    sequence        INTEGER NOT NULL DEFAULT 0,
    last_success_at INTEGER,
    last_attempt_at INTEGER,
    failures        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT NOT NULL DEFAULT '',
    stale           TEXT NOT NULL DEFAULT '[]',
    next_attempt_at INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE mirror_pushes (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    url           TEXT NOT NULL,
    sequence      INTEGER NOT NULL,
    started_at    INTEGER NOT NULL,
    finished_at   INTEGER NOT NULL,
    error         TEXT NOT NULL,
    files_put     INTEGER NOT NULL,
    bytes_put     INTEGER NOT NULL,
    files_deleted INTEGER NOT NULL
);
CREATE INDEX mirror_pushes_url ON mirror_pushes (url, id);
