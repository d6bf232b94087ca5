-- Admin API tokens (only the SHA-256 of each secret) and the audit log.
CREATE TABLE tokens (
    name       TEXT    PRIMARY KEY,
    hash       BLOB    NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    last_used  INTEGER
);

CREATE TABLE audit (
    id     INTEGER PRIMARY KEY,
    at     INTEGER NOT NULL,
    actor  TEXT    NOT NULL,
    action TEXT    NOT NULL,
    target TEXT    NOT NULL,
    detail TEXT    NOT NULL DEFAULT ''
);
