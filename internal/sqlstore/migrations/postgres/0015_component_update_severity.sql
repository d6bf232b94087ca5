-- A component_update event's severities (CONTRACT C6's impact): the worst
-- of the current incidents that make the component degraded, before and
-- after the write ('' when it is not degraded, and in the events made
-- before), so that the webhook tells the component's Statuspage status as
-- the write left it.
ALTER TABLE events ADD COLUMN old_severity TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN new_severity TEXT NOT NULL DEFAULT '';
