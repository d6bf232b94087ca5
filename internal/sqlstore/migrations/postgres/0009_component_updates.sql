-- Component updates (CONTRACT C7): an event of kind component_update
-- carries the component's state before and after the write that made it
-- ('' on other events).
ALTER TABLE events ADD COLUMN old_state TEXT NOT NULL DEFAULT '';
ALTER TABLE events ADD COLUMN new_state TEXT NOT NULL DEFAULT '';
