-- One subscriber per email address whatever its case (CONTRACT C7):
-- address_key is statusd.AddressKey, the email address with its ASCII
-- letters in lower case (the URL as it is), unique per channel. Addresses
-- stored before that differ only in case stay apart: the later ones' keys
-- take their id, and a change of one of them is refused as a conflict
-- until one is removed.
ALTER TABLE subscribers ADD COLUMN address_key TEXT NOT NULL DEFAULT '';
UPDATE subscribers SET address_key = CASE WHEN channel = 'email'
    THEN translate(address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') ELSE address END;
UPDATE subscribers s SET address_key = s.address_key || ' #' || s.id
    WHERE EXISTS (SELECT 1 FROM subscribers o WHERE o.channel = s.channel AND o.address_key = s.address_key AND o.id < s.id);
CREATE UNIQUE INDEX subscribers_address_key ON subscribers (channel, address_key);
