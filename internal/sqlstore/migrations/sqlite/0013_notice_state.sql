-- A notice's state, the state of its newest update (statusd.Notice.State),
-- kept beside the notice so that a write finds the notices that make
-- components' states (investigating, identified, underway) through an
-- index, instead of reading every notice of a component and the newest
-- update of each (Tx.CurrentListing, on every notice write).
ALTER TABLE notices ADD COLUMN state TEXT;
UPDATE notices SET state = (SELECT u.state FROM updates u WHERE u.notice_id = notices.id ORDER BY u.seq DESC LIMIT 1);
CREATE INDEX notices_state ON notices (state);
