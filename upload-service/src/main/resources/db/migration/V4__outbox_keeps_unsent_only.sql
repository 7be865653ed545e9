-- The outbox now removes an event once hook-service has accepted it (its message stays in message); rows marked sent
-- by earlier versions go the same way.
delete from hook_outbox where sent_at is not null;
