-- Message ids unique for good (CONTRACT C7): a delivery's message_id is
-- its webhook-id and its Message-ID's left part, random, the same on every
-- attempt, so that it never repeats after a rebuild or an import into a
-- fresh database, as the deliveries' row numbers did. A notice's thread is
-- the random left part of its first message's Message-ID, which the
-- others' In-Reply-To name: kept here for good (events are pruned), and
-- copied into each of the notice's events.
ALTER TABLE deliveries ADD COLUMN message_id TEXT NOT NULL DEFAULT '';
UPDATE deliveries SET message_id = lower(hex(randomblob(16)));
CREATE TABLE notice_threads (
    notice_id INTEGER PRIMARY KEY,
    thread    TEXT    NOT NULL
);
INSERT INTO notice_threads (notice_id, thread)
    SELECT DISTINCT notice_id, '' FROM events WHERE notice_id <> 0;
UPDATE notice_threads SET thread = lower(hex(randomblob(16)));
ALTER TABLE events ADD COLUMN thread TEXT NOT NULL DEFAULT '';
UPDATE events SET thread = (SELECT t.thread FROM notice_threads t WHERE t.notice_id = events.notice_id)
    WHERE notice_id <> 0;
