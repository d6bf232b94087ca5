-- The signals of CONTRACT C9: sources of alerts, the signals kept of their
-- alerts (one per source and dedupe key, whatever server got it), and the
-- drafts they make. The columns are those a query selects on; the rest of
-- each object is a JSON document (doc), since nothing queries inside it.
CREATE TABLE sources (
    id         BIGINT PRIMARY KEY,
    name       TEXT   NOT NULL UNIQUE,
    token_hash BYTEA  NOT NULL,
    doc        TEXT   NOT NULL
);
CREATE TABLE signals (
    id        BIGINT PRIMARY KEY,
    source_id BIGINT NOT NULL REFERENCES sources (id) ON DELETE CASCADE,
    key       TEXT   NOT NULL,
    status    TEXT   NOT NULL,
    unmapped  BIGINT NOT NULL,
    draft_id  BIGINT,
    notice_id BIGINT,
    held_until BIGINT,
    doc       TEXT   NOT NULL,
    UNIQUE (source_id, key)
);
CREATE INDEX signals_held ON signals (held_until) WHERE held_until IS NOT NULL;
CREATE INDEX signals_draft ON signals (draft_id, status) WHERE draft_id IS NOT NULL;
CREATE INDEX signals_notice ON signals (notice_id, status) WHERE notice_id IS NOT NULL;
CREATE TABLE drafts (
    id         BIGINT PRIMARY KEY,
    state      TEXT   NOT NULL,
    publish_at BIGINT,
    doc        TEXT   NOT NULL
);
CREATE INDEX drafts_publish ON drafts (publish_at) WHERE publish_at IS NOT NULL;
CREATE INDEX drafts_state ON drafts (state);
