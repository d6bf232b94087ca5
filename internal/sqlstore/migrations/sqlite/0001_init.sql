-- The page, its component tree and its notices. Times are Unix milliseconds.
CREATE TABLE page (
    id                     INTEGER PRIMARY KEY CHECK (id = 1),
    name                   TEXT    NOT NULL,
    url                    TEXT    NOT NULL,
    text_operational       TEXT    NOT NULL DEFAULT '',
    text_degraded          TEXT    NOT NULL DEFAULT '',
    text_under_maintenance TEXT    NOT NULL DEFAULT '',
    created_at             INTEGER NOT NULL,
    updated_at             INTEGER NOT NULL
);

CREATE TABLE components (
    id              INTEGER PRIMARY KEY,
    parent_id       INTEGER REFERENCES components (id),
    position        INTEGER NOT NULL,
    name            TEXT    NOT NULL,
    description     TEXT    NOT NULL DEFAULT '',
    metrics_enabled INTEGER NOT NULL DEFAULT 0,
    created_at      INTEGER NOT NULL,
    updated_at      INTEGER NOT NULL
);

CREATE TABLE notices (
    id             INTEGER PRIMARY KEY,
    type           TEXT    NOT NULL CHECK (type IN ('general', 'planned', 'unplanned')),
    subject        TEXT    NOT NULL,
    tag_list       TEXT    NOT NULL DEFAULT '[]',
    impact_seconds INTEGER,
    begins_at      INTEGER,
    ends_at        INTEGER,
    automate       INTEGER NOT NULL DEFAULT 0,
    expires_at     INTEGER,
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);

CREATE TABLE notice_components (
    notice_id    INTEGER NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
    component_id INTEGER NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    PRIMARY KEY (notice_id, component_id)
);
CREATE INDEX notice_components_component ON notice_components (component_id);

CREATE TABLE updates (
    id         INTEGER PRIMARY KEY,
    notice_id  INTEGER NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    state      TEXT,
    content    TEXT    NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX updates_notice ON updates (notice_id, seq);

-- version changes with every write so that other processes notice it.
CREATE TABLE store_version (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    version INTEGER NOT NULL
);
INSERT INTO store_version (id, version) VALUES (1, 0);
