-- The highest id ever given, per kind of object, so that the id of a
-- deleted notice, update or component is never given again.
CREATE TABLE id_high_water (
    kind TEXT   PRIMARY KEY,
    high BIGINT NOT NULL
);
