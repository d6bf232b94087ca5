-- The operator console's people (CONTRACT C8): users, their one-time setup
-- links and their sessions. Secrets are kept as their SHA-256 only; emails
-- in lower case. Times are Unix milliseconds.
CREATE TABLE users (
    id            INTEGER PRIMARY KEY,
    email         TEXT    NOT NULL UNIQUE,
    role          TEXT    NOT NULL CHECK (role IN ('owner', 'publisher', 'viewer')),
    password_hash TEXT    NOT NULL DEFAULT '',
    created_at    INTEGER NOT NULL,
    updated_at    INTEGER NOT NULL
);

-- A user has at most one setup link.
CREATE TABLE user_setups (
    hash       BLOB    PRIMARY KEY,
    user_id    INTEGER NOT NULL UNIQUE REFERENCES users (id) ON DELETE CASCADE,
    expires_at INTEGER NOT NULL
);

CREATE TABLE sessions (
    hash       BLOB    PRIMARY KEY,
    user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL,
    last_seen  INTEGER NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
