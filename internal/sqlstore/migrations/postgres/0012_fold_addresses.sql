-- One subscriber per email address whatever its case (CONTRACT C7), for
-- the addresses stored before 0006 that differ only in case too: of each
-- such group the subscriber kept is the one that hears most (active, then
-- pending, then quarantined, then unsubscribed), the oldest of those;
-- the others, with their deliveries and their confirmation events, go
-- (mail to them would reach the same mailbox twice), and the one kept
-- gets its plain key back.
DELETE FROM deliveries WHERE subscriber_id IN (
    SELECT s.id FROM subscribers s WHERE s.channel = 'email' AND EXISTS (
        SELECT 1 FROM subscribers o WHERE o.channel = 'email' AND translate(o.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = translate(s.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AND o.id <> s.id
        AND (CASE o.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, o.id)
          < (CASE s.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, s.id)));
DELETE FROM events WHERE subscriber_id <> 0 AND subscriber_id IN (
    SELECT s.id FROM subscribers s WHERE s.channel = 'email' AND EXISTS (
        SELECT 1 FROM subscribers o WHERE o.channel = 'email' AND translate(o.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = translate(s.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AND o.id <> s.id
        AND (CASE o.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, o.id)
          < (CASE s.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, s.id)));
DELETE FROM subscribers WHERE id IN (
    SELECT s.id FROM subscribers s WHERE s.channel = 'email' AND EXISTS (
        SELECT 1 FROM subscribers o WHERE o.channel = 'email' AND translate(o.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = translate(s.address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') AND o.id <> s.id
        AND (CASE o.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, o.id)
          < (CASE s.state WHEN 'active' THEN 0 WHEN 'pending' THEN 1 WHEN 'quarantined' THEN 2 ELSE 3 END, s.id)));
UPDATE subscribers SET address_key = translate(address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') WHERE channel = 'email' AND address_key <> translate(address, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz');
