-- What each update's write did (Statuspage's deliver_notifications and
-- affected_components): whether it told subscribers, and the components
-- whose states it changed, a JSON array of {"component_id", "old", "new"}
-- (NULL when none). Updates made before are as imported: neither.
ALTER TABLE updates ADD COLUMN notified INTEGER NOT NULL DEFAULT 0;
ALTER TABLE updates ADD COLUMN changes TEXT;
