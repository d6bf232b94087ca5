-- Components get an optional key (statusd.Component.Key), unique across
-- the page, by which alert labels name them (CONTRACT C9); NULL is none.
ALTER TABLE components ADD COLUMN key TEXT;
CREATE UNIQUE INDEX components_key ON components (key) WHERE key IS NOT NULL;
