-- The upload's W3C trace context (traceparent) and when the event was written: the hand-off restores the trace when it
-- posts the event, and its span (the event's wait for hook-service's intake) starts at stored_at. Null for events
-- written before, or while no trace was current.
alter table hook_outbox add column traceparent varchar(128);
alter table hook_outbox add column stored_at timestamp with time zone;
