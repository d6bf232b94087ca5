-- Components get an optional key (statusd.Component.Key), unique across
-- the page, by which alert labels name them (CONTRACT C9); NULL is none.
-- Admin tokens get a role (statusd.Token.Role); those made before act as
-- owners, as every token did.
ALTER TABLE components ADD COLUMN key TEXT;
CREATE UNIQUE INDEX components_key ON components (key) WHERE key IS NOT NULL;
ALTER TABLE tokens ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';
