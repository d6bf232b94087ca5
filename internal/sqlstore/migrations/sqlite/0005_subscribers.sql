-- Subscriptions and notifications (CONTRACT C7): the subscribers, and the
-- outbox: events stored by the writes that make them, and the deliveries
-- (one per event and subscriber that wants it) that senders claim. Times
-- are Unix milliseconds. Ids are never given twice (AUTOINCREMENT): a
-- delivery's id is the webhook-id receivers deduplicate by.
CREATE TABLE subscribers (
    id                 INTEGER PRIMARY KEY AUTOINCREMENT,
    channel            TEXT    NOT NULL CHECK (channel IN ('email', 'webhook', 'slack', 'teams', 'discord')),
    address            TEXT    NOT NULL,
    component_ids      TEXT    NOT NULL DEFAULT '[]', -- a JSON array; empty: the whole page
    state              TEXT    NOT NULL CHECK (state IN ('pending', 'active', 'quarantined', 'unsubscribed')),
    secret             TEXT    NOT NULL DEFAULT '',
    token              TEXT    NOT NULL UNIQUE,
    confirm_token      TEXT    UNIQUE,                -- NULL when no confirmation is pending
    confirm_expires_at INTEGER,
    failures           INTEGER NOT NULL DEFAULT 0,
    failing_since      INTEGER,
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    UNIQUE (channel, address)
);

-- expanded_at is set once the event's deliveries are made; event_key, when
-- not NULL, makes the event once only.
CREATE TABLE events (
    id            INTEGER PRIMARY KEY AUTOINCREMENT,
    kind          TEXT    NOT NULL,
    notice_id     INTEGER NOT NULL DEFAULT 0,
    update_id     INTEGER NOT NULL DEFAULT 0,
    component_ids TEXT    NOT NULL DEFAULT '[]',
    subscriber_id INTEGER NOT NULL DEFAULT 0,
    event_key     TEXT    UNIQUE,
    created_at    INTEGER NOT NULL,
    expanded_at   INTEGER
);
CREATE INDEX events_unexpanded ON events (id) WHERE expanded_at IS NULL;

-- claimed_until is the lease of the sender that took a pending delivery;
-- next_attempt_at is set while it is pending. Expanding an event inserts
-- thousands of rows at once, so the table has no more indexes than its
-- queries need (the unique key serves a subscriber's deliveries too), and
-- no foreign keys: on PostgreSQL their checks lock every subscriber row
-- an expansion names, which cost it more than its inserts (sqlstore's
-- subscriber lock keeps deliveries to removed subscribers out instead).
CREATE TABLE deliveries (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    event_id        INTEGER NOT NULL,
    subscriber_id   INTEGER NOT NULL,
    state           TEXT    NOT NULL CHECK (state IN ('pending', 'delivered', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_status     INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT    NOT NULL DEFAULT '',
    next_attempt_at INTEGER,
    claimed_until   INTEGER,
    delivered_at    INTEGER,
    created_at      INTEGER NOT NULL,
    UNIQUE (subscriber_id, event_id)
);
CREATE INDEX deliveries_due ON deliveries (next_attempt_at, id) WHERE state = 'pending';
