-- How badly an unplanned notice hurts (CONTRACT C6): minor, major or
-- critical; '' is minor, the default, and what other notices hold.
ALTER TABLE notices ADD COLUMN impact TEXT NOT NULL DEFAULT '';
