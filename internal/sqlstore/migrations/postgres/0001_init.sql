-- The page, its component tree and its notices. Times are Unix milliseconds.
CREATE TABLE page (
    id                     BIGINT  PRIMARY KEY CHECK (id = 1),
    name                   TEXT    NOT NULL,
    url                    TEXT    NOT NULL,
    text_operational       TEXT    NOT NULL DEFAULT '',
    text_degraded          TEXT    NOT NULL DEFAULT '',
    text_under_maintenance TEXT    NOT NULL DEFAULT '',
    created_at             BIGINT  NOT NULL,
    updated_at             BIGINT  NOT NULL
);

CREATE TABLE components (
    id              BIGINT  PRIMARY KEY,
    parent_id       BIGINT  REFERENCES components (id),
    position        INTEGER NOT NULL,
    name            TEXT    NOT NULL,
    description     TEXT    NOT NULL DEFAULT '',
    metrics_enabled BOOLEAN NOT NULL DEFAULT FALSE,
    created_at      BIGINT  NOT NULL,
    updated_at      BIGINT  NOT NULL
);

CREATE TABLE notices (
    id             BIGINT  PRIMARY KEY,
    type           TEXT    NOT NULL CHECK (type IN ('general', 'planned', 'unplanned')),
    subject        TEXT    NOT NULL,
    tag_list       TEXT    NOT NULL DEFAULT '[]',
    impact_seconds BIGINT,
    begins_at      BIGINT,
    ends_at        BIGINT,
    automate       BOOLEAN NOT NULL DEFAULT FALSE,
    expires_at     BIGINT,
    created_at     BIGINT  NOT NULL,
    updated_at     BIGINT  NOT NULL
);

CREATE TABLE notice_components (
    notice_id    BIGINT  NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
    component_id BIGINT  NOT NULL REFERENCES components (id) ON DELETE CASCADE,
    ord          INTEGER NOT NULL,
    PRIMARY KEY (notice_id, component_id)
);
CREATE INDEX notice_components_component ON notice_components (component_id);

CREATE TABLE updates (
    id         BIGINT  PRIMARY KEY,
    notice_id  BIGINT  NOT NULL REFERENCES notices (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    state      TEXT,
    content    TEXT    NOT NULL,
    created_at BIGINT  NOT NULL,
    updated_at BIGINT  NOT NULL
);
CREATE INDEX updates_notice ON updates (notice_id, seq);

-- version changes with every write so that other processes notice it.
CREATE TABLE store_version (
    id      BIGINT PRIMARY KEY CHECK (id = 1),
    version BIGINT NOT NULL
);
INSERT INTO store_version (id, version) VALUES (1, 0);
