-- What each write changed, by the version it made, so that a server that
-- did not make the write can follow it without loading the whole page.
-- notices is a JSON array of the ids written (deleted ones included). Only
-- the last writes are kept; an import leaves no row, so that a gap tells
-- followers to load everything.
CREATE TABLE changes (
    version    BIGINT  PRIMARY KEY,
    page       INTEGER NOT NULL,
    components INTEGER NOT NULL,
    notices    TEXT    NOT NULL
);
