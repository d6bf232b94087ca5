-- One subscriber per email address whatever its case (CONTRACT C7):
-- address_key is statusd.AddressKey, the email address in lower case (the
-- URL as it is), unique per channel. Addresses stored before that differ
-- only in case stay apart: the later ones' keys take their id, and a
-- change of one of them is refused as a conflict until one is removed.
ALTER TABLE subscribers ADD COLUMN address_key TEXT NOT NULL DEFAULT '';
UPDATE subscribers SET address_key = CASE WHEN channel = 'email' THEN lower(address) ELSE address END;
UPDATE subscribers SET address_key = address_key || ' #' || id
    WHERE EXISTS (SELECT 1 FROM subscribers o
                  WHERE o.channel = subscribers.channel AND o.address_key = subscribers.address_key AND o.id < subscribers.id);
CREATE UNIQUE INDEX subscribers_address_key ON subscribers (channel, address_key);
